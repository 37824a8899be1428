import WPText
import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPRuntime
import WPServer
@testable import WPExporter

/// `/health` shows texts from WinPower (device names, alarm texts, errors) without their control
/// and bidirectional formatting characters, raw or JSON-escaped.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct HealthDisplayTextTests {
    @Test func aHostileAliasAndAlarmTextAreShownReplaced() throws {
        let now = Date()
        var health = CollectorHealth(lastFinished: now, lastSuccess: now, winPowerReachable: true, authenticated: true,
                                     deviceCount: 1)
        let hostile = "evil\u{1B}[2J\u{0}\u{7}\u{202E}spu"
        let shown = "evil\u{FFFD}[2J\u{FFFD}\u{FFFD}\u{FFFD}spu"
        health.alarms = [.init(deviceID: "ups-1", deviceName: hostile,
                               alarms: [Alarm(code: "501", message: hostile + "\r\nsecond line\u{7F}")])]
        let response = try EndpointTests.endpoints(health: health, now: now).healthResponse()
        let body = Array(response.body.dropLast())
        #expect(response.body.last == 0x0A)
        let text = String(decoding: body, as: UTF8.self)
        #expect(!text.unicodeScalars.contains(where: DisplayText.isReplaced), "no raw control or bidi character")
        for escape in [#"\u001b"#, #"\u0000"#, #"\u0007"#, #"\r"#, #"\n"#] {
            #expect(!text.contains(escape), "no \(escape)")
        }
        let report = try JSONDecoder().decode(HealthReport.self, from: Data(response.body))
        let device = try #require(report.alarms.first)
        #expect(device.deviceName == shown)
        #expect(device.alarms.first?.message == shown + "\u{FFFD}\u{FFFD}second line\u{FFFD}")
        #expect(device.deviceID == "ups-1")
    }

    /// Only escapes that decode to a replaced character are replaced: an escaped quote, an
    /// escaped backslash followed by `n`, and `é` escaped stay as they were.
    @Test func otherEscapesAreKept() {
        #expect(Endpoints.displayable(json: #"{"a":"q\"b\\n\u00e9\u001b\u202e","b":[1,"\t"]}"#)
                == "{\"a\":\"q\\\"b\\\\n\\u00e9\u{FFFD}\u{FFFD}\",\"b\":[1,\"\u{FFFD}\"]}")
        #expect(Endpoints.displayable(json: #"{"plain":"Rack A"}"#) == #"{"plain":"Rack A"}"#)
    }
}

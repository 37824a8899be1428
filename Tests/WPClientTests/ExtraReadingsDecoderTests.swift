import Foundation
import Testing
import WPTestThreads
@testable import WPClient

/// Readings beyond the captured single-phase schema: per-phase keys, unknown numeric members
/// (passed through, bounded) and alarms of any shape.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExtraReadingsDecoderTests {
    static func device(_ members: String) throws -> Device {
        let body = Array("{\"total\":1,\"data\":[{\"assetDevice\":{\"id\":\"d\"},\(members)}],\"code\":\"000000\"}".utf8)
        return try #require(try DeviceListDecoder().decodeDeviceList(body).devices.first)
    }

    @Test func perPhaseKeysOfAThreePhaseUPS() throws {
        let device = try Self.device("""
        "realtime":{"inputVolt1":"230.1","inputVolt2":"231.2","inputVolt3":"229.9","outputVolt2":"220.4","outputVolt3":220.6,\
        "outputCurrent2":"4.1","outputCurrent3":"4.2","loadWatt2":"900","loadWatt3":"950","loadVa2":"930","loadVa3":"990",\
        "inputCurrent1":"4.5","inputCurrent2":"4.6","inputCurrent3":"N/A","loadWatt1":"880"},\
        "config":{"inputPhaseNumber":"3","outputPhaseNumber":"3"}
        """)
        let realtime = device.realtime
        #expect(realtime.phase(.inputVolt, 1) == 230.1, "phase 1 from its seed field")
        #expect(realtime.phase(.inputVolt, 2) == 231.2)
        #expect(realtime.phase(.inputVolt, 3) == 229.9)
        #expect(realtime.phase(.outputVolt, 3) == 220.6, "a JSON number as well as a string")
        #expect(realtime.phase(.outputCurrent, 2) == 4.1)
        #expect(realtime.phase(.loadWatt, 1) == 880)
        #expect(realtime.phase(.loadWatt, 3) == 950)
        #expect(realtime.phase(.loadVa, 2) == 930)
        #expect(realtime.phase(.inputCurrent, 1) == 4.5, "a quantity without a seed field: all phases here")
        #expect(realtime.phase(.inputCurrent, 3) == nil, "N/A is missing, never 0")
        #expect(realtime.phase(.outputVolt, 1) == nil)
        #expect(realtime.phases.hasHigherPhases)
        #expect(device.config.inputPhaseNumber == 3)
        #expect(device.extraReadings.isEmpty, "per-phase keys are known: never passed through as well")
    }

    /// The captured server's reply: its known members without a metric (`outputVoltageType`,
    /// `ratingBatUnitNumber`, …) are not passed through, and it is single-phase.
    @Test func theCapturedSampleHasNothingToPassThrough() throws {
        let page = try DeviceListDecoder().decodeDeviceList(try DecoderSampleTests.fixture("device-list-response"))
        let device = try #require(page.devices.first)
        #expect(device.extraReadings.isEmpty)
        #expect(device.extraReadingsDropped == 0)
        #expect(device.realtime.phases.isEmpty)
        #expect(device.activeAlarms == ActiveAlarms(count: 0, codes: [], alarms: []))
    }

    @Test func singlePhaseDeviceHasNoPhaseStorage() throws {
        let device = try Self.device("\"realtime\":{\"inputVolt1\":\"230\",\"loadWatt1\":\"100\"}")
        #expect(device.realtime.phases.isEmpty)
        #expect(!device.realtime.phases.hasHigherPhases)
        #expect(device.realtime.phases == PhaseReadings())
    }

    @Test func aFourthPhaseOrAnUnknownStemIsAnExtraReading() throws {
        let device = try Self.device("\"realtime\":{\"inputVolt4\":\"1\",\"batVolt2\":\"2\",\"inputVolt0\":\"3\"}")
        #expect(device.extraReadings.map(\.key) == ["inputVolt4", "batVolt2", "inputVolt0"])
        #expect(device.realtime.phases.isEmpty)
    }

    @Test func twentyUnknownNumericMembersAreTwentyReadingsAndTextIsSkipped() throws {
        let numeric = (1...20).map { "\"extra\($0)\":\"\($0).5\"" }.joined(separator: ",")
        let device = try Self.device("""
        "realtime":{\(numeric),"bypassState":"normal","emdTemp":"","nested":{"a":"1"},"flag":true,"inputVolt1":"230"},\
        "config":{"ratingPf":"0.9","ratingVa":"3000"},"setting":{"lowBatteryWarning":20,"enableAudible":"1"}
        """)
        let realtime = device.extraReadings.filter { $0.section == .realtime }
        #expect(realtime.count == 20)
        #expect(realtime.first == ExtraReading(section: .realtime, key: "extra1", value: 1.5))
        #expect(realtime.last == ExtraReading(section: .realtime, key: "extra20", value: 20.5))
        #expect(device.extraReadings.filter { $0.section == .config } == [ExtraReading(section: .config, key: "ratingPf", value: 0.9)])
        #expect(device.extraReadings.filter { $0.section == .setting }
                == [ExtraReading(section: .setting, key: "lowBatteryWarning", value: 20)])
        #expect(device.extraReadingsDropped == 0, "text, empty, nested and boolean values are skipped, not dropped")
        #expect(device.realtime.inputVolt1 == 230 && device.config.ratingVa == 3000, "known members decode as before")
    }

    @Test func tenThousandMembersAreBoundedAndCounted() throws {
        let members = (0..<10_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let longKey = String(repeating: "x", count: DeviceListDecoder.longestExtraKey + 1)
        let device = try Self.device("\"realtime\":{\"\(longKey)\":\"1\",\(members)}")
        #expect(device.extraReadings.count == DeviceListDecoder.extraReadingLimit)
        #expect(device.extraReadingsDropped == 10_000 + 1 - DeviceListDecoder.extraReadingLimit)
        #expect(device.extraReadings.first?.key == "k0", "the over-long name is dropped, the first others kept in order")
    }

    /// Invalid UTF-8 in a name becomes U+FFFD, three bytes for one: 30 such bytes make a name
    /// of 90 bytes, over the limit although the raw name is 30.
    @Test func nameLengthIsCheckedAfterDecoding() throws {
        var body = Array("{\"total\":1,\"data\":[{\"assetDevice\":{\"id\":\"d\"},\"realtime\":{\"".utf8)
        body += [UInt8](repeating: 0xFF, count: 30)
        body += Array("\":\"1\",\"ok\":\"2\"}}],\"code\":\"000000\"}".utf8)
        let device = try #require(try DeviceListDecoder().decodeDeviceList(body).devices.first)
        #expect(device.extraReadings == [ExtraReading(section: .realtime, key: "ok", value: 2)])
        #expect(device.extraReadingsDropped == 1)
    }

    @Test func escapedMemberNamesAreDecoded() throws {
        let device = try Self.device("\"realtime\":{\"temp\\u00b0C\":\"21\",\"a\\\"b\":\"2\"}")
        #expect(device.extraReadings.map(\.key) == ["temp°C", "a\"b"])
    }

    @Test func alarmsOfEveryShapeWithNamesMessagesAndKnownCodes() throws {
        let longMessage = String(repeating: "m", count: 300)
        let device = try Self.device("""
        "activeAlarms":[501,"0x0107",{"code":"0x0201","message":"Battery test running","id":"1004"},\
        {"alarmCode":"0x0011","alarmName":"Utility power failure","level":"2"},{"eventCode":7,"description":"\(longMessage)"},\
        {"title":"Fan","content":"Fan 2 stopped"}]
        """)
        let alarms = try #require(device.activeAlarms)
        #expect(alarms.count == 6)
        #expect(alarms.codes == ["501", "0x0107", "0x0201", "0x0011", "7"])
        #expect(alarms.alarms[0] == Alarm(code: "501", name: "BatteryTestInProgress"), "a known code gets its name")
        #expect(alarms.alarms[1] == Alarm(code: "0x0107"))
        #expect(alarms.alarms[2] == Alarm(code: "0x0201", message: "Battery test running", id: "1004"))
        #expect(alarms.alarms[3] == Alarm(code: "0x0011", name: "Utility power failure"))
        let message = try #require(alarms.alarms[4].message)
        #expect(message == String(repeating: "m", count: DeviceListDecoder.defaultMaxTextBytes - 3) + "…",
                "cut to the byte bound, with an ellipsis")
        #expect(message.utf8.count == DeviceListDecoder.defaultMaxTextBytes)
        #expect(device.textsTruncated == 1)
        #expect(alarms.alarms[5] == Alarm(name: "Fan", message: "Fan 2 stopped"))
    }

    @Test func alarmDetailsAreBoundedButAllCounted() throws {
        let entries = (0..<500).map { "\"c\($0)\"" }.joined(separator: ",")
        let alarms = try #require(try Self.device("\"activeAlarms\":[\(entries)]").activeAlarms)
        #expect(alarms.count == 500)
        #expect(alarms.alarms.count == DeviceListDecoder.alarmDetailLimit)
    }
}

import Foundation
import Testing
import WPTestThreads
import WPLogging

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct JSONLogEncoderTests {
    let encoder = JSONLogEncoder()

    @Test func goldenLineHasFixedKeyOrderAndSortedFields() {
        let record = LogRecord.make(fields: ["url": "https://ups.local:8081", "devices": 3, "ratio": 0.5, "ok": true])
        #expect(encoder.encodedLine(record) ==
            #"{"time":"2026-11-22T02:37:19.123Z","level":"info","logger":"client","message":"login ok","devices":3,"ok":true,"ratio":0.5,"url":"https://ups.local:8081"}"# + "\n")
    }

    @Test func timestampsAreRFC3339UTCWithMilliseconds() {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (-0.001, "1969-12-31T23:59:59.999Z"),
            (1_709_251_199.999, "2024-02-29T23:59:59.999Z"),
            (-2_208_988_800, "1900-01-01T00:00:00.000Z"),
            (.nan, "1970-01-01T00:00:00.000Z"),
        ]
        for (seconds, text) in cases {
            let line = encoder.encodedLine(.make(time: LogTimestamp(secondsSince1970: seconds)))
            #expect(line.hasPrefix(#"{"time":""# + text + #"","#), "\(seconds)")
        }
    }

    @Test func escapesQuotesBackslashesAndEveryControlCharacter() {
        let message = "a\"b\\c\nd\re\tf\u{8}g\u{C}h\u{0}i\u{1B}[31mj\u{7F}k\u{85}l\u{9B}m\u{2028}n\u{2029}o"
        let line = encoder.encodedLine(.make(message: message))
        #expect(line.contains(#""message":"a\"b\\c\nd\re\tf\bg\fh\u0000i\u001b[31mj\u007fk\u0085l\u009bm\u2028n\u2029o""#))
        #expect(line.filter { $0 == "\n" }.count == 1)
    }

    @Test func nonASCIITextPassesThroughAsUTF8() {
        let line = encoder.encodedLine(.make(message: "é 中文 😀 →", fields: ["name": "机房 UPS"]))
        #expect(line.contains(#""message":"é 中文 😀 →","name":"机房 UPS""#))
    }

    @Test func keysAndLabelsAreEscapedToo() {
        let line = encoder.encodedLine(.make(logger: "a\"b", fields: ["k\ney": "v"]))
        #expect(line.contains(#""logger":"a\"b""#))
        #expect(line.contains(#""k\ney":"v""#))
    }

    @Test func numbersAreJSONNumbersAndNonFiniteDoublesAreStrings() throws {
        let record = LogRecord.make(fields: ["nan": .double(.nan), "inf": .double(.infinity),
                                             "ninf": .double(-.infinity), "small": 1e-5, "big": 1e20,
                                             "neg": -2, "whole": 3.0, "min": .int(Int.min)])
        let line = encoder.encodedLine(record)
        #expect(line.hasSuffix(#""big":1e+20,"inf":"+Inf","min":-9223372036854775808,"nan":"NaN","neg":-2,"ninf":"-Inf","small":1e-05,"whole":3.0}"# + "\n"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["nan"] as? String == "NaN")
        #expect(object["small"] as? Double == 1e-5)
    }

    @Test func everyEscapedLineIsValidJSONThatRoundTrips() throws {
        let message = "quote \" slash \\ nl \n esc \u{1B} del \u{7F} c1 \u{85} ls \u{2028} 中"
        let line = encoder.encodedLine(.make(message: message, fields: ["v": .string(message)]))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == message)
        #expect(object["v"] as? String == message)
    }

    @Test func fieldsNamedLikeReservedKeysAreRenamed() {
        let line = encoder.encodedLine(.make(fields: ["message": "x", "level": "y", "zeta": 1]))
        #expect(line.hasSuffix(#""message":"login ok","fields.level":"y","fields.message":"x","zeta":1}"# + "\n"))
    }

    @Test func callerFollowsThePolicy() {
        let always = JSONLogEncoder(caller: .always)
        #expect(always.encodedLine(.make()).contains(#""message":"login ok","caller":"WPClient/Client.swift:42"}"#))
        let errorsOnly = JSONLogEncoder(caller: CallerPolicy(enableCaller: false, enableStacktrace: true))
        #expect(!errorsOnly.encodedLine(.make(level: .warn)).contains("caller"))
        #expect(errorsOnly.encodedLine(.make(level: .error)).contains(#""caller":"WPClient/Client.swift:42""#))
        #expect(!encoder.encodedLine(.make(level: .error)).contains("caller"))
        #expect(!always.encodedLine(.make(file: "")).contains("caller"))
    }

    @Test func appendsToExistingBufferContents() {
        var buffer = Array("prefix|".utf8)
        encoder.encode(.make(), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self).hasPrefix(#"prefix|{"time":"#))
    }
}

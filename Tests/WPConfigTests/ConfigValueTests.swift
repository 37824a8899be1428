import Testing
import WPTestThreads
@testable import WPConfig

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ConfigValueTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("5s", .seconds(5)), ("1m30s", .seconds(90)), ("1h", .seconds(3600)),
        ("1.5s", .milliseconds(1500)), ("2h45m", .seconds(9900)), ("0", .zero), ("250us", .microseconds(250)),
        ("250µs", .microseconds(250)), ("10ns", .nanoseconds(10)), ("-5s", .seconds(-5)), ("+1m", .seconds(60)),
    ])
    func durationsParse(text: String, expected: Duration) throws {
        #expect(try DurationText.parse(text).get() == expected)
    }

    @Test(arguments: ["", "5", "30 s", "5x", "s", "1.2.3s", "5sec", "ms", ".s", "1h-5m", "99999999999999999h"])
    func malformedDurationsAreRejected(text: String) {
        #expect(throws: ConfigValueError.self) { try DurationText.parse(text).get() }
    }

    @Test(arguments: [
        (Duration.seconds(3600), "1h"), (.seconds(90), "1m30s"), (.milliseconds(500), "500ms"),
        (.milliseconds(1500), "1s500ms"), (.zero, "0s"), (.seconds(300), "5m"), (.seconds(-2), "-2s"),
    ])
    func durationsFormatAndReadBack(duration: Duration, text: String) throws {
        #expect(DurationText.format(duration) == text)
        #expect(try DurationText.parse(text).get() == duration)
    }

    @Test func fileModesAreOctal() throws {
        #expect(try ConfigValue.parse("0644", as: .fileMode).get() == .integer(0o644))
        #expect(try ConfigValue.parse("0o600", as: .fileMode).get() == .integer(0o600))
        #expect(try ConfigValue.parse("0", as: .fileMode).get() == .integer(0))
        #expect(ConfigValue.integer(0o640).formatted(as: .fileMode) == "0640")
        for bad in ["644", "0698", "0o", "rw-r--r--", "0x1A4"] {
            #expect(throws: ConfigValueError.self, "\(bad)") { try ConfigValue.parse(bad, as: .fileMode).get() }
        }
    }

    @Test func booleansAcceptTrueFalseOneZero() throws {
        for (text, value) in [("true", true), ("TRUE", true), ("1", true), ("false", false), ("False", false), ("0", false)] {
            #expect(try ConfigValue.parse(text, as: .boolean).get() == .boolean(value))
        }
        for bad in ["yes", "no", "on", "off", ""] {
            let error = #expect(throws: ConfigValueError.self) { try ConfigValue.parse(bad, as: .boolean).get() }
            #expect(error?.reason == "must be true or false")
        }
    }

    @Test func integersAreDecimalWithoutAmbiguousLeadingZeros() throws {
        #expect(try ConfigValue.parse("9090", as: .integer(1...65535)).get() == .integer(9090))
        #expect(try ConfigValue.parse("-3", as: .integer(0...1)).get() == .integer(-3))
        let leadingZero = #expect(throws: ConfigValueError.self) { try ConfigValue.parse("0100", as: .integer(0...999)).get() }
        #expect(leadingZero?.reason.contains("leading zero") == true)
        for bad in ["9_090", "1e3", "12.0", "", "0x10", "٣"] {
            #expect(throws: ConfigValueError.self, "\(bad)") { try ConfigValue.parse(bad, as: .integer(0...99_999)).get() }
        }
    }

    @Test func choicesAndPaths() throws {
        let output = ConfigValueType.choiceOrPath(["stdout", "stderr", "file", "both"])
        #expect(try ConfigValue.parse("both", as: output).get() == .string("both"))
        #expect(try ConfigValue.parse("/var/log/x.log", as: output).get() == .string("/var/log/x.log"))
        #expect(throws: ConfigValueError.self) { try ConfigValue.parse("syslog", as: output).get() }
        #expect(throws: ConfigValueError.self) { try ConfigValue.parse("INFO", as: .choice(["info"])).get() }
    }

    @Test func secretsNeverFormatOrPrint() {
        let secret = Secret("hunter2")
        #expect(ConfigValue.string("hunter2").formatted(as: .secret) == "******")
        #expect("\(secret)" == "******")
        #expect(String(reflecting: secret) == "******")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        var config = ExporterConfiguration()
        config.winPower.password = secret
        #expect(!"\(config)".contains("hunter2"))
        #expect(!String(reflecting: config).contains("hunter2"))
        #expect(secret.reveal() == "hunter2")
    }

    @Test func suggestionsByEditDistance() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.closest(to: "server.prot", in: ConfigKey.all.map(\.name)) == "server.port")
        #expect(Suggestion.closest(to: "--winpower.base-url", in: ConfigKey.allFlags) == "--winpower.base_url")
        #expect(Suggestion.closest(to: "completely.different", in: ConfigKey.all.map(\.name)) == nil)
    }
}

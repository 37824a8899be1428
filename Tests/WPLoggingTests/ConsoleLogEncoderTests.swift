import Testing
import WPTestThreads
import WPLogging

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ConsoleLogEncoderTests {
    let encoder = ConsoleLogEncoder()

    @Test func goldenLineHasAlignedColumnsAndSortedFields() {
        let record = LogRecord.make(fields: ["url": "https://ups.local:8081", "devices": 3, "note": "two words",
                                             "empty": "", "ratio": 0.5, "ok": false])
        #expect(encoder.encodedLine(record) ==
            "2026-11-22T02:37:19.123Z INFO  client       login ok  devices=3 empty=\"\" note=\"two words\" ok=false ratio=0.5 url=https://ups.local:8081\n")
    }

    @Test func levelsAndLabelsKeepTheirColumns() {
        let lines = LogLevel.allCases.map { encoder.encodedLine(.make(level: $0, message: "m", logger: "srv")) }
        #expect(lines == [
            "2026-11-22T02:37:19.123Z DEBUG srv          m\n",
            "2026-11-22T02:37:19.123Z INFO  srv          m\n",
            "2026-11-22T02:37:19.123Z WARN  srv          m\n",
            "2026-11-22T02:37:19.123Z ERROR srv          m\n",
        ])
        #expect(encoder.encodedLine(.make(message: "m", logger: "a-very-long-label")) ==
            "2026-11-22T02:37:19.123Z INFO  a-very-long-label m\n")
    }

    @Test func colorsAreANSICodesAroundTimeLevelAndKeys() {
        let colored = ConsoleLogEncoder(colors: true)
        #expect(colored.encodedLine(.make(level: .warn, fields: ["devices": 3])) ==
            "\u{1B}[2m2026-11-22T02:37:19.123Z\u{1B}[0m \u{1B}[33mWARN\u{1B}[0m  client       login ok  \u{1B}[2mdevices=\u{1B}[0m3\n")
        #expect(colored.encodedLine(.make(level: .error)).contains("\u{1B}[31mERROR\u{1B}[0m "))
        #expect(!encoder.encodedLine(.make(fields: ["a": 1])).contains("\u{1B}"))
    }

    @Test func callerColumnPrecedesTheMessage() {
        let withCaller = ConsoleLogEncoder(caller: .always)
        #expect(withCaller.encodedLine(.make()) ==
            "2026-11-22T02:37:19.123Z INFO  client       WPClient/Client.swift:42  login ok\n")
    }

    @Test func controlCharactersCannotForgeALineOrDriveTheTerminal() {
        let forged = "ok\n2026-11-22T02:37:19.123Z ERROR admin        forged\r\u{1B}[2J\u{7F}\u{9B}"
        let line = encoder.encodedLine(.make(message: forged, logger: "c\nd", fields: ["v": .string(forged), "k ey": 1]))
        #expect(line == "2026-11-22T02:37:19.123Z INFO  c\\nd         ok\\n2026-11-22T02:37:19.123Z ERROR admin        forged\\r\\u001b[2J\\u007f\\u009b  \"k ey\"=1 v=\"ok\\n2026-11-22T02:37:19.123Z ERROR admin        forged\\r\\u001b[2J\\u007f\\u009b\"\n")
        #expect(line.filter { $0 == "\n" || $0 == "\r" || $0 == "\u{1B}" }.count == 1)
    }

    @Test func quotedValuesEscapeQuotesAndBackslashes() {
        let line = encoder.encodedLine(.make(message: "path \"C:\\x\"", fields: ["p": "C:\\dir \"x\"", "eq": "a=b"]))
        #expect(line.hasSuffix("path \"C:\\x\"  eq=\"a=b\" p=\"C:\\\\dir \\\"x\\\"\"\n"))
    }

    @Test func nonFiniteNumbersAreReadable() {
        let line = encoder.encodedLine(.make(fields: ["a": .double(.nan), "b": .double(-.infinity), "c": 1e-5]))
        #expect(line.hasSuffix("a=NaN b=-Inf c=1e-05\n"))
    }
}

import Testing
import WPLogging
import WPTestSupport

@Suite struct RedactionTests {
    @Test func sensitiveKeysAreMaskedWhateverTheValueType() {
        let sink = InMemoryLogSink()
        let log = sink.logger()
        log.info("login", ["password": "hunter2", "Authorization": "Basic YWRtaW46aHVudGVyMg==",
                           "X-Api-Key": 5, "session_token": "t0k", "Set-Cookie": "sid=1", "apikey": true,
                           "client_secret": 1.5, "PASSWD": "x", "api-key": "k", "user": "admin", "devices": 3])
        let fields = sink.records[0].fields
        for key in ["password", "Authorization", "X-Api-Key", "session_token", "Set-Cookie", "apikey",
                    "client_secret", "PASSWD", "api-key"] {
            #expect(fields[key] == .string("***"), "\(key)")
        }
        #expect(fields["user"] == "admin")
        #expect(fields["devices"] == 3)
        #expect(!sink.allText.contains("hunter2"))
    }

    @Test func fixedFieldsOfChildLoggersAreMaskedToo() {
        let sink = InMemoryLogSink()
        let child = sink.logger().child(label: "client", fields: ["winpower_password": "pw123"])
        child.warn("retry")
        #expect(sink.records[0].fields["winpower_password"] == .string("***"))
    }

    @Test func sensitiveKeyMatchingIsCaseInsensitiveAndBySubstring() {
        #expect(Redactor.isSensitiveKey("X-Auth-TOKEN"))
        #expect(Redactor.isSensitiveKey("proxy-authorization"))
        #expect(Redactor.isSensitiveKey("Cookie"))
        #expect(!Redactor.isSensitiveKey("device_id"))
        #expect(!Redactor.isSensitiveKey("pass"))
        #expect(!Redactor.isSensitiveKey(""))
    }

    @Test func registeredSecretsAreMaskedInMessagesAndValues() {
        let redactor = Redactor(secrets: ["s3cr3t!"])
        let sink = InMemoryLogSink()
        let log = Logger(label: "client", level: .debug, sink: sink, redactor: redactor)
        log.error("login with s3cr3t! failed", ["detail": "pw=s3cr3t!;s3cr3t!", "url": "https://admin:s3cr3t!@ups"])
        let record = sink.records[0]
        #expect(record.message == "login with *** failed")
        #expect(record.fields["detail"] == "pw=***;***")
        #expect(record.fields["url"] == "https://admin:***@ups")
    }

    @Test func secretsRegisteredLaterApplyToExistingLoggersAndChildren() {
        let redactor = Redactor()
        let sink = InMemoryLogSink()
        let child = Logger(label: "root", sink: sink, redactor: redactor).child(label: "client")
        child.info("token abc123xyz")
        redactor.setSecret("abc123xyz", named: "winpower.token")
        child.info("token abc123xyz")
        #expect(sink.records.map(\.message) == ["token abc123xyz", "token ***"])
        #expect(child.redactor === redactor)
    }

    @Test func namedSecretsReplaceTheirPreviousValue() {
        let redactor = Redactor()
        redactor.setSecret("first-token", named: "token")
        redactor.setSecret("second-token", named: "token")
        #expect(redactor.secretCount == 1)
        #expect(redactor.redact("first-token second-token") == "first-token ***")
        redactor.setSecret(nil, named: "token")
        #expect(redactor.secretCount == 0)
        redactor.register("")
        redactor.setSecret("", named: "empty")
        #expect(redactor.secretCount == 0)
        #expect(redactor.redact("abc") == "abc")
    }

    @Test func percentEncodedAndJSONEscapedFormsOfASecretAreMaskedToo() {
        let redactor = Redactor(secrets: [#"p@ss w"rd"#])
        #expect(redactor.secretCount == 1)
        #expect(redactor.redact("GET /login?password=p%40ss%20w%22rd&x=1") == "GET /login?password=***&x=1")
        #expect(redactor.redact(#"body {"password":"p@ss w\"rd"}"#) == #"body {"password":"***"}"#)
        #expect(redactor.redact(#"raw p@ss w"rd"#) == "raw ***")
    }

    @Test func longerSecretsWinOverTheirPrefixes() {
        let redactor = Redactor(secrets: ["abc", "abcdef"])
        #expect(redactor.redact("xabcdefx abcx") == "x***x ***x")
    }

    @Test func numbersContainingASecretBecomeMaskedStrings() {
        let redactor = Redactor(secrets: ["987654"])
        let fields = redactor.redact(["pin": .int(19_876_543), "other": .int(12), "flag": true])
        #expect(fields["pin"] == .string("1***3"))
        #expect(fields["other"] == .int(12))
        #expect(fields["flag"] == .bool(true))
    }

    @Test func bearerTokensAreMaskedWithoutRegistration() {
        let redactor = Redactor()
        #expect(redactor.redact("Authorization: Bearer eyJhbGciOi.abc-_~+/== sent") == "Authorization: Bearer *** sent")
        #expect(redactor.redact("bearer\tXYZ") == "bearer\t***")
        #expect(redactor.redact("BEARER  a,b") == "BEARER  ***,b")
        #expect(redactor.redact("header=\"Bearer q\"") == "header=\"Bearer ***\"")
        #expect(redactor.redact("unbearer abc") == "unbearer abc")
        #expect(redactor.redact("Bearer") == "Bearer")
        #expect(redactor.redact("Bearer ***") == "Bearer ***")
        #expect(redactor.redact("no secrets here") == "no secrets here")
        let fields = redactor.redact(["header": "Bearer abc.def"])
        #expect(fields["header"] == "Bearer ***")
    }

    @Test func secretsNeverReachTheEncodedOutput() {
        let capture = LoggingCaptureSink(encoder: ConsoleLogEncoder(caller: .always))
        let redactor = Redactor(secrets: ["Winp0wer!"])
        let log = Logger(label: "client", level: .debug, sink: capture, redactor: redactor)
        log.debug("POST /api/login password=Winp0wer!", ["body": #"{"password":"Winp0wer!"}"#, "token": "tkn"])
        log.info("GET /api/v1/list Authorization: Bearer tkn-123")
        #expect(!capture.text.contains("Winp0wer!"))
        #expect(!capture.text.contains("tkn"))
        #expect(capture.lines.count == 2)
    }

    @Test func aForgedLineStaysOneEscapedLineInBothFormats() {
        let forged = "user bob\n{\"time\":\"2026-11-22T02:37:19.123Z\",\"level\":\"error\",\"message\":\"forged\"}\r\u{1B}[1A"
        for encoder in [JSONLogEncoder() as any LogEncoder, ConsoleLogEncoder(colors: true)] {
            let capture = LoggingCaptureSink(encoder: encoder)
            let log = Logger(label: "server", sink: capture)
            log.info(forged, ["user": .string(forged)])
            #expect(capture.lines.count == 1)
            #expect(!capture.text.contains("\r"))
            #expect(capture.text.contains("bob\\n{"))
            #expect(!capture.text.contains("\u{1B}[1A"))
        }
    }

    @Test func disabledLevelsDoNotEvaluateTheMessage() {
        let sink = InMemoryLogSink()
        let log = Logger(label: "t", level: .info, sink: sink)
        var evaluated = false
        func expensive() -> String { evaluated = true; return "x" }
        log.debug(expensive())
        #expect(!evaluated)
        #expect(sink.records.isEmpty)
        log.info(expensive())
        #expect(evaluated)
    }

    @Test func callerIsTheCallSiteFileIDAndLine() {
        let capture = LoggingCaptureSink(encoder: JSONLogEncoder(caller: .always))
        let log = Logger(label: "t", sink: capture)
        log.info("here"); let line = #line
        #expect(capture.text.contains(#""caller":"WPLoggingTests/RedactionTests.swift:\#(line)""#))
    }
}

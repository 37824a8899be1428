import Testing
import WPTestThreads
import WPLogging
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RedactionTests {
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

    @Test func sensitiveKeysAreMatchedByTheirLastWordIgnoringCase() {
        for key in ["X-Auth-TOKEN", "proxy-authorization", "Cookie", "sessionToken", "APIKey", "x_api_key",
                    "db.password", "client_secrets", "pwd"] {
            #expect(Redactor.isSensitiveKey(key), "\(key)")
        }
        for key in ["device_id", "pass", "", "_", "token_lifetime_s", "password_file", "secret_count",
                    "tokenExpiry", "key", "monkey", "tokens_issued", "passwordless"] {
            #expect(!Redactor.isSensitiveKey(key), "\(key)")
        }
    }

    @Test func fieldsThatOnlyMentionASecretAreLoggedAsTheyAre() {
        let sink = InMemoryLogSink()
        sink.logger().info("logged in", ["token_lifetime_s": .seconds(.seconds(3600)), "password_file": "/etc/wp/pw"])
        #expect(sink.records[0].fields["token_lifetime_s"] == .double(3600))
        #expect(sink.records[0].fields["password_file"] == "/etc/wp/pw")
    }

    @Test func basicCredentialsAreMaskedLikeBearerTokens() {
        let redactor = Redactor()
        // "admin:hunter2" in base64, as an Authorization header and as a gateway echoing it.
        #expect(redactor.redact("Authorization: Basic YWRtaW46aHVudGVyMg==") == "Authorization: Basic ***")
        #expect(redactor.redact("got header basic\tYWRtaW46aHVudGVyMg, rejecting") == "got header basic\t***, rejecting")
        #expect(redactor.redact("Bearer abc.def") == "Bearer ***")
        // "Basic" before an ordinary word, or base64 that is not user:password, is text.
        #expect(redactor.redact("basic auth enabled for 2 users") == "basic auth enabled for 2 users")
        #expect(redactor.redact("Basic realm=\"metrics\"") == "Basic realm=\"metrics\"")
        #expect(redactor.redact("BasicYWRtaW46aHVudGVyMg==") == "BasicYWRtaW46aHVudGVyMg==")
    }

    @Test func passwordsInURLsAreMaskedWithoutBeingRegistered() {
        let redactor = Redactor()
        #expect(redactor.redact("push to http://pusher:hunter2@127.0.0.1:9091/metrics failed")
                == "push to http://pusher:***@127.0.0.1:9091/metrics failed")
        #expect(redactor.redact("url=\"https://u:p%40ss@gw\"") == "url=\"https://u:***@gw\"")
        for text in ["http://user@host/", "http://host/a:b@c", "http://u:@host", "mailto:a:b@c", "://"] {
            #expect(redactor.redact(text) == text)
        }
        let sink = InMemoryLogSink()
        sink.logger().warn("retrying", ["url": "https://admin:s3cr3t@ups:8081/api"])
        #expect(sink.records[0].fields["url"] == "https://admin:***@ups:8081/api")
    }

    @Test func durationsAreRoundedForLogs() {
        #expect(LogValue.seconds(.nanoseconds(3_599_999_873_000)) == .double(3600))
        #expect(LogValue.seconds(.milliseconds(1_234_567)) == .double(1234.567))
        #expect(LogValue.seconds(.microseconds(1_234_567)) == .double(1.235))
        #expect(LogValue.milliseconds(.nanoseconds(12_345_678)) == .double(12.346))
        #expect(LogValue.milliseconds(.nanoseconds(420_000)) == .double(0.42))
        #expect(LogValue.milliseconds(.zero) == .double(0))
        #expect(LogValue.seconds(.seconds(-2.5)) == .double(-2.5))
        let sink = InMemoryLogSink()
        sink.logger().info("request", ["duration_ms": .milliseconds(.nanoseconds(1_000_333))])
        #expect(sink.allText.contains("1.0"))
        #expect(!sink.allText.contains("1.000333"))
    }

    @Test func registeredSecretsAreMaskedInMessagesAndValues() {
        let redactor = Redactor(secrets: ["s3cr3t!"])
        let sink = InMemoryLogSink()
        let log = WPLogger(label: "client", level: .debug, sink: sink, redactor: redactor)
        log.error("login with s3cr3t! failed", ["detail": "pw=s3cr3t!;s3cr3t!", "url": "https://admin:s3cr3t!@ups"])
        let record = sink.records[0]
        #expect(record.message == "login with *** failed")
        #expect(record.fields["detail"] == "pw=***;***")
        #expect(record.fields["url"] == "https://admin:***@ups")
    }

    @Test func secretsRegisteredLaterApplyToExistingLoggersAndChildren() {
        let redactor = Redactor()
        let sink = InMemoryLogSink()
        let child = WPLogger(label: "root", sink: sink, redactor: redactor).child(label: "client")
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
        let redactor = Redactor(secrets: ["abc", "abc def"])
        #expect(redactor.redact("abc def, abc:abc def") == "***, ***:***")
        #expect(redactor.redact("xabc abcx abc") == "xabc abcx ***")
    }

    @Test func numbersEqualToASecretBecomeMaskedStrings() {
        let redactor = Redactor(secrets: ["987654"])
        let fields = redactor.redact(["pin": .int(987_654), "longer": .int(19_876_543), "other": .int(12), "flag": true])
        #expect(fields["pin"] == .string("***"))
        #expect(fields["longer"] == .int(19_876_543), "a number that only contains the secret's digits is another value")
        #expect(fields["other"] == .int(12))
        #expect(fields["flag"] == .bool(true))
    }

    /// The lines of a normal start and collection, as the exporter logs them.
    static let ordinaryLines = [
        "wpexporter listening on address=127.0.0.1:9101",
        "collected devices from https://winpower.example.com:8081/api/v1/list in 12 ms",
        "login hint: set winpower.password or winpower.password_file",
        "exporter 1.2.0 (0x1F) ready; 10 devices, pass 3 of 4",
        #"{"level":"info","message":"passing","bypass":true,"passes":12}"#,
    ]

    @Test func shortSecretsNeverDamageOrdinaryWordsAndNumbers() {
        for secret in ["x", "1", "pass", "127", "0.0"] {
            let redactor = Redactor(secrets: [secret])
            for line in Self.ordinaryLines where !line.contains(" \(secret) ") && !line.hasSuffix(" \(secret)") {
                #expect(redactor.redact(line) == line, "secret \(secret)")
            }
        }
        #expect(Redactor(secrets: ["x"]).redact("wpexporter listening") == "wpexporter listening")
        #expect(Redactor(secrets: ["1"]).redact("address=127.0.0.1:9101") == "address=127.0.0.1:9101")
        #expect(Redactor(secrets: ["pass"]).redact("set winpower.password") == "set winpower.password")
    }

    @Test func shortSecretsAreStillMaskedWhereTheyStandAsValues() {
        for secret in ["x", "1", "pass"] {
            let redactor = Redactor(secrets: [secret])
            let cases: [(String, String)] = [
                ("password=\(secret)", "password=***"),
                ("login with \(secret) failed", "login with *** failed"),
                ("the password is \(secret).", "the password is ***."),
                ("http://admin:\(secret)@ups:8081/api", "http://admin:***@ups:8081/api"),
                ("GET /login?user=admin&password=\(secret)&lang=en", "GET /login?user=admin&password=***&lang=en"),
                (#"{"userName":"admin","password":"\#(secret)"}"#, #"{"userName":"admin","password":"***"}"#),
                ("'\(secret)', (\(secret)), [\(secret)]; <\(secret)>", "'***', (***), [***]; <***>"),
                ("\(secret)", "***"),
            ]
            for (text, expected) in cases { #expect(redactor.redact(text) == expected, "secret \(secret)") }
            let fields = redactor.redact(["detail": .string(secret), "note": .string("tried \(secret)\tagain")])
            #expect(fields["detail"] == "***")
            #expect(fields["note"] == "tried ***\tagain")
        }
        let one = Redactor(secrets: ["1"]).redact(["attempt": .int(1), "count": .int(10), "ratio": .double(1.5)])
        #expect(one["attempt"] == "***", "a value equal to the secret is masked, whatever it means")
        #expect(one["count"] == .int(10))
        #expect(one["ratio"] == .double(1.5))
    }

    @Test func theExporterLogsUndamagedWithAShortPasswordAndNeverShowsIt() {
        for secret in ["x", "1", "pass"] {
            let capture = LoggingCaptureSink(encoder: JSONLogEncoder())
            let log = WPLogger(label: "wpexporter", level: .debug, sink: capture, redactor: Redactor(secrets: [secret]))
            log.info("wpexporter listening", ["address": "127.0.0.1:9101"])
            log.warn("login failed; check winpower.password", ["url": "http://admin:\(secret)@winpower.example.com:8081",
                                                                "body": .string(#"{"password":"\#(secret)"}"#)])
            #expect(capture.text.contains("wpexporter listening"))
            #expect(capture.text.contains("127.0.0.1:9101"))
            #expect(capture.text.contains("check winpower.password"))
            #expect(capture.text.contains("admin:***@winpower.example.com"))
            #expect(!capture.text.contains(":\(secret)@"))
            #expect(capture.text.contains(#"password\":\"***\""#), "\(capture.text)")
        }
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
        let log = WPLogger(label: "client", level: .debug, sink: capture, redactor: redactor)
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
            let log = WPLogger(label: "server", sink: capture)
            log.info(forged, ["user": .string(forged)])
            #expect(capture.lines.count == 1)
            #expect(!capture.text.contains("\r"))
            #expect(capture.text.contains("bob\\n{"))
            #expect(!capture.text.contains("\u{1B}[1A"))
        }
    }

    @Test func disabledLevelsDoNotEvaluateTheMessage() {
        let sink = InMemoryLogSink()
        let log = WPLogger(label: "t", level: .info, sink: sink)
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
        let log = WPLogger(label: "t", sink: capture)
        log.info("here"); let line = #line
        #expect(capture.text.contains(#""caller":"WPLoggingTests/RedactionTests.swift:\#(line)""#))
    }
}

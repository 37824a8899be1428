import Testing
import WPTestThreads
import WPLogging
import WPTestSupport

/// The password of a URL's user information, masked in free text whatever it holds.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct URLCredentialTextTests {
    static let reserved = Array(":/?#[]@!$&'()*+,;=")

    @Test(arguments: reserved)
    func passwordsHoldingAReservedCharacterAreMaskedWhole(character: Character) {
        let redactor = Redactor()
        let password = "pa\(character)ssLEAK"
        for (text, shown) in [
            ("GET http://admin:\(password)@host/x failed", "GET http://admin:***@host/x failed"),
            ("url=\"https://admin:\(password)@ups.example:8443/api?q=1\" next", "url=\"https://admin:***@ups.example:8443/api?q=1\" next"),
            ("http://admin:\(password)@[fe80::1]:8080", "http://admin:***@[fe80::1]:8080"),
            ("<http://admin:\(password)@host>", "<http://admin:***@host>"),
        ] {
            let masked = redactor.redact(text)
            #expect(masked == shown, "\(text)")
            #expect(!masked.contains("LEAK"))
        }
    }

    @Test func theIssuesURLNeverAppears() {
        let sink = InMemoryLogSink()
        let log = sink.logger()
        log.error("reload failed: http://admin:pa/ss@host is not a URL", ["base_url": "http://admin:pa/ss@host",
                                                                          "body": #"{"url":"http://admin:pa/ss@host"}"#])
        #expect(!sink.allText.contains("pa/ss"))
        #expect(sink.records[0].message == "reload failed: http://admin:***@host is not a URL")
        #expect(sink.records[0].fields["body"] == #"{"url":"http://admin:***@host"}"#)
    }

    @Test func percentEncodedUserAndPasswordAreMasked() {
        let redactor = Redactor()
        #expect(redactor.redact("http://ad%40min:p%2Fa%3Fs%23s@host:81/") == "http://ad%40min:***@host:81/")
    }

    @Test func textWithoutAPasswordIsLeftAlone() {
        let redactor = Redactor()
        for text in ["http://admin@host/", "http://admin@host/?mail=a@b", "http://host/a:b@c", "http://[::1]:8080/x?a:b@c",
                     "https://h.example/a@b:c", "http://u:@host", "see http://host:8080/x and mail a@b",
                     "http://@host", "ftp://[::1]/", "a://b://c"] {
            #expect(redactor.redact(text) == text, "\(text)")
        }
    }

    @Test func aPortBeforeAnAtInTheQueryReadsAsAPasswordAndIsMasked() {
        #expect(Redactor().redact("http://h:80/p?m=a@b") == "http://h:***@b")
    }

    /// Each `://` reuses the stretch of text already scanned for its last `@`, so a long line of
    /// them costs one pass, not one pass per `://`.
    @Test func manySchemesInOneLineAreScannedOnce() {
        let text = String(repeating: "a://x/", count: 20_000) + ":pw@host"
        #expect(Redactor().redact(text) == text)
        #expect(Redactor().redact(String(repeating: "a://b:", count: 20_000) + "pw@host") == "a://b:***@host")
    }
}

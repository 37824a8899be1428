import Testing
import WPTestThreads
@testable import WPConfig

/// URL passwords holding any character are masked wherever the configuration shows a URL.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct URLPasswordEchoTests {
    @Test(arguments: Array(":/?#[]@!$&'()*+,;="))
    func aPasswordHoldingAReservedCharacterIsMaskedWhole(character: Character) {
        for (url, shown) in [
            ("http://admin:pa\(character)ssLEAK@host", "http://admin:******@host"),
            ("https://admin:pa\(character)ssLEAK@ups.example:8443/api?x=1#top", "https://admin:******@ups.example:8443/api?x=1#top"),
            ("http://admin:pa\(character)ssLEAK@[2001:db8::1]:8080/", "http://admin:******@[2001:db8::1]:8080/"),
        ] {
            #expect(URLRedaction.redact(url) == shown, "\(url)")
        }
    }

    @Test(arguments: [
        ("http://admin:pa/ss@host", "http://admin:******@host"),
        ("http://ad%40min:p%2Fa%40s%23s@host:81", "http://ad%40min:******@host:81"),
        ("http://admin@host/", "http://admin@host/"),
        ("http://admin@host/?mail=a@b", "http://admin@host/?mail=a@b"),
        ("http://[::1]:8080/x?a:b@c", "http://[::1]:8080/x?a:b@c"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("https://host:8443", "https://host:8443"),
        ("http://h:80/p?m=a@b", "http://h:******@b"),
    ])
    func otherShapes(url: String, shown: String) {
        #expect(URLRedaction.redact(url) == shown)
    }

    @Test func theIssuesURLNeverReachesProblemsOrTables() throws {
        let leaky = "http://admin:pa/ss@host"
        let problems = TestInputs.problems(TestInputs.make(
            file: "servers:\n  - name: a\n    base_url: \"\(leaky)\"\n",
            environment: ["WINPOWER_EXPORTER_WINPOWER_BASE_URL": leaky]))
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.contains("http://admin:******@host") && !$0.contains("pa/ss") }, "\(problems)")

        let valid = "https://admin:pa;ss@host:8081"
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            file: "servers:\n  - name: a\n    base_url: \"\(valid)\"\n", environment: ["WINPOWER_EXPORTER_WINPOWER_BASE_URL": valid]))
        let table = loaded.effectiveSettingsTable()
        #expect(!table.contains("pa;ss"))
        #expect(table.ranges(of: "https://admin:******@host:8081").count == 2, "\(table)")
    }
}

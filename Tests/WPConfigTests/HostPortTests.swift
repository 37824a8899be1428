import Testing
import WPTestThreads
@testable import WPConfig

/// One reading of `host:port` for `nut.listen`, `snmp.listen` and a trap receiver's address.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HostPortTests {
    static func pair(_ parsed: (host: String, port: Int)?) -> String? { parsed.map { "\($0.host) \($0.port)" } }

    @Test func aListenerThatNeedsAPort() {
        var nut = ExporterConfiguration.NUT()
        let cases: [(String, String?)] = [(":3493", "0.0.0.0 3493"), ("127.0.0.1:3493", "127.0.0.1 3493"), ("[::1]:3493", "::1 3493"),
                                          ("::1:3493", "::1 3493"), ("3493", nil), ("[::1]", nil), ("host:99999", nil),
                                          ("a b:1", nil), ("[::1]x", nil)]
        for (text, expected) in cases {
            nut.listen = text
            #expect(Self.pair(nut.address) == expected, "\(text)")
        }
    }

    @Test func aListenerWithADefaultPort() {
        var snmp = ExporterConfiguration.SNMP()
        let cases: [(String, String?)] = [("", "0.0.0.0 161"), (":1161", "0.0.0.0 1161"), ("127.0.0.1", "127.0.0.1 161"),
                                          ("[::1]", "::1 161"), ("[::1]:1161", "::1 1161"), ("::1", nil), ("[::1", nil),
                                          ("h:-1", nil)]
        for (text, expected) in cases {
            snmp.listen = text
            #expect(Self.pair(snmp.address) == expected, "\(text)")
        }
    }

    @Test func aReceiverIsAnAddressLiteral() {
        let cases: [(String, String?)] = [("192.0.2.1", "192.0.2.1 162"), ("192.0.2.1:1162", "192.0.2.1 1162"),
                                          ("2001:db8::1", "2001:db8::1 162"), ("[2001:db8::1]:1162", "2001:db8::1 1162"),
                                          (":162", nil), ("192.0.2.1:0", nil), ("localhost:162", nil), ("192.0.2.256", nil)]
        for (text, expected) in cases {
            #expect(Self.pair(SNMPUsersFile.address(text, defaultPort: 162)) == expected, "\(text)")
        }
    }
}

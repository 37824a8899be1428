import Foundation
import Testing
import WPTestThreads
import WPMetrics
@testable import WPPushgateway

/// The grouping path's percent-encoding equals Foundation's `addingPercentEncoding` with
/// `urlPathAllowed` minus `/;?#%`, which PushgatewayClient used before it dropped Foundation.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct PushgatewayPathTests {
    @Test func percentEncodingMatchesFoundation() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        let ascii = String(decoding: (0x01...0x7F).map { UInt8($0) }, as: UTF8.self)
        for value in [ascii, "a b", "db-1.example:9100", "100%", "ü/ß", "机房 3", "a;b?c#d", "\u{1F600}", "~!$&'()*+,=:@"] {
            #expect(PushgatewayClient.percentEncoded(value) == value.addingPercentEncoding(withAllowedCharacters: allowed),
                    "\(value)")
        }
    }
}

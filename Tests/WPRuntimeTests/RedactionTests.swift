import Testing
import WPRuntime
import WPTestThreads

/// The one mask and the one way to apply it to text a library did not write.
@Suite(.ownThreads, .timeLimit(.minutes(1))) struct RedactionTests {
    @Test func everySecretIsMaskedLongestFirst() {
        let text = "user=pusher:pw-Long-1 and again pw-Long-1, prefix pw-L"
        #expect(Redaction.masking(["pw-L", "pw-Long-1"], in: text) == "user=pusher:*** and again ***, prefix ***",
                "the longer secret is masked whole, not as its prefix plus a tail")
        #expect(Redaction.masking(["", "absent"], in: "nothing to hide") == "nothing to hide", "an empty secret masks nothing")
        #expect(Redaction.masking([String](), in: "") == "")
    }

    @Test func theMaskIsTheOneEveryOutputShows() {
        #expect(Redaction.mask == "***")
        #expect(!Redaction.masking(["***x"], in: "a ***x b").contains("***x"))
    }
}

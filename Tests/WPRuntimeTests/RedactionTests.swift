import Testing
import WPRuntime
import WPTestThreads

/// The one mask and the one way to apply it to text a library did not write.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct RedactionTests {
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

/// The one backoff rule: doubled per failure after the first, capped, never overflowing.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct BackoffTests {
    @Test func doublesFromTheSecondFailureUpToTheCap() {
        let backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        #expect((0...9).map { backoff.delay(afterFailures: $0) }
                == [.milliseconds(500), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8),
                    .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
        #expect(backoff.delay(afterFailures: Int.max) == .seconds(30), "a huge count stays at the cap")
        #expect(Backoff(initial: .seconds(5), maximum: .seconds(1)).delay(afterFailures: 1) == .seconds(1),
                "the cap holds from the first failure")
        #expect(Backoff(initial: .zero, maximum: .seconds(1)).delay(afterFailures: Int.max) == .zero,
                "no wait to double: done at once")
    }
}

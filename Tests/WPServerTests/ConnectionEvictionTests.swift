import Testing
import WPTestThreads
@testable import WPServer

/// Which connection makes room at the cap: the lowest ``EvictionRank`` (what it has done, then
/// its age), unless its bytes already sit unread in the kernel (a flood of idle connections
/// must not evict a scrape accepted in the same loop turn).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ConnectionEvictionTests {
    static func rank(_ activity: Int, _ since: Int64) -> EvictionRank { EvictionRank(activity: activity, since: since) }

    static let waiting: [(id: UInt64, rank: EvictionRank)] = [(id: 7, rank: rank(0, 300)), (id: 3, rank: rank(0, 100)),
                                                              (id: 5, rank: rank(0, 200))]

    @Test func theOldestQuietConnectionGoes() {
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(Self.waiting) { _ in false } == 3)
    }

    @Test func whatAConnectionHasDoneOutranksItsAge() {
        let ranked: [(id: UInt64, rank: EvictionRank)] = [(id: 1, rank: Self.rank(2, 10)), (id: 2, rank: Self.rank(1, 20)),
                                                          (id: 3, rank: Self.rank(0, 900))]
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(ranked) { _ in false } == 3)
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(ranked) { $0 == 3 } == 2)
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(Array(ranked.prefix(1))) { _ in false } == 1)
    }

    @Test func aConnectionWithBytesPendingIsPassedOver() {
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(Self.waiting) { $0 == 3 } == 5)
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(Self.waiting) { $0 != 7 } == 7)
    }

    @Test func noneGoesWhenEveryOneHasBytesPending() {
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate(Self.waiting) { _ in true } == nil)
        #expect(Reactor<HTTPConnectionDriver>.evictionCandidate([]) { _ in false } == nil)
    }

    @Test func onlyTheLowestFewArePeeked() {
        var peeked: [UInt64] = []
        let result = Reactor<HTTPConnectionDriver>.evictionCandidate(Self.waiting, tries: 2) { id in
            peeked.append(id)
            return true
        }
        #expect(result == nil)
        #expect(peeked == [3, 5])
    }
}

import Testing
@testable import WPServer

/// Which connection makes room at the descriptor cap: the oldest waiting one, unless its
/// request already sits unread in the kernel (a flood of idle connections must not evict a
/// scrape accepted in the same loop turn).
@Suite(.timeLimit(.minutes(3))) struct ConnectionEvictionTests {
    static let waiting: [(id: UInt64, acceptedAt: Int64)] = [(id: 7, acceptedAt: 300), (id: 3, acceptedAt: 100),
                                                             (id: 5, acceptedAt: 200)]

    @Test func theOldestQuietConnectionGoes() {
        #expect(HTTPConnectionDriver.evictionCandidate(Self.waiting) { _ in false } == 3)
    }

    @Test func aConnectionWithARequestPendingIsPassedOver() {
        #expect(HTTPConnectionDriver.evictionCandidate(Self.waiting) { $0 == 3 } == 5)
        #expect(HTTPConnectionDriver.evictionCandidate(Self.waiting) { $0 != 7 } == 7)
    }

    @Test func noneGoesWhenEveryOneHasARequestPending() {
        #expect(HTTPConnectionDriver.evictionCandidate(Self.waiting) { _ in true } == nil)
        #expect(HTTPConnectionDriver.evictionCandidate([]) { _ in false } == nil)
    }

    @Test func onlyTheOldestFewArePeeked() {
        var peeked: [UInt64] = []
        let result = HTTPConnectionDriver.evictionCandidate(Self.waiting, tries: 2) { id in
            peeked.append(id)
            return true
        }
        #expect(result == nil)
        #expect(peeked == [3, 5])
    }
}

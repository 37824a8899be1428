import Synchronization
import Testing
import WPTestThreads
import WPCollector
import WPRuntime
import WPTestSupport
@testable import WPExporter

/// The merge cap of ``ExpositionMerger`` on a manual clock: at most one rebuild per spacing,
/// a trailing one for what came sooner, nothing lost, nothing rebuilt while nothing changed.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExpositionMergerTests {
    /// Three servers' chunks whose versions a test bumps; the merged device count shows every
    /// server's version (server `i` counts `version × 1000^i` devices).
    final class Servers: Sendable {
        private let versions = Mutex([0, 0, 0])
        private let onRead = Mutex<(@Sendable () -> Void)?>(nil)

        func bump(_ server: Int) { versions.withLock { $0[server] += 1 } }

        /// Called once, during the next rebuild's read of the chunks.
        func duringNextRead(_ action: @escaping @Sendable () -> Void) { onRead.withLock { $0 = action } }

        /// The device count a merge of the current versions shows.
        var expected: Int { versions.withLock { Self.count($0) } }

        func chunks() -> [ExpositionChunks?] {
            let versions = self.versions.withLock { $0 }
            onRead.withLock { action in
                defer { action = nil }
                return action
            }?()
            return versions.enumerated().map { index, version in
                ExpositionChunks(families: [], labels: [], deviceCount: Self.count([version], from: index), generatedAt: nil)
            }
        }

        private static func count(_ versions: [Int], from first: Int = 0) -> Int {
            versions.enumerated().reduce(0) { sum, item in
                var weight = 1
                for _ in 0..<(first + item.offset) { weight *= 1000 }
                return sum + item.element * weight
            }
        }
    }

    static func make(_ servers: Servers, clock: ManualClock, spacing: Duration = .seconds(1)) -> ExpositionMerger<ManualClock> {
        ExpositionMerger(spacing: spacing, clock: clock, parts: { servers.chunks() })
    }

    @Test func aBurstWithinTheSpacingMergesOnceAtOnceAndOnceMoreWithTheLatestChunks() async throws {
        let clock = ManualClock()
        let servers = Servers()
        let merger = Self.make(servers, clock: clock)
        let loop = Task { await merger.run() }

        servers.bump(0)
        merger.publish()
        #expect(merger.generation == 1, "the first publish merges at once")
        #expect(merger.snapshot.deviceCount == 1)

        servers.bump(1)
        merger.publish()
        clock.advance(by: .milliseconds(400))
        servers.bump(2)
        merger.publish()
        servers.bump(0)
        merger.publish()
        #expect(merger.generation == 1, "publishes within the spacing wait")
        #expect(merger.snapshot.deviceCount == 1)

        // The trailing merge waits for 1 s after the first began, then takes every latest chunk.
        await clock.waitForSleeper(until: ManualClock.Instant(offset: .seconds(1)))
        clock.advance(by: .milliseconds(599))
        #expect(merger.generation == 1)
        clock.advance(by: .milliseconds(1))
        await ServersHarness.until("the trailing merge") { merger.generation == 2 }
        #expect(merger.snapshot.deviceCount == servers.expected)
        #expect(servers.expected == 2 + 1000 + 1_000_000)

        // Nothing published since: time passes without a merge, and the next publish merges at once.
        await ServersHarness.until("the loop to stop sleeping") { clock.sleeperCount == 0 }
        clock.advance(by: .seconds(10))
        // Nothing is outdated, no merge runs and the loop sleeps on no timer: only a publish can
        // merge now, whatever the scheduling.
        #expect(!merger.isOutdated && !merger.isMerging && clock.sleeperCount == 0)
        #expect(merger.generation == 2, "no merge while nothing changed")
        servers.bump(1)
        merger.publish()
        #expect(merger.generation == 3)
        #expect(merger.snapshot.deviceCount == servers.expected)

        loop.cancel()
        await loop.value
    }

    @Test func aPublishDuringAMergeIsMergedByTheTrailingOne() async throws {
        let clock = ManualClock()
        let servers = Servers()
        let merger = Self.make(servers, clock: clock)
        let loop = Task { await merger.run() }

        servers.duringNextRead {
            // Another server finishes while the first merge reads the chunks.
            servers.bump(2)
            merger.publish()
        }
        servers.bump(0)
        merger.publish()
        #expect(merger.generation == 1)
        #expect(merger.snapshot.deviceCount == 1, "read before server 2 published")
        #expect(!merger.isMerging)

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await ServersHarness.until("the trailing merge") { merger.generation == 2 }
        #expect(merger.snapshot.deviceCount == 1 + 1_000_000, "nothing lost")

        // Cancelled while waiting for the next trailing merge: run() ends without merging.
        servers.bump(1)
        merger.publish()
        await clock.waitForSleepers(1)
        loop.cancel()
        await loop.value
        #expect(merger.generation == 2)
    }

    @Test func aZeroSpacingMergesEveryPublishAtOnceWithoutTheLoop() {
        let clock = ManualClock()
        let servers = Servers()
        let merger = Self.make(servers, clock: clock, spacing: .zero)
        servers.duringNextRead {
            servers.bump(1)
            merger.publish()
        }
        servers.bump(0)
        merger.publish()
        #expect(merger.generation == 2, "the publish during the merge has it go once more")
        #expect(merger.snapshot.deviceCount == 1 + 1000)
        servers.bump(2)
        merger.publish()
        #expect(merger.generation == 3)
        #expect(merger.snapshot.deviceCount == servers.expected)
        #expect(clock.sleeperCount == 0)
    }

    @Test func eachServersFirstPublishMergesAtOnceWhateverTheSpacing() {
        let clock = ManualClock()
        let servers = Servers()
        let merger = Self.make(servers, clock: clock)
        let publishers = (0..<3).map { _ in merger.publisher() }

        servers.bump(0)
        publishers[0]()
        servers.bump(1)
        publishers[1]()
        #expect(merger.generation == 2, "a second server's first collection does not wait for the spacing")
        #expect(merger.snapshot.deviceCount == 1 + 1000)

        // A first publish during a rebuild has that rebuild go once more at once.
        servers.duringNextRead {
            servers.bump(2)
            publishers[2]()
        }
        servers.bump(0)
        publishers[0]()
        #expect(merger.generation == 2, "a later publish within the spacing waits")
        clock.advance(by: .seconds(1))
        // No loop runs in this test: an ordinary publish after the spacing rebuilds on its task,
        // and the first publish arriving during that rebuild makes it go once more.
        publishers[1]()
        #expect(merger.generation == 4)
        #expect(merger.snapshot.deviceCount == servers.expected)
        #expect(servers.expected == 2 + 1000 + 1_000_000)
        #expect(clock.sleeperCount == 0)
    }
}

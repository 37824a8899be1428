import Synchronization
import WPClient
import WPCollector
import WPConfig
import WPScheduler

/// The pipelines of a multi-server exporter, one per `servers` entry, which a configuration
/// reload changes without touching the others.
///
/// ``run()`` runs every pipeline's scheduler as its own task until it is cancelled, then stops
/// them all (each letting its collection in flight finish within the graceful timeout).
/// ``replace(with:)`` swaps the set of pipelines: one that is kept keeps its task, so an
/// unchanged server skips no collection; a removed one is stopped like at shutdown; a new one
/// starts at once when the fleet runs, or, when deferred (a changed server, a rename), once
/// ``start(_:)`` is called after ``awaitStopped(_:)`` saw the old pipeline end (and, for a
/// rename, its totals moved): a server never runs two pipelines at once. Energy totals live in
/// the shared meter, so neither removing nor re-adding a server loses any.
package final class ServerFleet<C: Clock>: Sendable where C.Duration == Duration {
    /// One server: its entry as configured, its client and its pipeline.
    package struct Member: Sendable {
        var entry: ServerEntry
        /// The collection interval in effect (the entry's or `scheduler.collection_interval`).
        var interval: Duration
        /// The WinPower client the pipeline collects with (a reload may give it new credentials).
        var client: any WinPowerClient
        var pipeline: ServerPipeline<C>
    }

    /// Makes a server's member (client, collector and scheduler) for an entry of a configuration.
    package typealias MemberFactory = @Sendable (ServerEntry, any WinPowerClient, ExporterConfiguration) -> Member

    private struct State {
        var members: [Member]
        /// Scheduler tasks by server name, while the fleet runs.
        var tasks: [String: Task<Void, Never>] = [:]
        /// Tasks of removed servers still finishing, by name; awaited at shutdown.
        var retiring: [(name: String, task: Task<Void, Never>)] = []
        /// Members not to start until ``start(_:)``.
        var deferred: Set<String> = []
        var running = false
    }

    private let state: Mutex<State>

    package init(members: [Member]) {
        state = Mutex(State(members: members))
    }

    /// The members now, in configuration order.
    package var members: [Member] { state.withLock { $0.members } }

    /// The pipelines now, in configuration order.
    package var pipelines: [ServerPipeline<C>] { members.map(\.pipeline) }

    /// The pipeline of a `winpower`-only configuration (the fleet's one unnamed member), or
    /// `nil` when the fleet is `servers`: what a scrape reads, without copying the members.
    package var single: ServerPipeline<C>? {
        state.withLock { state in
            state.members.count == 1 && state.members[0].entry.name.isEmpty ? state.members[0].pipeline : nil
        }
    }

    /// Runs every pipeline until cancelled, then stops them and waits for them.
    package func run() async {
        state.withLock { state in
            state.running = true
            for member in state.members where state.tasks[member.entry.name] == nil
                && !state.deferred.contains(member.entry.name) {
                state.tasks[member.entry.name] = Self.start(member.pipeline)
            }
        }
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.running = false
            defer {
                state.tasks = [:]
                state.retiring = []
            }
            return Array(state.tasks.values) + state.retiring.map(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Makes `next` the fleet: members whose name is in both keep the running pipeline when
    /// `next` carries the same one (the caller decides what changed); the others start or stop.
    ///
    /// - Parameters:
    ///   - next: the members from now on.
    ///   - deferred: new members to start only at ``start(_:)``.
    /// - Returns: the names started (or deferred) and stopped.
    @discardableResult
    package func replace(with next: [Member], deferring deferred: Set<String> = []) -> (started: [String], stopped: [String]) {
        state.withLock { state in
            let keep = Dictionary(next.map { ($0.entry.name, ObjectIdentifier($0.pipeline)) }, uniquingKeysWith: { first, _ in first })
            var stopped: [String] = []
            for member in state.members where keep[member.entry.name] != ObjectIdentifier(member.pipeline) {
                stopped.append(member.entry.name)
                if let task = state.tasks.removeValue(forKey: member.entry.name) {
                    task.cancel()
                    state.retiring.append((member.entry.name, task))
                }
            }
            let previous = Set(state.members.map { ObjectIdentifier($0.pipeline) })
            var started: [String] = []
            for member in next where !previous.contains(ObjectIdentifier(member.pipeline)) {
                started.append(member.entry.name)
                if deferred.contains(member.entry.name) {
                    state.deferred.insert(member.entry.name)
                } else {
                    state.deferred.remove(member.entry.name)
                    if state.running { state.tasks[member.entry.name] = Self.start(member.pipeline) }
                }
            }
            state.deferred.formIntersection(next.map(\.entry.name))
            state.members = next
            return (started, stopped)
        }
    }

    /// Waits until every stopped pipeline named in `names` has ended: its collection in flight
    /// finished, or was cancelled after the graceful shutdown timeout.
    package func awaitStopped(_ names: Set<String>) async {
        let tasks = state.withLock { state in state.retiring.filter { names.contains($0.name) }.map(\.task) }
        for task in tasks { await task.value }
    }

    /// Starts the deferred members named in `names` (at once when the fleet runs, else when it does).
    package func start(_ names: Set<String>) {
        state.withLock { state in
            state.deferred.subtract(names)
            guard state.running else { return }
            for member in state.members where names.contains(member.entry.name) && state.tasks[member.entry.name] == nil {
                state.tasks[member.entry.name] = Self.start(member.pipeline)
            }
        }
    }

    /// Starts `pipeline`'s scheduler; from now on its collector is the only one recording its
    /// server's energy (a predecessor's collection that outlived its graceful timeout records
    /// nothing more).
    private static func start(_ pipeline: ServerPipeline<C>) -> Task<Void, Never> {
        pipeline.collector.claimEnergy()
        return Task { await pipeline.scheduler.run() }
    }
}

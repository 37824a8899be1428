import Synchronization
package import WPClient
import WPCollector
package import WPConfig
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
        /// TickScheduler tasks by server name, while the fleet runs.
        var tasks: [String: Running] = [:]
        /// Tasks of removed servers still finishing, by name; awaited at shutdown. Each leaves
        /// the list when it ends, so nothing keeps a retired pipeline once it has stopped.
        var retiring: [(name: String, running: Running)] = []
        /// Members not to start until ``start(_:)``.
        var deferred: Set<String> = []
        /// Members' tasks that ended on their own (not retired), by pipeline.
        var ended: Set<ObjectIdentifier> = []
        var running = false
    }

    /// A pipeline's scheduler task.
    private struct Running {
        /// The pipeline's identity (the task captures the pipeline, not this record).
        var id: ObjectIdentifier
        var task: Task<Void, Never>
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
                state.tasks[member.entry.name] = start(member.pipeline)
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
                state.ended = []
            }
            return state.tasks.values.map(\.task) + state.retiring.map(\.running.task)
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
                if let running = state.tasks.removeValue(forKey: member.entry.name) {
                    running.task.cancel()
                    if state.ended.remove(running.id) == nil { state.retiring.append((member.entry.name, running)) }
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
                    if state.running { state.tasks[member.entry.name] = start(member.pipeline) }
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
        let tasks = state.withLock { state in state.retiring.filter { names.contains($0.name) }.map(\.running.task) }
        for task in tasks { await task.value }
    }

    /// Starts the deferred members named in `names` (at once when the fleet runs, else when it does).
    package func start(_ names: Set<String>) {
        state.withLock { state in
            state.deferred.subtract(names)
            guard state.running else { return }
            for member in state.members where names.contains(member.entry.name) && state.tasks[member.entry.name] == nil {
                state.tasks[member.entry.name] = start(member.pipeline)
            }
        }
    }

    /// Retired pipelines whose task has not ended yet.
    package var retiringCount: Int { state.withLock { $0.retiring.count } }

    /// Whether the member `name` waits to be started (``start(_:)``): a reload defers a changed
    /// server's new pipeline until the old one has stopped.
    package func isDeferred(_ name: String) -> Bool { state.withLock { $0.deferred.contains(name) } }

    /// Starts `pipeline`'s scheduler; from now on its collector is the only one recording its
    /// server's energy (a predecessor's collection that outlived its graceful timeout records
    /// nothing more).
    /// Called with the fleet's lock held, so ``ended(_:)``, which takes it, runs only after the
    /// caller has recorded the task.
    private func start(_ pipeline: ServerPipeline<C>) -> Running {
        pipeline.collector.claimEnergy()
        let id = ObjectIdentifier(pipeline)
        return Running(id: id, task: Task { [weak self] in
            await pipeline.scheduler.run()
            self?.ended(id)
        })
    }

    /// Forgets the task of the retired pipeline `id` once it has ended, releasing the pipeline
    /// (its scheduler, collector and client). A member's task that ended on its own, still in
    /// `tasks`, is noted, so ``replace(with:deferring:)`` does not keep it as retiring.
    private func ended(_ id: ObjectIdentifier) {
        state.withLock { state in
            let count = state.retiring.count
            state.retiring.removeAll { $0.running.id == id }
            if state.retiring.count == count && state.tasks.values.contains(where: { $0.id == id }) {
                state.ended.insert(id)
            }
        }
    }
}

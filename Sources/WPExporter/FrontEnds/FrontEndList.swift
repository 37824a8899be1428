import Synchronization
package import WPConfig
package import WPFrontEnd
import WPLogging
package import WPMetrics

/// The exporter's front ends, one per ``FrontEndFactory`` of its composition, in the list's
/// order: made at start, run by ``run(_:)`` (one task per factory for the exporter's life), and
/// made again when a reload changes a factory's section (``prepare(running:next:)`` makes the
/// new ones before anything changes, ``install(_:)`` stops each old one, then starts its
/// successor).
///
/// Each front end is made from a ``FrontEndContext`` with a registry of its own, registered in
/// the exporter's per-scrape registry while it is the factory's front end, and a view of the
/// publication whose subscriptions end with it: a replaced front end leaves neither metrics nor
/// subscribers behind.
package final class FrontEndList<C: Clock>: Sendable where C.Duration == Duration {
    /// One factory's front end now.
    package struct Member: Sendable {
        package let factory: FrontEndFactory<C>
        /// `nil`: off under the configuration in effect.
        package let frontEnd: (any FrontEnd)?
        let registry: MetricRegistry
        let publication: ScopedPublication<C>
        /// Yielded once to stop it (it is being replaced).
        let stop = AsyncStream<Void>.makeStream()
        /// Finished once its run has ended.
        let stopped = AsyncStream<Void>.makeStream()
    }

    /// Front ends made for a new configuration, not installed yet (``prepare(running:next:)``).
    package struct Prepared: Sendable {
        fileprivate var members: [(index: Int, member: Member)]
        /// The sections whose front end is made again.
        package var sections: [String] { members.map(\.member.factory.section) }
        package var isEmpty: Bool { members.isEmpty }
    }

    /// Makes a factory's context under a configuration, without its registry and publication
    /// (the list gives each front end its own).
    package typealias MakeContext = @Sendable (ExporterConfiguration, FrontEndFactory<C>) -> FrontEndContext<C>

    private struct State {
        var members: [Member]
        /// Whether ``run(_:)`` runs each factory's member now (a replaced one is then stopped
        /// and its successor waited for).
        var taken: [Bool]
    }

    /// The list's state, shared with every context's ``FrontEndContext/frontEnds``: a front end
    /// made after another (at start or at a reload) sees it, and a replacement is seen at once.
    private final class Shared: Sendable {
        let state = Mutex(State(members: [], taken: []))
        var frontEnds: [any FrontEnd] { state.withLock { $0.members.compactMap(\.frontEnd) } }
    }

    private let shared = Shared()
    private let publication: FleetPublication<C>
    private let registry: MetricRegistry
    private let makeContext: MakeContext

    /// Makes every factory's front end under `configuration`.
    ///
    /// - Parameters:
    ///   - registry: the per-scrape registry each front end's own registry is registered in.
    /// - Throws: ``ExporterError/frontEnd(section:reason:)`` naming the first that cannot be
    ///   made (the ones made before it are discarded), or ``ExporterError/metrics(_:)``.
    package init(_ factories: [FrontEndFactory<C>], configuration: ExporterConfiguration, publication: FleetPublication<C>,
                 registry: MetricRegistry, makeContext: @escaping MakeContext) throws(ExporterError) {
        self.publication = publication
        self.registry = registry
        self.makeContext = makeContext
        let shared = self.shared
        do {
            for factory in factories {
                let member = try Self.make(factory, configuration, publication: publication, makeContext: makeContext,
                                           shared: shared)
                shared.state.withLock { state in
                    state.members.append(member)
                    state.taken.append(false)
                }
                try Self.register(member, in: registry)
            }
        } catch {
            let made = shared.state.withLock { state in
                defer { state = State(members: [], taken: []) }
                return state.members
            }
            for member in made { Self.discard(member, from: registry) }
            throw error
        }
    }

    /// The front ends now, in the list's order (those turned off left out).
    package var frontEnds: [any FrontEnd] { shared.frontEnds }

    /// The number of factories (``run(_:)`` takes each one's index).
    package var count: Int { shared.state.withLock { $0.members.count } }

    /// The section of factory `index`.
    package func section(_ index: Int) -> String { shared.state.withLock { $0.members[index].factory.section } }

    /// The front end of factory `index` now.
    package func frontEnd(_ index: Int) -> (any FrontEnd)? { shared.state.withLock { $0.members[index].frontEnd } }

    /// Runs factory `index`'s front end, and each successor a reload installs, until the task
    /// is cancelled or the front end ends on its own.
    ///
    /// - Returns: the name of a front end that ended on its own, `nil` when cancelled.
    /// - Throws: what the front end's run threw.
    package func run(_ index: Int) async throws -> String? {
        while !Task.isCancelled {
            let member = shared.state.withLock { state in
                state.taken[index] = true
                return state.members[index]
            }
            defer {
                shared.state.withLock { $0.taken[index] = false }
                member.stopped.continuation.finish()
            }
            let replaced = try await withThrowingTaskGroup(of: Bool.self) { group in
                if let frontEnd = member.frontEnd {
                    group.addTask {
                        try await frontEnd.run()
                        return false
                    }
                }
                group.addTask {
                    for await _ in member.stop.stream { return true }
                    return false  // cancelled
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
            if !replaced {
                return Task.isCancelled ? nil : member.frontEnd?.name
            }
        }
        return nil
    }

    /// Makes again the front end of every factory whose section differs between `running` and
    /// `next`; nothing is stopped or installed yet.
    ///
    /// - Throws: ``ReloadRefusal/frontEnd(section:reason:)`` naming the first that cannot be
    ///   made (those made before it are discarded).
    package func prepare(running: ExporterConfiguration, next: ExporterConfiguration) throws(ReloadRefusal) -> Prepared {
        let factories = shared.state.withLock { $0.members.map(\.factory) }
        var prepared = Prepared(members: [])
        for (index, factory) in factories.enumerated() where factory.changed(running, next) {
            do {
                prepared.members.append((index, try Self.make(factory, next, publication: publication, makeContext: makeContext,
                                                              shared: shared, atReload: true)))
            } catch {
                discard(prepared)
                switch error {
                case .frontEnd(let section, let reason): throw .frontEnd(section: section, reason: reason)
                default: throw .frontEnd(section: factory.section, reason: error.description)
                }
            }
        }
        return prepared
    }

    /// Discards front ends made by ``prepare(running:next:)`` and never installed.
    package func discard(_ prepared: Prepared) {
        for (_, member) in prepared.members { member.publication.end() }
    }

    /// Replaces each front end of `prepared`: the old one stops (its subscriptions and metrics
    /// go with it), then, while ``run(_:)`` runs the factory's front ends, its successor runs
    /// and is waited for until it serves (an exporter that does not run yet starts it then).
    ///
    /// - Returns: a warning for each successor that cannot serve (a port taken): it is off until
    ///   the next reload or restart.
    package func install(_ prepared: Prepared) async -> [String] {
        var warnings: [String] = []
        for (index, member) in prepared.members {
            let (old, running) = shared.state.withLock { state in
                let old = state.members[index]
                state.members[index] = member
                return (old, state.taken[index])
            }
            old.publication.end()
            Self.discard(old, from: registry)
            do {
                try Self.register(member, in: registry)
            } catch {
                warnings.append("\(member.factory.section): \(error)")
            }
            guard running else { continue }
            (old.frontEnd as? any ConfigurationObserving)?.configuration(.replaced(bySuccessor: member.frontEnd != nil))
            old.stop.continuation.yield()
            for await _ in old.stopped.stream {}
            do {
                try await member.frontEnd?.ready()
            } catch {
                let reason = (error as? FrontEndError).map(\.description) ?? "\(error)"
                warnings.append("\(member.factory.section): \(member.frontEnd?.name ?? "it") cannot serve: \(reason)")
            }
        }
        return warnings
    }

    private static func make(_ factory: FrontEndFactory<C>, _ configuration: ExporterConfiguration,
                             publication: FleetPublication<C>, makeContext: MakeContext, shared: Shared,
                             atReload: Bool = false) throws(ExporterError) -> Member {
        var context = makeContext(configuration, factory)
        context.atReload = atReload
        context.frontEnds = { shared.frontEnds }
        let registry = MetricRegistry()
        let scoped = publication.scoped()
        context.registry = registry
        context.publication = scoped
        do {
            return Member(factory: factory, frontEnd: try factory.make(context), registry: registry, publication: scoped)
        } catch {
            scoped.end()
            throw ExporterError(error, section: factory.section)
        }
    }

    private static func register(_ member: Member, in registry: MetricRegistry) throws(ExporterError) {
        do {
            try registry.register(member.registry)
        } catch {
            throw .metrics(error)
        }
    }

    private static func discard(_ member: Member, from registry: MetricRegistry) {
        member.publication.end()
        registry.unregister(member.registry)
    }
}

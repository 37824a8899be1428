import Synchronization

/// What `wpexporter demo` shows: on a terminal, the URLs and a table of every device redrawn
/// after each collection (like `top`); otherwise the table once, saying so. On exit, what
/// happened to the energy totals.
final class DemoScreen: Sendable {
    /// Clears the screen and moves the cursor home (ANSI).
    static let clear = "\u{1B}[H\u{1B}[2J"

    private let output: TerminalOutput
    private let state = Mutex(State())

    private struct State {
        var task: Task<Void, Never>?
        var snapshot: (@Sendable () -> (generatedAt: String?, text: [UInt8]))?
    }

    init(output: TerminalOutput) {
        self.output = output
    }

    /// The screen for one published collection: the heading, the table and the stop hint; on a
    /// terminal it starts with ``clear``.
    static func frame(heading: String, table: String, collectedAt: String?, live: Bool, interval: Duration) -> String {
        let when = collectedAt.map { " at \($0)" } ?? ""
        if live {
            return clear + heading + "\nlive values\(when), redrawn after every collection (every \(interval)):\n\n"
                + table + "\nPress Ctrl-C to stop.\n"
        }
        return "live values\(when) (standard output is not a terminal, so printed once; /metrics is "
            + "refreshed every \(interval)):\n" + table
    }

    /// Prints the heading, then follows the collector's snapshots until ``stop()``. Printed once
    /// (not on a terminal), the table waits until `expectedDevices` are in the exposition (the
    /// servers' first collections end one after the other), or two intervals after the first.
    func start(heading: String, live: Bool, interval: Duration, expectedDevices: Int = 0,
               snapshot: @escaping @Sendable () -> (generatedAt: String?, text: [UInt8])) {
        output.standardOutput(live ? Self.clear + heading + "\nwaiting for the first collection…\n" : heading + "\nPress Ctrl-C to stop.\n\n")
        let output = self.output
        let task = Task {
            var shown: String?
            var firstSeen: ContinuousClock.Instant?
            while !Task.isCancelled {
                let current = snapshot()
                if let generatedAt = current.generatedAt, generatedAt != shown {
                    if !live {
                        let now = ContinuousClock.now
                        let first = firstSeen ?? now
                        firstSeen = first
                        guard DemoTable.rows(current.text).count >= expectedDevices || now - first >= interval * 2 else {
                            try? await Task.sleep(for: .milliseconds(100))
                            continue
                        }
                    }
                    shown = generatedAt
                    output.standardOutput(Self.frame(heading: heading, table: DemoTable.render(current.text),
                                                     collectedAt: generatedAt, live: live, interval: interval))
                    if !live { return }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        state.withLock {
            $0.task = task
            $0.snapshot = snapshot
        }
    }

    /// Stops redrawing; returns the latest exposition, or nil when the screen never started.
    func stop() -> [UInt8]? {
        let snapshot = state.withLock { state in
            state.task?.cancel()
            state.task = nil
            return state.snapshot
        }
        return snapshot.map { $0().text }
    }

    /// The closing words: what ran and where the energy totals went (`saved`: whether the
    /// final save succeeded; when it failed, standard error says where the last saved ones are).
    static func farewell(exposition: [UInt8], dataDirectory: String, temporary: Bool, saved: Bool = true) -> String {
        let energy = DemoTable.totalEnergy(exposition).map {
            "energy totals (\(DemoTable.number($0.kilowattHours, digits: 4)) kWh over \($0.devices) devices)"
        } ?? "energy totals"
        if !saved {
            return "wpexporter demo stopped: \(energy) could not be saved in \(dataDirectory)\n"
        }
        if temporary {
            return "wpexporter demo stopped: \(energy) discarded with the temporary directory \(dataDirectory)\n"
        }
        return "wpexporter demo stopped: \(energy) kept in \(dataDirectory)\n"
    }
}

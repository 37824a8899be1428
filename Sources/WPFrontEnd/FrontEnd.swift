import WPMetrics

/// One way the exporter serves the fleet: `/metrics` and the HTTP endpoints, the NUT server,
/// the SNMP agent with its notifications, the push loop.
///
/// Every front end has the same shape: it is built from its configuration section and what
/// the fleet publishes (a ``FleetPublishing``, subscribed to when it acts on each
/// collection), registers its own metrics while it is built, and then
/// ``run()`` serves until cancelled. The exporter lists them once (its composition) and runs
/// them alike: each started in turn and waited for (``ready()``) so a port that cannot be
/// bound stops the start naming its key. docs/architecture.md says how to add one.
package protocol FrontEnd: Sendable {
    /// What it is, in log records ("the NUT server").
    var name: String { get }
    /// Serves until the task is cancelled (binding first, when it listens).
    func run() async throws
    /// Returns once it serves, while ``run()`` runs; throws what keeps it from serving, naming
    /// its configuration key (a ``FrontEndError``; the HTTP listener's `ServerError.bind`
    /// names its address).
    func ready() async throws
}

/// Why a front end cannot be built or cannot serve. The exporter reports it as the error of
/// the front end's configuration section (`ExporterError.nut`, `.snmp`, `.metrics`).
package enum FrontEndError: Error, Sendable, CustomStringConvertible {
    /// Its configuration cannot be served: the reason names the key (`nut.users_file: …`,
    /// `snmp.listen: …`).
    case configuration(String)
    /// Its own metrics could not be registered (fixed names: not expected).
    case metrics(MetricsError)

    package var description: String {
        switch self {
        case .configuration(let reason): reason
        case .metrics(let error): "registering the exporter's own metrics: \(error)"
        }
    }
}

import WPMetrics
/// Why a push to a Pushgateway failed. Descriptions name the gateway URL (without
/// credentials) and what it answered; they never contain the basic-auth password.
public enum PushError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The client configuration is unusable (bad URL, job, grouping label).
    case invalidConfiguration(String)
    /// The gateway answered 4xx; not retried.
    case rejected(url: String, status: Int, body: String)
    /// The gateway answered 5xx (or another non-2xx) on every attempt.
    case failed(url: String, status: Int, body: String, attempts: Int)
    /// No answer on every attempt (connection refused, timeout, ...).
    case unreachable(url: String, reason: String, attempts: Int)

    /// What failed, the gateway URL without credentials, what it answered and after how many
    /// attempts.
    public var description: String {
        switch self {
        case .invalidConfiguration(let reason):
            return "invalid pushgateway configuration: \(reason)"
        case .rejected(let url, let status, let body):
            return "pushgateway at \(url) rejected the push with HTTP \(status): \(body)"
        case .failed(let url, let status, let body, let attempts):
            return "pushgateway at \(url) answered HTTP \(status) after \(attempts) attempt(s): \(body)"
        case .unreachable(let url, let reason, let attempts):
            return "pushgateway at \(url) unreachable after \(attempts) attempt(s): \(reason)"
        }
    }
}

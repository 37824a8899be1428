package import FoundationEssentials
import Synchronization
package import WPHistory
package import WPHTTPClient
package import WPLogging
package import WPMetrics
package import WPRuntime
package import WPWallClock

/// What sends a receiver's requests: the exporter's HTTP client, or a test's fake.
package protocol NotificationTransport: Sendable {
    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse
}

extension HTTPClient: NotificationTransport {}

/// One receiver as the notifier uses it: its kind, URL, secret, language and keyword.
package struct ResolvedReceiver: Sendable {
    package var name: String
    package var kind: ReceiverKind
    package var url: URL
    package var secret: String?
    package var language: NotificationLanguage
    package var keyword: String

    package init(name: String, kind: ReceiverKind, url: URL, secret: String? = nil, language: NotificationLanguage = .english,
                 keyword: String = "") {
        self.name = name
        self.kind = kind
        self.url = url
        self.secret = secret
        self.language = language
        self.keyword = keyword
    }
}

/// The counters of every receiver, by `receiver`.
package struct DeliveryCounters: Sendable {
    let sent: CounterVec
    let failed: CounterVec
    let retried: CounterVec
    let dropped: CounterVec

    package init(_ registry: MetricRegistry) throws(MetricsError) {
        sent = try registry.counterVec(name: "winpower_exporter_notifications_sent_total",
                                       help: "Notifications a receiver took.", labelNames: ["receiver"])
        failed = try registry.counterVec(name: "winpower_exporter_notifications_failed_total",
                                         help: "Delivery attempts that failed (an error answer, a timeout, no connection).",
                                         labelNames: ["receiver"])
        retried = try registry.counterVec(name: "winpower_exporter_notifications_retried_total",
                                          help: "Delivery attempts made again after a failure.", labelNames: ["receiver"])
        dropped = try registry.counterVec(name: "winpower_exporter_notifications_dropped_total",
                                          help: "Notifications given up: refused for good, pushed out of a full queue, or queued at exit.",
                                          labelNames: ["receiver"])
    }
}

/// One receiver's queue and its delivery: messages taken in order, each tried until the
/// receiver takes it (retries with backoff on 5xx, 429, timeouts and connection errors, the
/// wait the receiver asks for honoured) or refuses it for good; at most `capacity` wait, past
/// it the oldest is dropped. DingTalk's and WeCom's robots take 20 messages a minute, Feishu's
/// 100: the delivery never sends faster. Runs as a task of the notifier; never blocks a thread.
package final class ReceiverDelivery<C: Clock>: Sendable where C.Duration == Duration {
    /// A message waiting, and what its delivery settles.
    package struct Item: Sendable {
        package var payload: NotificationPayload
        /// The condition and the kind recorded once it is delivered or given up (`nil`: a status).
        package var settles: (key: ConditionKey, kind: HistoryEvent.Kind)?

        package init(payload: NotificationPayload, settles: (key: ConditionKey, kind: HistoryEvent.Kind)? = nil) {
            self.payload = payload
            self.settles = settles
        }
    }

    /// What `/health` shows of one receiver.
    package struct Status: Codable, Sendable, Equatable {
        package var name: String
        package var type: String
        /// `ok`, `idle` (nothing sent yet) or `failing` (the last attempt failed).
        package var state: String
        package var queued: Int
        package var sent: Int
        package var failed: Int
        package var retried: Int
        package var dropped: Int
        package var lastError: String?

        enum CodingKeys: String, CodingKey {
            case name, type, state, queued, sent, failed, retried, dropped, lastError = "last_error"
        }
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var waiter: CheckedContinuation<Void, Never>?
        var status: Status
        /// When the last messages were sent, for the rate limit.
        var sentAt: [C.Instant] = []

        var count: Int { items.count - head }
    }

    package let receiver: ResolvedReceiver
    private let capacity: Int
    private let transport: any NotificationTransport
    private let clock: C
    private let wallClock: WallClock
    private let timeout: Duration
    private let backoff: Backoff
    private let logger: WPLogger
    private let state: Mutex<State>
    private let counters: (sent: WPCounter, failed: WPCounter, retried: WPCounter, dropped: WPCounter)?
    /// Told each item delivered or given up, with whether it was delivered.
    private let settled: @Sendable (Item, Bool) -> Void

    package init(receiver: ResolvedReceiver, capacity: Int, transport: any NotificationTransport, clock: C,
                 wallClock: WallClock, timeout: Duration, logger: WPLogger, counters: DeliveryCounters?,
                 backoff: Backoff = Backoff(initial: .seconds(2), maximum: .seconds(300)),
                 settled: @escaping @Sendable (Item, Bool) -> Void = { _, _ in }) {
        self.receiver = receiver
        self.capacity = max(1, capacity)
        self.transport = transport
        self.clock = clock
        self.wallClock = wallClock
        self.timeout = timeout
        self.backoff = backoff
        self.logger = logger
        self.settled = settled
        state = Mutex(State(status: Status(name: receiver.name, type: receiver.kind.rawValue, state: "idle", queued: 0,
                                           sent: 0, failed: 0, retried: 0, dropped: 0)))
        let name = receiver.name
        self.counters = counters.flatMap { counters in
            try? (counters.sent.labels(name), counters.failed.labels(name), counters.retried.labels(name), counters.dropped.labels(name))
        }
    }

    /// The receiver's status now.
    package var status: Status {
        state.withLock { state in
            var status = state.status
            status.queued = state.count
            return status
        }
    }

    /// Queues `item`; a full queue drops its oldest (a status receiver keeps only the newest).
    package func enqueue(_ item: Item) {
        let (dropped, waiter): ([Item], CheckedContinuation<Void, Never>?) = state.withLock { state in
            var dropped: [Item] = []
            let limit = receiver.kind.takesStatus ? 1 : capacity
            // The head may be in delivery: it stays, those behind it go, oldest first.
            while state.count >= limit, state.count > 1 {
                dropped.append(state.items.remove(at: state.head + 1))
            }
            state.items.append(item)
            state.status.dropped += dropped.count
            defer { state.waiter = nil }
            return (dropped, state.waiter)
        }
        for item in dropped {
            counters?.dropped.increment()
            settled(item, false)
        }
        if !dropped.isEmpty, !receiver.kind.takesStatus {
            logger.warn("a notification was dropped: the receiver's queue is full", ["receiver": .string(receiver.name),
                                                                                     "queue_size": .int(capacity)])
        }
        waiter?.resume()
    }

    /// Delivers what is queued, in order, until cancelled; what is still queued then is dropped
    /// (counted).
    package func run() async {
        while !Task.isCancelled {
            guard let item = await next() else { break }
            // Cancelled before the receiver settled it: it stays queued, and is counted below.
            guard await deliver(item) else { break }
            state.withLock { state in
                state.head += 1
                if state.head > 64, state.head * 2 > state.items.count {
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
            }
        }
        let left = state.withLock { state -> [Item] in
            defer { state.items = []; state.head = 0 }
            return Array(state.items[state.head...])
        }
        countDropped(left.count)
    }

    /// Counts `count` notifications given up as the notifier stops (queued, or held for their
    /// hold time), and says so.
    package func countDropped(_ count: Int) {
        guard count > 0 else { return }
        try? counters?.dropped.increment(by: Double(count))
        state.withLock { $0.status.dropped += count }
        logger.warn("notifications were not sent before the notifier stopped", ["receiver": .string(receiver.name), "count": .int(count)])
    }

    /// The item at the head of the queue, waiting for one; `nil` once cancelled.
    private func next() async -> Item? {
        while !Task.isCancelled {
            if let item = state.withLock({ $0.count > 0 ? $0.items[$0.head] : nil }) { return item }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    // Cancelled before the waiter is set: the flag is up already, so it is seen here.
                    let resumeNow = state.withLock { state -> Bool in
                        if state.count > 0 || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
        return nil
    }

    /// Tries `item` until the receiver takes it or refuses it (true), or the task is cancelled
    /// (false).
    private func deliver(_ item: Item) async -> Bool {
        var failures = 0
        while !Task.isCancelled {
            await respectRateLimit()
            let outcome = await attempt(item.payload)
            switch outcome {
            case .delivered:
                // Recorded before it shows as sent: what reads the status sees the record too.
                settled(item, true)
                counters?.sent.increment()
                let recovered = state.withLock { state -> Bool in
                    defer { state.status.state = "ok"; state.status.lastError = nil; state.status.sent += 1 }
                    state.sentAt.append(clock.now)
                    if state.sentAt.count > 100 { state.sentAt.removeFirst(state.sentAt.count - 100) }
                    return state.status.state == "failing"
                }
                if recovered { logger.info("the receiver takes notifications again", ["receiver": .string(receiver.name)]) }
                return true
            case .rejected(let reason):
                settled(item, false)
                counters?.failed.increment()
                counters?.dropped.increment()
                state.withLock { state in
                    state.status.state = "failing"
                    state.status.lastError = reason
                    state.status.failed += 1
                    state.status.dropped += 1
                }
                logger.warn("the receiver refused a notification; it is not sent again",
                            ["receiver": .string(receiver.name), "reason": .string(reason)])
                return true
            case .retry(let reason, let after):
                failures += 1
                counters?.failed.increment()
                let first = state.withLock { state -> Bool in
                    defer { state.status.state = "failing"; state.status.lastError = reason; state.status.failed += 1 }
                    return state.status.state != "failing"
                }
                if first {
                    logger.warn("a notification could not be delivered; retrying with backoff",
                                ["receiver": .string(receiver.name), "reason": .string(reason)])
                }
                let wait = max(after ?? .zero, backoff.delay(afterFailures: failures))
                do {
                    try await clock.sleep(until: clock.now.advanced(by: wait), tolerance: nil)
                } catch {
                    return false
                }
                counters?.retried.increment()
                state.withLock { $0.status.retried += 1 }
            }
        }
        return false
    }

    /// One attempt: the request, the answer, what it means.
    private func attempt(_ payload: NotificationPayload) async -> DeliveryOutcome {
        let request: HTTPClientRequest
        do throws(NotificationError) {
            request = try receiver.kind.request(payload, url: receiver.url, secret: receiver.secret, now: wallClock.now, timeout: timeout)
        } catch {
            return .rejected(reason: error.description)
        }
        do throws(HTTPClientError) {
            let response = try await transport.send(request)
            let retryAfter = response.headers.first { $0.name.lowercased() == "retry-after" }?.value
            return receiver.kind.outcome(status: response.status, retryAfter: retryAfter, body: response.body)
        } catch {
            return .retry(reason: error.description, after: nil)
        }
    }

    /// Waits while the receiver's rate limit is reached: DingTalk and WeCom take 20 messages a
    /// minute, Feishu 100.
    private func respectRateLimit() async {
        let limit: Int? = switch receiver.kind {
        case .dingtalk, .wecom: 20
        case .feishu: 100
        case .webhook, .uptimeKuma: nil
        }
        guard let limit else { return }
        let until: C.Instant? = state.withLock { state in
            guard state.sentAt.count >= limit else { return nil }
            let oldest = state.sentAt[state.sentAt.count - limit]
            let free = oldest.advanced(by: .seconds(60))
            return free > clock.now ? free : nil
        }
        if let until { try? await clock.sleep(until: until, tolerance: nil) }
    }
}

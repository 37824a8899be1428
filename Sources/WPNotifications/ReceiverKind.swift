import WPText
package import FoundationEssentials
import WPCrypto
import WPFrontEnd
import WPHistory
package import WPHTTPClient
import WPLogging
import WPRuntime

/// What a receiver is handed: an event's message, or, for a status receiver (Uptime Kuma),
/// whether everything routed to it is well and why not.
package enum NotificationPayload: Sendable, Equatable {
    case event(NotificationEvent, NotificationMessage)
    case status(up: Bool, reason: String)
}

/// How one attempt ended, read from the receiver's answer as the receiver means it.
package enum DeliveryOutcome: Sendable, Equatable {
    /// The receiver took it.
    case delivered
    /// Not taken now: try again, after `after` when the receiver said how long (a rate limit).
    case retry(reason: String, after: Duration?)
    /// Refused for good (a bad token, a signature or keyword rule): trying again cannot help.
    case rejected(reason: String)
}

/// Why a payload cannot be made into a request.
package struct NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

/// The kinds of receiver and the protocol of each: the request a payload becomes, its size
/// limit, its signature, and how its answer reads.
///
/// - `wecom`: a WeCom group robot (`…/cgi-bin/webhook/send?key=…`), markdown up to 4,096
///   bytes; answers `errcode` (0, or 45009 when more than 20 messages a minute).
/// - `dingtalk`: a DingTalk custom robot (`…/robot/send?access_token=…`), markdown up to
///   20,000 bytes; with a secret, `timestamp` (ms) and `sign` = Base64(HMAC-SHA256(secret,
///   "timestamp\nsecret")) in the query; answers `errcode` (0; 130101 when more than 20 a
///   minute; 310000 for a signature or keyword refused).
/// - `feishu`: a Feishu/Lark custom bot (`…/bot/v2/hook/…`), an interactive card with a
///   markdown element, up to 20 KB; with a secret, `timestamp` (s) and `sign` =
///   Base64(HMAC-SHA256(key "timestamp\nsecret", empty message)) in the body; answers `code`
///   (or the older `StatusCode`): 0; 9499 and 11232 when too many.
/// - `webhook`: a JSON body (docs/notifications.md), with a secret signed in
///   `X-Wpexporter-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` and
///   `X-Wpexporter-Timestamp`; any 2xx is taken.
/// - `uptime_kuma`: an Uptime Kuma push monitor's URL (`…/api/push/<token>`), asked with
///   `GET ?status=up|down&msg=…`; answers `{"ok":true}`.
package enum ReceiverKind: String, Sendable, CaseIterable {
    case wecom, dingtalk, feishu, webhook
    case uptimeKuma = "uptime_kuma"

    /// Whether it takes ``NotificationPayload/status(up:reason:)`` (else events).
    package var takesStatus: Bool { self == .uptimeKuma }

    /// The largest body (bytes) the receiver takes; a longer message is cut to fit, marked.
    package var maxBodyBytes: Int {
        switch self {
        case .wecom: 4_096
        case .dingtalk: 20_000
        case .feishu: 20_000
        case .webhook: 65_536
        case .uptimeKuma: 1_024
        }
    }

    /// The request `payload` becomes at `now`, signed with `secret` where the kind signs.
    ///
    /// - Throws: ``NotificationError`` when the payload is not the kind's (an event for
    ///   Uptime Kuma, a status for a robot) or a signature cannot be made (no libcrypto).
    package func request(_ payload: NotificationPayload, url: URL, secret: String?, now: Date,
                         timeout: Duration = .seconds(10)) throws(NotificationError) -> HTTPClientRequest {
        let milliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let json = [(name: "Content-Type", value: "application/json; charset=utf-8")]
        switch (self, payload) {
        case (.uptimeKuma, .status(let up, let reason)):
            let message = Self.cut(reason.isEmpty ? (up ? "OK" : "down") : NotificationMessage.oneLine(reason), to: 200)
            let query = "status=\(up ? "up" : "down")&msg=\(PercentEncoding.encoded(message, strict: true))&ping="
            // The push URL as Uptime Kuma shows it ends in `?status=up&msg=OK&ping=`: its query is replaced.
            let text = url.absoluteString
            let bare = URL(string: String(text.prefix { $0 != "?" && $0 != "#" })) ?? url
            return HTTPClientRequest(method: "GET", url: try Self.adding(query, to: bare), timeout: timeout)
        case (.uptimeKuma, .event), (_, .status):
            throw NotificationError(takesStatus ? "an Uptime Kuma receiver takes the routed UPSs' status, not events"
                                                : "a \(rawValue) receiver takes events, not a status")
        case (.wecom, .event(_, let message)):
            let content = Self.cut(message.markdown, to: maxBodyBytes - 64)
            let body = Self.encoded(WeComBody(msgtype: "markdown", markdown: .init(content: content)))
            return HTTPClientRequest(method: "POST", url: url, headers: json, body: body, timeout: timeout)
        case (.dingtalk, .event(_, let message)):
            var target = url
            if let secret {
                let sign = try Self.base64HMAC(key: secret, "\(milliseconds)\n\(secret)")
                target = try Self.adding("timestamp=\(milliseconds)&sign=\(PercentEncoding.encoded(sign, strict: true))", to: url)
            }
            let text = Self.cut(message.markdown, to: maxBodyBytes - 512)
            let body = Self.encoded(DingTalkBody(msgtype: "markdown",
                                                 markdown: .init(title: Self.cut(message.escapedTitle, to: 256),
                                                                 text: text)))
            return HTTPClientRequest(method: "POST", url: target, headers: json, body: body, timeout: timeout)
        case (.feishu, .event(_, let message)):
            let seconds = milliseconds / 1000
            let sign = try secret.map { secret throws(NotificationError) in try Self.base64HMAC(key: "\(seconds)\n\(secret)", "") }
            let card = FeishuBody.Card(
                header: .init(title: .init(tag: "plain_text", content: Self.cut(message.escapedTitle, to: 256)),
                              template: Self.isTrouble(payload) ? "red" : "green"),
                elements: [.init(tag: "markdown", content: Self.cut(message.markdown, to: maxBodyBytes - 1_024))])
            let body = Self.encoded(FeishuBody(timestamp: sign == nil ? nil : String(seconds), sign: sign,
                                               msg_type: "interactive", card: card))
            return HTTPClientRequest(method: "POST", url: url, headers: json, body: body, timeout: timeout)
        case (.webhook, .event(let notification, let message)):
            let seconds = milliseconds / 1000
            let event = notification.event
            let document = WebhookBody(version: 1, kind: event.kind.rawValue, time: event.time, server: event.server,
                                       device: event.device, ups: notification.ups, site: notification.site, code: event.code,
                                       detail: NotificationMessage.oneLine(event.detail), at_start: event.atStart,
                                       trouble: Self.isTrouble(payload), title: NotificationMessage.oneLine(message.keyworded),
                                       text: message.plain)
            let body = Self.encoded(document)
            var headers = json
            headers.append(("X-Wpexporter-Event", event.kind.rawValue))
            if let secret {
                let signed = Array("\(seconds).".utf8) + body
                guard let mac = Digest.hmac(.sha256, key: Array(secret.utf8), signed) else {
                    throw NotificationError("the webhook's signature cannot be made: libcrypto is not available")
                }
                headers.append(("X-Wpexporter-Timestamp", String(seconds)))
                headers.append(("X-Wpexporter-Signature", "sha256=" + mac.map { String($0, radix: 16, width: 2) }.joined()))
            }
            return HTTPClientRequest(method: "POST", url: url, headers: headers, body: body, timeout: timeout)
        }
    }

    /// What the receiver's answer means: its HTTP status, then the error code in the body
    /// where the kind answers 200 with one.
    package func outcome(status: Int, retryAfter: String? = nil, body: [UInt8]) -> DeliveryOutcome {
        let waited = retryAfter.flatMap { Int($0.trimmingSpacesAndTabs()) }.map { Duration.seconds(min(max($0, 1), 3_600)) }
        switch status {
        case 200..<300: break
        case 429: return .retry(reason: "HTTP 429: too many requests", after: waited ?? .seconds(60))
        case 408, 500...599: return .retry(reason: "HTTP \(status)", after: waited)
        default: return .rejected(reason: "HTTP \(status)" + Self.said(body))
        }
        let document = (try? JSONDecoder().decode(ReplyBody.self, from: Data(body.prefix(65_536))))
        switch self {
        case .webhook:
            return .delivered
        case .uptimeKuma:
            guard let document, let ok = document.ok else { return .rejected(reason: "not Uptime Kuma's answer" + Self.said(body)) }
            return ok ? .delivered : .rejected(reason: "Uptime Kuma: " + NotificationMessage.oneLine(document.msg ?? "not ok"))
        case .wecom, .dingtalk:
            guard let document, let code = document.errcode else {
                return .rejected(reason: "no errcode in the answer" + Self.said(body))
            }
            let message = NotificationMessage.oneLine(document.errmsg ?? "")
            if code == 0 { return .delivered }
            if (self == .wecom && code == 45009) || (self == .dingtalk && code == 130101) {
                return .retry(reason: "errcode \(code): \(message)", after: .seconds(60))
            }
            if code == -1 { return .retry(reason: "errcode -1 (busy): \(message)", after: nil) }
            return .rejected(reason: "errcode \(code): \(message)")
        case .feishu:
            guard let document, let code = document.code ?? document.StatusCode else {
                return .rejected(reason: "no code in the answer" + Self.said(body))
            }
            let message = NotificationMessage.oneLine(document.msg ?? document.StatusMessage ?? "")
            if code == 0 { return .delivered }
            if code == 9499 || code == 11232 { return .retry(reason: "code \(code): \(message)", after: .seconds(60)) }
            return .rejected(reason: "code \(code): \(message)")
        }
    }

    /// Whether the payload tells of trouble (a condition starting, a status down).
    static func isTrouble(_ payload: NotificationPayload) -> Bool {
        switch payload {
        case .status(let up, _): !up
        case .event(let notification, _): !notification.event.kind.isNormal && notification.event.kind.pair != nil
        }
    }

    /// Base64(HMAC-SHA256(key, message)).
    private static func base64HMAC(key: String, _ message: String) throws(NotificationError) -> String {
        guard let mac = Digest.hmac(.sha256, key: Array(key.utf8), Array(message.utf8)) else {
            throw NotificationError("the signature cannot be made: libcrypto is not available or the secret is over 1,024 bytes")
        }
        return Base64.encoded(mac)
    }

    /// `url` with `query` added to its own.
    private static func adding(_ query: String, to url: URL) throws(NotificationError) -> URL {
        let text = url.absoluteString
        let base = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        guard let joined = URL(string: base + separator + query) else {
            throw NotificationError("the receiver's URL cannot take a query")
        }
        return joined
    }

    /// `text` cut to at most `bytes` UTF-8 bytes, on a character boundary, marked with `…`.
    static func cut(_ text: String, to bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = ""
        var size = 0
        for character in text {
            let length = character.utf8.count
            guard size + length + 3 <= bytes else { break }
            kept.append(character)
            size += length
        }
        return kept + "…"
    }

    private static func said(_ body: [UInt8]) -> String {
        let text = NotificationMessage.oneLine(String(decoding: body.prefix(200), as: UTF8.self))
        return text.isEmpty ? "" : ": " + text
    }

    private static func encoded(_ value: some Encodable) -> [UInt8] { JSONBody.bytes(value) }
}

// The bodies, as each receiver documents them (field names are theirs).
private struct WeComBody: Encodable {
    struct Markdown: Encodable { var content: String }
    var msgtype: String
    var markdown: Markdown
}

private struct DingTalkBody: Encodable {
    struct Markdown: Encodable {
        var title: String
        var text: String
    }
    var msgtype: String
    var markdown: Markdown
}

private struct FeishuBody: Encodable {
    struct Text: Encodable {
        var tag: String
        var content: String
    }
    struct Header: Encodable {
        var title: Text
        var template: String
    }
    struct Card: Encodable {
        var header: Header
        var elements: [Text]
    }
    var timestamp: String?
    var sign: String?
    var msg_type: String
    var card: Card
}

private struct WebhookBody: Encodable {
    var version: Int
    var kind: String
    var time: Int64
    var server: String
    var device: String?
    var ups: String?
    var site: String?
    var code: String?
    var detail: String
    var at_start: Bool
    var trouble: Bool
    var title: String
    var text: String
}

private struct ReplyBody: Decodable {
    var errcode: Int?
    var errmsg: String?
    var code: Int?
    var msg: String?
    var StatusCode: Int?
    var StatusMessage: String?
    var ok: Bool?
}

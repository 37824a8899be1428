import WPTime
import Foundation
import Testing
import WPCrypto
import WPHTTPClient
import WPHistory
import WPNotifications
import WPRuntime
import WPTestThreads

/// Each receiver's request as the real service checks it (the signature algorithm and where
/// it goes, the body's shape and size limit), and its answers read as the service means them.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct ReceiverKindTests {
    /// 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let secret = "SECabc123"

    static let outage = NotificationEvent(HistoryEvent(time: 1_767_225_600, server: "plant", device: "ups-7", kind: .onBattery,
                                                       detail: "Utility fail"), ups: "Rack [A](http://evil) <b>@all</b>", site: "Shanghai")

    static func payload(_ language: NotificationLanguage = .english, _ notification: NotificationEvent = outage) -> NotificationPayload {
        .event(notification, NotificationMessage(notification, language: language, zone: .fixed(8 * 3600)))
    }

    static func json(_ request: HTTPClientRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
    }

    /// `bytes` as lower-case hexadecimal, two digits each.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    static func query(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for pair in (url.query(percentEncoded: true) ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]).removingPercentEncoding : ""
        }
        return result
    }

    /// RFC 4231 test case 2: the HMAC the signatures are made with.
    @Test func theHMACIsRFC4231s() throws {
        let mac = try #require(Digest.hmac(.sha256, key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)))
        #expect(Self.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// DingTalk: `timestamp` in milliseconds and `sign` = Base64(HMAC-SHA256(secret,
    /// "timestamp\nsecret")), percent-encoded, added to the robot's URL; the token kept.
    /// (The expected value was computed with Python's `hmac`, as DingTalk's documentation does.)
    @Test func dingTalkSignsTheQueryAsDingTalkChecksIt() throws {
        let url = try #require(URL(string: "https://oapi.dingtalk.com/robot/send?access_token=t0k3n"))
        let request = try ReceiverKind.dingtalk.request(Self.payload(), url: url, secret: Self.secret, now: Self.now)
        #expect(request.method == "POST")
        let query = Self.query(request.url)
        #expect(query["access_token"] == "t0k3n")
        #expect(query["timestamp"] == "1767225600000")
        let expected = try #require(Digest.hmac(.sha256, key: Array(Self.secret.utf8), Array("1767225600000\n\(Self.secret)".utf8)))
        #expect(query["sign"] == Data(expected).base64EncodedString())
        #expect(request.url.absoluteString.contains("%2B") || request.url.absoluteString.contains("%2F")
                || request.url.absoluteString.contains("%3D"), "Base64's + / = percent-encoded")
        let fixed = try ReceiverKind.dingtalk.request(Self.payload(), url: url, secret: Self.secret,
                                                      now: Date(timeIntervalSince1970: 1_767_196_800))
        #expect(Self.query(fixed.url)["sign"] == "6aolXX3DTwfVG+vZtNQVEUyNKlk/KntxGEyxqKD5g28=")
        let body = try Self.json(request)
        #expect(body["msgtype"] as? String == "markdown")
        let markdown = try #require(body["markdown"] as? [String: Any])
        #expect((markdown["title"] as? String)?.contains("on battery") == true)
        #expect((markdown["text"] as? String)?.contains("2026-01-01 08:00:00 UTC+08:00") == true)
        let unsigned = try ReceiverKind.dingtalk.request(Self.payload(), url: url, secret: nil, now: Self.now)
        #expect(unsigned.url == url, "no secret: the URL as configured")
    }

    /// Feishu: `timestamp` in seconds and `sign` = Base64(HMAC-SHA256 keyed with
    /// "timestamp\nsecret" over nothing) in the body, beside an interactive card.
    @Test func feishuSignsTheBodyAsFeishuChecksIt() throws {
        let url = try #require(URL(string: "https://open.feishu.cn/open-apis/bot/v2/hook/abc"))
        let request = try ReceiverKind.feishu.request(Self.payload(.chinese), url: url, secret: Self.secret,
                                                      now: Date(timeIntervalSince1970: 1_767_196_800))
        let body = try Self.json(request)
        #expect(body["timestamp"] as? String == "1767196800")
        #expect(body["sign"] as? String == "BoMuP+fg7uQRGdiJpGWEWOJnLDRhwJFHauKziNDiYO8=")
        #expect(body["msg_type"] as? String == "interactive")
        let card = try #require(body["card"] as? [String: Any])
        let header = try #require(card["header"] as? [String: Any])
        #expect(header["template"] as? String == "red", "an outage is trouble")
        let elements = try #require(card["elements"] as? [[String: Any]])
        #expect(elements.first?["tag"] as? String == "markdown")
        #expect((elements.first?["content"] as? String)?.contains("转电池供电") == true)
        let unsigned = try Self.json(try ReceiverKind.feishu.request(Self.payload(), url: url, secret: nil, now: Self.now))
        #expect(unsigned["sign"] == nil && unsigned["timestamp"] == nil)
    }

    /// WeCom: markdown content, never over the robot's 4,096 bytes, cut on a character.
    @Test func weComsMarkdownStaysWithinItsLimit() throws {
        let url = try #require(URL(string: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k"))
        var long = Self.outage
        long.event.detail = String(repeating: "电池告警 ", count: 2_000)
        let request = try ReceiverKind.wecom.request(Self.payload(.chinese, long), url: url, secret: nil, now: Self.now)
        let body = try Self.json(request)
        let content = try #require((body["markdown"] as? [String: Any])?["content"] as? String)
        #expect(content.utf8.count <= 4_096)
        #expect(content.hasSuffix("…"))
        #expect(body["msgtype"] as? String == "markdown")
    }

    /// A hostile alias cannot add a link, a tag or a mention to a robot's markdown.
    @Test func anAliasCannotInjectMarkdown() {
        let markdown = NotificationMessage(Self.outage, language: .english, zone: .fixed(0)).markdown
        #expect(!markdown.contains("[A]("), "\(markdown)")
        #expect(!markdown.contains("<b>") && !markdown.contains("@all"), "\(markdown)")
        #expect(markdown.contains("Rack ［A］(http://evil) ＜b＞＠all＜/b＞"), "\(markdown)")
        #expect(NotificationMessage.escaped("*bold* _it_ `code` ~x~ a|b") == "＊bold＊ ＿it＿ ｀code｀ ～x～ a｜b")
        let broken = NotificationMessage.escaped("line\none\u{2028}two\u{202E}")
        #expect(!broken.contains("\n") && !broken.contains("\u{2028}") && !broken.contains("\u{202E}"))
    }

    /// The generic webhook: a documented JSON body, signed over "timestamp.body" so the
    /// receiver can verify it.
    @Test func theWebhookIsSignedOverItsTimestampAndBody() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/hook"))
        let request = try ReceiverKind.webhook.request(Self.payload(), url: url, secret: "s3cret", now: Self.now)
        let timestamp = try #require(request.header("X-Wpexporter-Timestamp"))
        #expect(timestamp == "1767225600")
        let mac = try #require(Digest.hmac(.sha256, key: Array("s3cret".utf8), Array("\(timestamp).".utf8) + request.body))
        #expect(request.header("X-Wpexporter-Signature") == "sha256=" + Self.hex(mac))
        let body = try Self.json(request)
        #expect(body["kind"] as? String == "on_battery" && body["device"] as? String == "ups-7")
        #expect(body["trouble"] as? Bool == true && body["version"] as? Int == 1 && body["site"] as? String == "Shanghai")
        #expect(body["time"] as? Int == 1_767_225_600)
        #expect(try ReceiverKind.webhook.request(Self.payload(), url: url, secret: nil, now: Self.now)
            .header("X-Wpexporter-Signature") == nil)
    }

    /// Uptime Kuma: a GET of the push URL with the status and why; an event is not its payload.
    @Test func uptimeKumaIsPushedTheStatus() throws {
        let url = try #require(URL(string: "http://127.0.0.1:3001/api/push/AbC"))
        let down = try ReceiverKind.uptimeKuma.request(.status(up: false, reason: "Rack A on battery & low"), url: url,
                                                       secret: nil, now: Self.now)
        #expect(down.method == "GET" && down.url.path == "/api/push/AbC")
        let query = Self.query(down.url)
        #expect(query["status"] == "down" && query["msg"] == "Rack A on battery & low")
        #expect(Self.query(try ReceiverKind.uptimeKuma.request(.status(up: true, reason: ""), url: url, secret: nil,
                                                                now: Self.now).url)["status"] == "up")
        // The URL as Uptime Kuma shows it, with its example query: the query is replaced, not repeated.
        let shown = try #require(URL(string: "http://127.0.0.1:3001/api/push/AbC?status=up&msg=OK&ping="))
        let pushed = try ReceiverKind.uptimeKuma.request(.status(up: false, reason: "x"), url: shown, secret: nil, now: Self.now).url
        #expect(pushed.path == "/api/push/AbC" && pushed.query?.components(separatedBy: "status=").count == 2 && Self.query(pushed)["status"] == "down")
        #expect(throws: NotificationError.self) {
            try ReceiverKind.uptimeKuma.request(Self.payload(), url: url, secret: nil, now: Self.now)
        }
        #expect(throws: NotificationError.self) {
            try ReceiverKind.wecom.request(.status(up: true, reason: ""), url: url, secret: nil, now: Self.now)
        }
    }

    /// The answers: DingTalk and Feishu answer 200 with an error body; rate limits wait and
    /// retry; a refused signature is not retried; 5xx is.
    @Test func answersReadAsTheReceiverMeansThem() {
        func body(_ text: String) -> [UInt8] { Array(text.utf8) }
        #expect(ReceiverKind.dingtalk.outcome(status: 200, body: body(#"{"errcode":0,"errmsg":"ok"}"#)) == .delivered)
        #expect(ReceiverKind.dingtalk.outcome(status: 200, body: body(#"{"errcode":310000,"errmsg":"sign not match"}"#))
                == .rejected(reason: "errcode 310000: sign not match"))
        #expect(ReceiverKind.dingtalk.outcome(status: 200, body: body(#"{"errcode":130101,"errmsg":"send too fast"}"#))
                == .retry(reason: "errcode 130101: send too fast", after: .seconds(60)))
        #expect(ReceiverKind.wecom.outcome(status: 200, body: body(#"{"errcode":45009,"errmsg":"api freq out of limit"}"#))
                == .retry(reason: "errcode 45009: api freq out of limit", after: .seconds(60)))
        #expect(ReceiverKind.wecom.outcome(status: 200, body: body(#"{"errcode":93000,"errmsg":"invalid webhook url"}"#))
                == .rejected(reason: "errcode 93000: invalid webhook url"))
        #expect(ReceiverKind.feishu.outcome(status: 200, body: body(#"{"code":0,"msg":"success","data":{}}"#)) == .delivered)
        #expect(ReceiverKind.feishu.outcome(status: 200, body: body(#"{"StatusCode":0,"StatusMessage":"success"}"#)) == .delivered)
        #expect(ReceiverKind.feishu.outcome(status: 200, body: body(#"{"code":19021,"msg":"sign match fail"}"#))
                == .rejected(reason: "code 19021: sign match fail"))
        #expect(ReceiverKind.feishu.outcome(status: 200, body: body(#"{"code":9499,"msg":"too many request"}"#))
                == .retry(reason: "code 9499: too many request", after: .seconds(60)))
        #expect(ReceiverKind.feishu.outcome(status: 200, body: body("<html>")) == .rejected(reason: "no code in the answer: <html>"))
        #expect(ReceiverKind.uptimeKuma.outcome(status: 200, body: body(#"{"ok":true}"#)) == .delivered)
        #expect(ReceiverKind.uptimeKuma.outcome(status: 404, body: body(#"{"ok":false,"msg":"Monitor not found or not active."}"#))
                == .rejected(reason: #"HTTP 404: {"ok":false,"msg":"Monitor not found or not active."}"#))
        #expect(ReceiverKind.webhook.outcome(status: 204, body: []) == .delivered)
        #expect(ReceiverKind.webhook.outcome(status: 503, body: []) == .retry(reason: "HTTP 503", after: nil))
        #expect(ReceiverKind.webhook.outcome(status: 429, retryAfter: "7", body: []) == .retry(reason: "HTTP 429: too many requests",
                                                                                                  after: .seconds(7)))
        #expect(ReceiverKind.webhook.outcome(status: 401, body: body("no")) == .rejected(reason: "HTTP 401: no"))
    }

    /// The message in both languages, the time local to the zone with its offset.
    @Test func theMessageSpeaksBothLanguagesInLocalTime() {
        let english = NotificationMessage(Self.outage, language: .english, zone: .fixed(8 * 3600))
        #expect(english.title == "Rack [A](http://evil) <b>@all</b>: on battery")
        #expect(english.lines.contains { $0.label == "Time" && $0.value == "2026-01-01 08:00:00 UTC+08:00" })
        #expect(english.lines.contains { $0.label == "UPS" && $0.value.hasSuffix("(ups-7)") })
        let chinese = NotificationMessage(Self.outage, language: .chinese, zone: .fixed(0))
        #expect(chinese.title.hasSuffix("转电池供电"))
        #expect(chinese.lines.contains { $0.label == "时间" && $0.value == "2026-01-01 00:00:00 UTC" })
        let server = NotificationMessage(NotificationEvent(HistoryEvent(time: 0, server: "plant", kind: .serverUnreachable,
                                                                        detail: "connection refused")),
                                         language: .english, zone: .fixed(0))
        #expect(server.title == "plant: server unreachable")
        #expect(server.plain.contains("Detail: connection refused"))
    }
}

import Testing
import WPConfig
import WPTestThreads
@testable import WPHistory

/// The history API's parameters: ranges, times, steps, and what is said about bad ones.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct HistoryQueryTests {
    let now: Int64 = 1_795_000_000  // 2026-11-18T11:06:40Z
    let retention = HistorySettings()

    func parse(_ parameters: [String: String]) -> Result<HistoryQuery, HistoryQueryError> {
        HistoryQuery.parse({ parameters[$0] }, now: now, retention: retention)
    }

    func message(_ parameters: [String: String]) -> String {
        if case .failure(let error) = parse(parameters) { return error.message }
        return "answered"
    }

    /// Each range gets the finest step that keeps it within 2,000 points and the tier's retention.
    @Test func rangesChooseTheirStep() throws {
        let expected: [(String, HistoryTier, Int64)] = [("24h", .fiveMinutes, 86_400), ("7d", .hour, 7 * 86_400),
                                                        ("30d", .hour, 30 * 86_400), ("1y", .day, 365 * 86_400),
                                                        ("40d", .hour, 40 * 86_400), ("50d", .day, 50 * 86_400), ("2h", .fiveMinutes, 7_200)]
        for (range, tier, span) in expected {
            let query = try parse(["device": "ups-1", "range": range]).get()
            #expect(query.tier == tier, "\(range)")
            #expect(query.to == now + 1 && query.from == tier.slot(of: now - span), "\(range): now included")
        }
        let defaulted = try parse(["device": "ups-1", "server": "site-a"]).get()
        #expect(defaulted.ups == HistoryUPS(server: "site-a", device: "ups-1") && defaulted.tier == .fiveMinutes)
        #expect(try parse(["device": "ups-1", "range": "24h", "step": "1h"]).get().tier == .hour)
    }

    /// `from` and `to` as Unix seconds, dates or RFC 3339 UTC times; impossible dates refused.
    @Test func timesParse() throws {
        #expect(HistoryQuery.time("1795000000") == 1_795_000_000)
        #expect(HistoryQuery.time("2026-11-01") == 1_793_491_200)
        #expect(HistoryQuery.time("2026-11-01T01:02:03Z") == Int64(1_793_494_923))
        #expect(HistoryQuery.time("2026-11-01T01:02:03.250Z") == Int64(1_793_494_923))
        for bad in ["2026-02-30", "2026-13-01", "2026-11-01T25:00:00Z", "2026-11-01T01:02:03+08:00", "yesterday", "", "2026-11-01T01:02:03.Z"] {
            #expect(HistoryQuery.time(bad) == nil, "\(bad)")
        }
        #expect(HistoryQuery.utc(1_793_494_923) == "2026-11-01T01:02:03Z")
        let query = try parse(["device": "ups-1", "from": "2026-11-17", "to": "2026-11-18T00:00:00Z"]).get()
        #expect(query.tier == .fiveMinutes && query.from == 1_794_873_600 && query.to == 1_794_960_000)
        #expect(try parse(["device": "ups-1", "from": "1794873600"]).get().to == now + 1, "`to` defaults to now, included")
    }

    /// Each bad request is told what was wrong.
    @Test func badRequestsAreNamed() {
        let long = String(repeating: "a", count: 10_240)
        let cases: [([String: String], String)] = [
            ([:], "`device` is required"),
            (["device": long], "parameter `device` is 10240 bytes long; at most 256"),
            (["device": "u", "server": long], "parameter `server` is 10240 bytes long"),
            (["device": "u", "range": "7d", "from": "2026-11-01"], "give `range` or `from` (and `to`), not both"),
            (["device": "u", "to": "2026-11-01"], "`to` needs `from`"),
            (["device": "u", "from": "2026-11-02", "to": "2026-11-01"],
             "`from` (2026-11-02T00:00:00Z) is not before `to` (2026-11-01T00:00:00Z)"),
            (["device": "u", "from": "last week"], "`from` \"last week\" is not Unix seconds or an RFC 3339 UTC time"),
            (["device": "u", "range": "0d"], "`range` \"0d\" is not 24h, 7d, 30d, 1y"),
            (["device": "u", "step": "10m"], "`step` \"10m\" is not 5m, 1h or 1d"),
            (["device": "u", "range": "40d", "step": "5m"],
             "5-minute slots are kept for 30 days (history.retention_days): `from` is before 2026-10-19T11:06:40Z; step=1h goes back further"),
            (["device": "u", "from": "2019-01-01", "to": "2019-02-01"],
             "daily slots are kept for 1830 days (history.daily_retention_days): the range ends before"),
            (["device": "u", "range": "30d", "step": "5m"], "that is 8641 points of 5m; at most 2000 per answer"),
        ]
        for (parameters, says) in cases {
            #expect(message(parameters).contains(says), "\(parameters.mapValues { $0.prefix(20) }): \(message(parameters))")
        }
    }

    /// The events API's parameters: the whole fleet by default over 30 days, kinds listed once.
    @Test func eventQueriesParse() throws {
        let all = try HistoryEventQuery.parse({ _ in nil }, now: now).get()
        #expect(all == HistoryEventQuery(ups: nil, from: now - 30 * 86_400, to: now + 1, limit: 200))
        let parameters = ["device": "ups-1", "server": "site-a", "kind": "on_battery,mains_back,on_battery", "range": "7d", "limit": "5"]
        let one = try HistoryEventQuery.parse({ parameters[$0] }, now: now).get()
        #expect(one.ups == HistoryUPS(server: "site-a", device: "ups-1") && one.kinds == [.onBattery, .mainsBack] && one.limit == 5)
        #expect(one.from == now - 7 * 86_400)
        let bad: [([String: String], String)] = [(["limit": "0"], "`limit` \"0\" is not a number from 1 to 1000"),
                                                 (["kind": "on_battery,blackout"], "`kind` \"blackout\" is not one of on_battery"),
                                                 (["server": "x"], "`server` needs `device`"),
                                                 (["kind": String(repeating: "k", count: 300)], "parameter `kind` is 300 bytes long")]
        for (parameters, says) in bad {
            guard case .failure(let error) = HistoryEventQuery.parse({ parameters[$0] }, now: now) else {
                Issue.record("\(parameters) answered")
                continue
            }
            #expect(error.status == 400 && error.message.contains(says), "\(error.message)")
        }
    }
}

import Foundation
import Synchronization
import Testing
import WPClient
import WPConfig
import WPFrontEnd
import WPFrontEndTesting
import WPHTTPClient
import WPHistory
import WPLogging
import WPNotifications
import WPRuntime
import WPStorage
import WPTestSupport
import WPTestThreads
import WPWallClock

/// A receiver the test scripts: it records each request and answers what the test lined up
/// (then success: `{"errcode":0,"code":0,"ok":true}`, which every kind reads as taken).
final class ScriptedReceiver: NotificationTransport {
    enum Answer: Sendable {
        case status(Int, String)
        case failure(HTTPClientError)
    }

    private struct State {
        var requests: [HTTPClientRequest] = []
        var answers: [Answer]
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    init(_ answers: [Answer] = []) { state = Mutex(State(answers: answers)) }

    var requests: [HTTPClientRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let (answer, ready) = state.withLock { state in
            state.requests.append(request)
            let answer = state.answers.isEmpty ? .status(200, #"{"errcode":0,"code":0,"ok":true}"#) : state.answers.removeFirst()
            let count = state.requests.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return (answer, ready)
        }
        for waiter in ready { waiter.resume() }
        switch answer {
        case .status(let status, let body): return HTTPClientResponse(status: status, body: Array(body.utf8))
        case .failure(let error): throw error
        }
    }

    /// Returns once `count` requests came.
    func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.requests.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A wall clock the test sets.
final class SetWallClock: Sendable {
    private let seconds = Mutex<Int64>(1_767_225_600)
    var now: Date { Date(timeIntervalSince1970: TimeInterval(seconds.withLock { $0 })) }
    func advance(_ by: Int64) { seconds.withLock { $0 += by } }
    var wallClock: WallClock { WallClock { [self] in now } }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NotifierTests {
    static let onMains = Device.make(id: "ups-id-1", alias: "Rack [A](http://evil) @all", watts: 300)
    static let onBattery = Device.make(id: "ups-id-1", alias: "Rack [A](http://evil) @all", watts: 300, mode: 4, status: 2)

    static func settings(_ type: String = "dingtalk", language: String? = "zh-CN", events: [String] = [],
                         ups: [String] = [], holdTime: Duration = .seconds(10)) -> NotificationSettings {
        var receiver = NotificationSettings.Receiver()
        receiver.name = "ops"
        receiver.type = type
        receiver.url = Secret("https://robot.example.com/send?access_token=tok")
        receiver.secret = type == "dingtalk" || type == "webhook" ? Secret("SECabc") : nil
        receiver.language = language
        var route = NotificationSettings.Route()
        route.events = events
        route.ups = ups
        route.receivers = ["ops"]
        var settings = NotificationSettings()
        settings.receivers = [receiver]
        settings.routes = [route]
        settings.holdTime = holdTime
        settings.timeZone = "UTC+08:00"
        return settings
    }

    struct Rig {
        let clock = ManualClock()
        let wall = SetWallClock()
        let publication: ScriptedPublication<ManualClock>
        let transport: ScriptedReceiver
        let sections: StateSections
        let notifier: Notifier<ManualClock>

        init(_ settings: NotificationSettings, answers: [ScriptedReceiver.Answer] = [], records: [[String]] = []) throws {
            publication = ScriptedPublication(clock: clock)
            transport = ScriptedReceiver(answers)
            sections = StateSections()
            if !records.isEmpty { sections.replace("notifications", with: records) }
            notifier = try Notifier(settings: settings, transport: transport, clock: clock, wallClock: wall.wallClock, logger: .disabled,
                                    counters: nil, sections: sections, publication: publication)
        }

        func publish(_ device: Device) {
            publication.publish([.scripted(devices: [device], readAt: clock.now)])
        }

        /// Moves the wall clock (the messages' times) and the monotonic one (the holds) together.
        func advance(_ seconds: Int64) {
            wall.advance(seconds)
            clock.advance(by: .seconds(seconds))
        }

        /// Every body sent, as text.
        var bodies: [String] { transport.requests.map { String(decoding: $0.body, as: UTF8.self) } }
    }

    @Test func aShortOutageIsOneMessageDeliveredThroughAReceiverThatFailsTwice() async throws {
        let rig = try Rig(Self.settings(), answers: [.status(500, "busy"), .failure(HTTPClientError(.connectionRefused, "refused"))])
        rig.publish(Self.onMains)      // first seen on mains: nothing to tell
        rig.advance(1)
        rig.publish(Self.onBattery)
        rig.advance(3)
        rig.publish(Self.onMains)
        rig.advance(6)
        rig.notifier.tick()            // 9 s after the outage began: still within the hold
        #expect(rig.notifier.statuses.first?.queued == 0)
        rig.advance(1)
        rig.notifier.tick()
        #expect(rig.notifier.statuses.first?.queued == 1)
        let running = Task { try await rig.notifier.run() }
        defer { running.cancel() }
        await rig.transport.waitForRequests(1)
        // Backoff 2 s after the first failure, 4 s after the second, on the test's clock.
        await rig.clock.waitForSleeper(until: rig.clock.now.advanced(by: .seconds(2)))
        rig.clock.advance(by: .seconds(2))
        await rig.transport.waitForRequests(2)
        await rig.clock.waitForSleeper(until: rig.clock.now.advanced(by: .seconds(4)))
        rig.clock.advance(by: .seconds(4))
        await rig.transport.waitForRequests(3)
        while rig.notifier.statuses.first?.sent != 1 { await Task.yield() }
        let status = try #require(rig.notifier.statuses.first)
        #expect(status.sent == 1 && status.failed == 2 && status.retried == 2 && status.dropped == 0 && status.state == "ok")
        let bodies = rig.bodies
        #expect(bodies.count == 3)
        let text = try #require(bodies.last)
        #expect(text.contains("转电池供电") && text.contains("市电恢复") && text.contains("3 秒后"), "\(text)")
        #expect(text.contains("2026-01-01 08:00:01 UTC+08:00"), "\(text)")
        // The alias cannot make a link or a mention.
        #expect(!text.contains("[A]") && !text.contains("@all") && text.contains("［A］"), "\(text)")
        // Each attempt signed afresh, with DingTalk's timestamp and sign.
        #expect(rig.transport.requests.allSatisfy { $0.url.absoluteString.contains("&timestamp=") && $0.url.absoluteString.contains("&sign=") })
        // Back on mains: nothing to remember for the next start (a normal state is no record).
        #expect(rig.sections.records("notifications") == [])
    }

    @Test func aRestartDuringAnOutageDoesNotTellItAgainButTheMainsBackIsTold() throws {
        let told = [["ops", "", "ups-id-1", "on_battery", "on_battery"]]
        let during = try Rig(Self.settings(holdTime: .zero), records: told)
        during.publish(Self.onBattery)
        #expect(during.notifier.statuses.first?.queued == 0)
        let after = try Rig(Self.settings(holdTime: .zero), records: told)
        after.publish(Self.onMains)
        #expect(after.notifier.statuses.first?.queued == 1)
        // Never told anything: an outage seen at the start is told, a UPS on mains is not.
        let fresh = try Rig(Self.settings(holdTime: .zero))
        fresh.publish(Self.onBattery)
        #expect(fresh.notifier.statuses.first?.queued == 1)
        let quiet = try Rig(Self.settings(holdTime: .zero))
        quiet.publish(Self.onMains)
        #expect(quiet.notifier.statuses.first?.queued == 0)
    }

    @Test func whatAReceiverTookIsRecordedWhatItRefusedIsNot() async throws {
        let rig = try Rig(Self.settings(holdTime: .zero), answers: [.status(200, #"{"errcode":310000,"errmsg":"keywords not in content"}"#)])
        let running = Task { try await rig.notifier.run() }
        defer { running.cancel() }
        rig.publish(Self.onMains)
        rig.publish(Self.onBattery)
        await rig.transport.waitForRequests(1)
        while rig.notifier.statuses.first?.dropped != 1 { await Task.yield() }
        #expect(rig.sections.records("notifications") == [])   // refused: the next start tells it again
        rig.publish(Self.onMains)
        rig.publish(Self.onBattery)
        await rig.transport.waitForRequests(3)
        while rig.notifier.statuses.first?.sent != 2 { await Task.yield() }
        #expect(rig.sections.records("notifications") == [["ops", "", "ups-id-1", "on_battery", "on_battery"]])
    }

    @Test func aKindNotRoutedStillMovesWhatTheReceiverKnows() throws {
        // Told of a fault; its end is not routed; the record follows the end anyway.
        let rig = try Rig(Self.settings(events: ["on_battery"], holdTime: .zero), records: [["ops", "", "ups-id-1", "on_battery", "on_battery"]])
        rig.publish(Self.onBattery)   // a start during the outage: told already
        #expect(rig.notifier.statuses.first?.queued == 0)
        rig.publish(Self.onMains)     // mains_back is not routed: nothing sent, the record goes
        #expect(rig.notifier.statuses.first?.queued == 0)
        #expect(rig.sections.records("notifications") == [])
    }

    @Test func anAlarmThatEndedWhileTheExporterWasAwayIsToldAtTheStart() throws {
        let rig = try Rig(Self.settings(holdTime: .zero), records: [["ops", "", "ups-id-1", "alarm:A01", "alarm_raised"]])
        rig.publish(Self.onMains)
        #expect(rig.notifier.statuses.first?.queued == 1)
        // Still raised at the start: told already, nothing to send.
        let still = try Rig(Self.settings(holdTime: .zero), records: [["ops", "", "ups-id-1", "alarm:A01", "alarm_raised"]])
        still.publish(Device.make(id: "ups-id-1", alias: "Rack", alarmCodes: ["A01"]))
        #expect(still.notifier.statuses.first?.queued == 0)
    }

    @Test func holdsAreTimedOnTheMonotonicClockNotTheWallClock() throws {
        let rig = try Rig(Self.settings())
        rig.publish(Self.onMains)
        rig.publish(Self.onBattery)
        rig.wall.advance(-3_600)          // the wall clock set back an hour
        rig.clock.advance(by: .seconds(10))
        rig.notifier.tick()
        #expect(rig.notifier.statuses.first?.queued == 1)
    }

    @Test func aReceiverNoLongerConfiguredIsForgotten() throws {
        let rig = try Rig(Self.settings(), records: [["ops", "", "ups-id-1", "on_battery", "on_battery"],
                                                     ["gone", "", "ups-id-1", "on_battery", "on_battery"]])
        #expect(rig.sections.records("notifications") == [["ops", "", "ups-id-1", "on_battery", "on_battery"]])
    }

    @Test func routesChooseByKindAndUPS() throws {
        let faultsOnly = try Rig(Self.settings(events: ["fault"], holdTime: .zero))
        faultsOnly.publish(Self.onMains)
        faultsOnly.publish(Self.onBattery)
        #expect(faultsOnly.notifier.statuses.first?.queued == 0)
        let otherUPS = try Rig(Self.settings(ups: ["Rack B"], holdTime: .zero))
        otherUPS.publish(Self.onMains)
        otherUPS.publish(Self.onBattery)
        #expect(otherUPS.notifier.statuses.first?.queued == 0)
        let byID = try Rig(Self.settings(events: ["on_battery"], ups: ["ups-id-1"], holdTime: .zero))
        byID.publish(Self.onMains)
        byID.publish(Self.onBattery)
        #expect(byID.notifier.statuses.first?.queued == 1)
    }

    @Test func uptimeKumaIsDownWithTheReasonWhileAUPSIsOnBattery() async throws {
        let rig = try Rig(Self.settings("uptime_kuma", language: nil))
        let running = Task { try await rig.notifier.run() }
        defer { running.cancel() }
        rig.publish(Self.onMains)
        await rig.transport.waitForRequests(1)
        rig.publish(Self.onBattery)
        await rig.transport.waitForRequests(2)
        let urls = rig.transport.requests.map(\.url.absoluteString)
        #expect(urls[0].contains("status=up") && urls[1].contains("status=down") && urls[1].contains("on%20battery"), "\(urls)")
        // No change: pushed again once the heartbeat interval passed.
        rig.publish(Self.onBattery)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(60))
        await rig.transport.waitForRequests(3)
        #expect(rig.transport.requests[2].url.absoluteString.contains("status=down"))
    }

    @Test func uptimeKumaIsDownWhenCollectionStops() async throws {
        let rig = try Rig(Self.settings("uptime_kuma", language: nil))
        let running = Task { try await rig.notifier.run() }
        defer { running.cancel() }
        rig.publish(Self.onMains)
        await rig.transport.waitForRequests(1)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(61))   // no publication for longer than a reading may go stale
        await rig.transport.waitForRequests(2)
        let url = rig.transport.requests[1].url.absoluteString
        #expect(url.contains("status=down") && url.contains("no%20collection%20for%2061%20s"), "\(url)")
    }

    @Test func aFullQueueDropsTheOldestButTheOneInDelivery() {
        let receiver = ResolvedReceiver(name: "ops", kind: .webhook, url: URL(string: "https://hook.example.com/")!)
        let dropped = Mutex<[String]>([])
        let delivery = ReceiverDelivery(receiver: receiver, capacity: 3, transport: ScriptedReceiver(), clock: ManualClock(),
                                        wallClock: .system, timeout: .seconds(1), logger: .disabled, counters: nil,
                                        settled: { item, delivered in
                                            if case .status(_, let reason) = item.payload, !delivered { dropped.withLock { $0.append(reason) } }
                                        })
        for index in 1...6 { delivery.enqueue(.init(payload: .status(up: true, reason: "\(index)"))) }
        #expect(delivery.status.queued == 3 && delivery.status.dropped == 3)
        #expect(dropped.withLock { $0 } == ["2", "3", "4"])
    }
}

import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPFrontEnd
import WPFrontEndTesting
import WPRuntime
import WPTestSupport

/// The published value on its own: what a front end reads of a server, and a scripted
/// publication's numbering.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct FleetStateTests {
    @Test func aReadingIsStaleOnlyPastTheWindow() {
        let clock = ManualClock()
        let read = clock.now
        let server = FleetState<ManualClock>.Server.scripted(devices: [.make()], readAt: read, stalenessWindow: .seconds(15))
        #expect(!server.isStale(read, at: read))
        #expect(!server.isStale(read, at: read.advanced(by: .seconds(15))), "a reading exactly the window old is served")
        #expect(server.isStale(read, at: read.advanced(by: .seconds(15) + .milliseconds(1))))
        #expect(server.sinceLastSuccess(at: read.advanced(by: .seconds(4))) == .seconds(4))
        let never = FleetState<ManualClock>.Server.scripted(devices: [], readAt: read, lastSuccess: .some(nil))
        #expect(never.sinceLastSuccess(at: read) == nil)
        #expect(!never.health.lastCollectionSucceeded)
    }

    @Test func aDeviceIsDescribedByAliasModelAndServer() {
        let clock = ManualClock()
        let device = Device.make(id: "ups-id-1", alias: "Rack A")
        #expect(FleetState<ManualClock>.Server.scripted(devices: [device], readAt: clock.now).description(of: device)
                == "Rack A (ON-LINE)")
        #expect(FleetState<ManualClock>.Server.scripted(name: "site-b", devices: [device], readAt: clock.now).description(of: device)
                == "Rack A (ON-LINE) on site-b")
        let unnamed = Device.make(id: "ups-id-2", alias: nil)
        #expect(FleetState<ManualClock>.Server.scripted(devices: [unnamed], readAt: clock.now).description(of: unnamed)
                .hasPrefix("ups-id-2"))
        #expect(FleetState<ManualClock>.key(server: "", device: "d") == "d")
        #expect(FleetState<ManualClock>.key(server: "site-b", device: "d") != "d")
    }

    @Test func aScriptedPublicationNumbersItsStatesAndHandsThemInOrder() {
        let clock = ManualClock()
        let publication = ScriptedPublication(clock: clock)
        #expect(publication.current.generation == 0)
        let handed = LockedBox<[UInt64]>([])
        publication.subscribe { state in handed.update { $0.append(state.generation) } }
        for step in 1...3 {
            clock.advance(by: .seconds(5))
            let state = publication.publish([.scripted(devices: [.make()], readAt: clock.now)])
            #expect(state.generation == UInt64(step))
            #expect(state.publishedAt == clock.now)
        }
        #expect(handed.value == [1, 2, 3])
        #expect(publication.current.generation == 3)
        #expect(publication.current.servers.first?.names == [Device.make().id: "ups-1"])
    }

    /// `/health`'s document: the report's own fields, then each front end's section under its key.
    @Test func theHealthDocumentWritesEachSectionUnderItsKey() throws {
        struct Report: Encodable { var status = "ok" }
        struct Section: Encodable, Sendable { var listen = "127.0.0.1:3493" }
        let document = HealthDocument(report: Report(), sections: [FrontEndHealth(key: "nut", value: Section())])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(document), as: UTF8.self)
        #expect(text == #"{"nut":{"listen":"127.0.0.1:3493"},"status":"ok"}"#)
    }
}

/// A value shared with a subscriber, under a lock.
final class LockedBox<T: Sendable>: Sendable {
    private let lock: Mutex<T>
    init(_ value: T) { lock = Mutex(value) }
    var value: T { lock.withLock { $0 } }
    func update(_ body: (inout T) -> Void) { lock.withLock { body(&$0) } }
}

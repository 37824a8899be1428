import Foundation
import Testing
import WPServer
@testable import wpexporter

/// The executable's own process policy: the addresses it prints and its signal handling.
@Suite struct ProcessPolicyTests {
    @Test func wildcardAddressesPrintAsLocalhost() {
        #expect(RuntimeCommands.url(ServerAddress(host: "0.0.0.0", port: 9090), "/metrics") == "http://localhost:9090/metrics")
        #expect(RuntimeCommands.url(ServerAddress(host: "::1", port: 1)) == "http://[::1]:1")
    }

    @Test func theSecondSignalRunsTheRepeatHandlerNotTheFirst() async {
        let events = SignalEvents()
        let repeats = OutputBuffer()
        events.onRepeat { repeats.append(Data("\($0)".utf8)) }
        events.received(15)
        await events.first()
        #expect(repeats.text.isEmpty)
        events.received(2)
        #expect(repeats.text == "2")
    }

    @Test func twoCoalescedSignalsCountAsASecondSignal() async {
        let events = SignalEvents()
        let repeats = OutputBuffer()
        events.onRepeat { repeats.append(Data("\($0)".utf8)) }
        events.received(15, times: 2)
        await events.first()
        #expect(repeats.text == "15")
    }
}

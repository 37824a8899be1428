import Synchronization
import Testing
import WPTestThreads
@testable import WPSNMP
@testable import WPServer
import WPServerTesting

/// The SNMP agent on the datagram driver, datagram by datagram on an ``InMemoryLoop``: no
/// socket and no thread; the test plays the managers and the kernel.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct InMemorySNMPTests {
    private func makeLoop<P: DatagramProtocol>(_ datagramProtocol: P, counters: DatagramCounters,
                                               _ change: (inout DatagramServer<P>.Configuration) -> Void = { _ in })
        -> InMemoryLoop<DatagramDriver<P>> {
        var configuration = DatagramServer<P>.Configuration(host: "127.0.0.1", port: 0)
        change(&configuration)
        return InMemoryLoop(driver: DatagramDriver(configuration: configuration, protocol: datagramProtocol, counters: counters))
    }

    @Test func eachManagerGetsItsOwnAnswer() throws {
        let counters = DatagramCounters()
        let loop = makeLoop(agent(), counters: counters)
        loop.receive([(sysDescrRequest, "127.0.0.1:5000"), (request(BERTag.getRequest, ["1.3.6.1.2.1.1.5.0"]), "[::1]:6000")])
        let first = try #require(loop.datagramsSent(to: "127.0.0.1:5000").first)
        #expect(try SNMPMessage(decoding: first).pdu.varBinds == [VarBind("1.3.6.1.2.1.1.1.0", .string("wpexporter UPS agent"))])
        let second = try #require(loop.datagramsSent(to: "[::1]:6000").first)
        #expect(try SNMPMessage(decoding: second).pdu.varBinds == [VarBind("1.3.6.1.2.1.1.5.0", .string("gw"))])
        #expect(loop.datagramsSent(to: "127.0.0.1:5001").isEmpty)
        #expect(counters.value.withLock { $0 }.received == 2)
        #expect(counters.value.withLock { $0 }.answered == 2)
    }

    @Test func oneAddressGetsAtMostItsShareOfABatch() {
        let counters = DatagramCounters()
        let loop = makeLoop(agent(), counters: counters) { $0.maxInFlightPerAddress = 2 }
        let flood = (0..<5).map { index in (sysDescrRequest, "127.0.0.1:\(5000 + index)") }
        loop.receive(flood + [(sysDescrRequest, "127.0.0.2:5000")])
        let statistics = counters.value.withLock { $0 }
        #expect(statistics.received == 3, "two from 127.0.0.1 (any port), one from 127.0.0.2")
        #expect(statistics.droppedBusy == 3)
        #expect(loop.datagramsSent(to: "127.0.0.2:5000").count == 1)
    }

    @Test func aDatagramOverTheLimitIsCountedAndNotAnswered() {
        let counters = DatagramCounters()
        let loop = makeLoop(agent(), counters: counters) { $0.maxDatagramBytes = 100 }
        loop.receive([(sysDescrRequest + Array(repeating: 0, count: 100), "127.0.0.1:5000")])
        #expect(counters.value.withLock { $0 }.droppedTooLarge == 1)
        #expect(loop.datagramsSent(to: "127.0.0.1:5000").isEmpty)
    }

    @Test func theKernelsDropCountKeepsGrowingAcrossItsWrap() {
        let counters = DatagramCounters()
        let loop = makeLoop(agent(), counters: counters)
        loop.kernelDrops = Int64(UInt32.max) - 5
        loop.receive([(sysDescrRequest, "127.0.0.1:5000")])
        loop.kernelDrops = 4
        loop.receive([(sysDescrRequest, "127.0.0.1:5000")])
        #expect(counters.value.withLock { $0 }.droppedByKernel == Int(UInt32.max) + 5)
    }

    @Test func handlersInFlightAreBoundedAndTheirAnswersSentWhenDone() async {
        let counters = DatagramCounters()
        let held = HeldAnswers()
        let loop = makeLoop(held, counters: counters) { $0.maxInFlight = 2 }
        loop.receive((0..<3).map { index in ([UInt8(index)], "127.0.0.\(index + 1):161") })
        #expect(counters.value.withLock { $0 }.received == 2)
        #expect(counters.value.withLock { $0 }.droppedBusy == 1)
        #expect(loop.datagramsSent(to: "127.0.0.1:161").isEmpty, "nothing is sent before its handler ends")
        held.release()
        var answered = 0
        while answered < 2 {
            await loop.awaitCompletions()
            answered = counters.value.withLock { $0 }.answered
        }
        #expect(loop.datagramsSent(to: "127.0.0.1:161") == [[0, 0]])
        #expect(loop.datagramsSent(to: "127.0.0.2:161") == [[1, 1]])
        loop.receive([([9], "127.0.0.3:161")])
        #expect(counters.value.withLock { $0 }.received == 3, "room again once the answers went out")
        held.release()
    }

    @Test func aClosedListenerSendsNothing() {
        let counters = DatagramCounters()
        let loop = makeLoop(agent(), counters: counters)
        loop.listenerOpen = false
        loop.receive([(sysDescrRequest, "127.0.0.1:5000")])
        #expect(counters.value.withLock { $0 }.received == 0)
        #expect(loop.datagramsWaiting == 1)
        #expect(loop.datagramsSent(to: "127.0.0.1:5000").isEmpty)
    }
}

/// Answers each datagram with its bytes twice, once released.
private final class HeldAnswers: DatagramProtocol {
    private let gate = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            let open = gate.withLock { gate in
                if !gate.open { gate.waiters.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        return datagram + datagram
    }

    func release() {
        for waiter in gate.withLock({ gate in gate.open = true; defer { gate.waiters = [] }; return gate.waiters }) {
            waiter.resume()
        }
    }
}

package import WPCSystem
import Synchronization
package import WPServer

/// A ``ConnectionLoop`` with no socket and no thread, for tests (as swift-nio's embedded event
/// loop): the test plays the peers and the clock. It opens connections, hands a connection bytes,
/// a half-close or a reset, takes what the driver wrote, holds writes back to make the peer slow,
/// hands a datagram listener datagrams and collects its answers, and moves the clock to fire
/// deadlines. Each call drives the ``ConnectionDriver`` exactly as ``Reactor`` does on readiness,
/// on the caller's thread, and returns once the driver has made every step it could.
///
/// Handler tasks run on Swift's global executor (a handler preferring the loop as its executor
/// too: the loop has no thread to run it on); their results wait in the loop's inbox until
/// ``awaitCompletions()`` delivers them.
///
/// Safety of `@unchecked Sendable`: like ``Reactor``, every stored `var`, the driver and the
/// connections are touched only by the loop's owner, one call at a time (a test's body); other
/// threads call only ``complete(_:_:)`` and ``enqueue(_:)``, which touch nothing but the `inbox`
/// (a `Mutex`).
package final class InMemoryLoop<Driver: ConnectionDriver>: ConnectionLoop, @unchecked Sendable {
    private struct Inbox {
        var completions: [(UInt64, Driver.Completion)] = []
        var waiter: CheckedContinuation<Void, Never>?
    }

    package let driver: Driver
    package let counters = ConnectionCounters()
    package let scratch: UnsafeMutableRawBufferPointer
    package private(set) var now: Int64
    package private(set) var connections: [UInt64: Driver.Connection] = [:]
    private var nextID: UInt64 = 2
    private var readAgain: [UInt64] = []
    private let inbox = Mutex(Inbox())
    /// Datagrams waiting for the listener, and what it sent, in order.
    private var datagramsIn: [(bytes: [UInt8], peer: cs_peer, remote: String)] = []
    package private(set) var datagramsOut: [(bytes: [UInt8], peer: cs_peer)] = []
    /// Whether the listener is open: a closed one receives and sends nothing.
    package var listenerOpen = true
    /// The kernel's drop count each received datagram reports (-1: none reported).
    package var kernelDrops: Int64 = -1

    /// `scratchBytes` is the read buffer's size (``Reactor`` has 64 KiB): a small one makes the
    /// driver read a connection's bytes in several reads.
    package init(driver: Driver, scratchBytes: Int = 64 * 1024, now: Int64 = 1_000_000_000) {
        self.driver = driver
        self.scratch = .allocate(byteCount: scratchBytes, alignment: 16)
        self.now = now
    }

    deinit {
        for connection in connections.values { connection.task?.cancel() }
        scratch.deallocate()
    }

    // MARK: The test's side

    /// Accepts a connection from `remoteAddress`: the driver's state for it, whose
    /// ``ReactorConnection/io`` is an ``InMemoryIO``.
    @discardableResult
    package func connect(from remoteAddress: String = "127.0.0.1:40000") -> Driver.Connection {
        let id = nextID
        nextID += 1
        let connection = driver.makeConnection(id: id, io: InMemoryIO(), remoteAddress: remoteAddress, now: now)
        connections[id] = connection
        counters.update { $0.accepted += 1; $0.open = connections.count }
        return connection
    }

    /// The peer sends `bytes`: the connection becomes readable and is driven.
    package func send(_ bytes: some Sequence<UInt8>, on connection: Driver.Connection) {
        Self.io(of: connection).inbound.append(contentsOf: bytes)
        connection.readable = true
        drive(connection)
    }

    /// The peer shuts down its side (a half-close): reads reach end-of-stream.
    package func halfClose(_ connection: Driver.Connection) {
        Self.io(of: connection).inboundEnded = true
        connection.readable = true
        connection.peerClosed = true
        drive(connection)
    }

    /// The peer resets the connection: as ``Reactor`` does on a hang-up, a connection whose
    /// handler is running closes at once; any other reads the failure.
    package func reset(_ connection: Driver.Connection) {
        Self.io(of: connection).resetByPeer = true
        connection.readable = true
        connection.peerClosed = true
        if driver.isHandling(connection) {
            close(connection)
            return
        }
        connection.writable = true
        drive(connection)
    }

    /// Takes everything the driver wrote on the connection so far. A connection whose writes
    /// were held back (``InMemoryIO/writeCapacity``) gets room for as many bytes again and,
    /// if its last write would have blocked, becomes writable and is driven.
    package func takeWritten(from connection: Driver.Connection) -> [UInt8] {
        let io = Self.io(of: connection)
        let written = io.outbound
        io.outbound.removeAll()
        if io.writeCapacity != nil {
            io.writeCapacity = written.count
            if io.blockedWrite { io.blockedWrite = false; connection.writable = true; drive(connection) }
        }
        return written
    }

    /// Moves the clock by `duration`, then fires every deadline that passed (one scan, as
    /// ``Reactor`` makes).
    package func advance(by duration: Duration) {
        now += duration.nanoseconds
        for connection in Array(connections.values) where connection.deadline != 0 && now >= connection.deadline {
            guard connections[connection.id] != nil else { continue }
            driver.deadlinePassed(connection, now: now, in: self)
        }
        serveQueuedReads()
    }

    /// Waits until at least one handler has handed back its result, then delivers every result
    /// waiting (a connection closed meanwhile gets ``ConnectionDriver/dropped(_:)``).
    package func awaitCompletions() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            inbox.withLock { inbox in
                if inbox.completions.isEmpty { inbox.waiter = continuation } else { continuation.resume() }
            }
        }
        let completions = inbox.withLock { inbox in
            defer { inbox.completions.removeAll() }
            return inbox.completions
        }
        for (id, completion) in completions {
            driver.deliver(completion, to: connections[id], in: self)
        }
        serveQueuedReads()
    }

    /// Datagrams, each from its `remote` (`ip:port`), wait on the listener, which is then told
    /// it is readable (once: it reads what waits, up to its budget per readiness).
    package func receive(_ datagrams: [(bytes: [UInt8], from: String)]) {
        for datagram in datagrams { datagramsIn.append((datagram.bytes, Self.peer(datagram.from), datagram.from)) }
        driver.listenerReadable(in: self)
    }

    /// Datagrams still waiting on the listener (it reads a bounded number per readiness).
    package var datagramsWaiting: Int { datagramsIn.count }

    /// The datagrams the listener sent to `remote`, in order.
    package func datagramsSent(to remote: String) -> [[UInt8]] {
        let peer = Self.peer(remote)
        return datagramsOut.filter { Self.same($0.peer, peer) }.map(\.bytes)
    }

    package static func io(of connection: Driver.Connection) -> InMemoryIO {
        guard let io = connection.io as? InMemoryIO else { preconditionFailure("not a connection of an InMemoryLoop") }
        return io
    }

    private func drive(_ connection: Driver.Connection) {
        guard connections[connection.id] != nil else { return }
        driver.drive(connection, in: self)
        serveQueuedReads()
    }

    /// Drives the connections whose read budget ran out until none asks again.
    private func serveQueuedReads() {
        while !readAgain.isEmpty {
            let queued = readAgain
            readAgain.removeAll()
            for id in queued {
                guard let connection = connections[id] else { continue }
                connection.readQueued = false
                driver.drive(connection, in: self)
            }
        }
    }

    private static func peer(_ remote: String) -> cs_peer {
        var peer = cs_peer()
        let host = String(remote[..<(remote.lastIndex(of: ":") ?? remote.endIndex)]).trimmingBrackets
        let port = remote.lastIndex(of: ":").flatMap { Int32(remote[remote.index(after: $0)...]) } ?? -1
        precondition(cs_peer_parse(host, port, &peer) == 0, "not an address: \(remote)")
        return peer
    }

    private static func same(_ lhs: cs_peer, _ rhs: cs_peer) -> Bool {
        guard lhs.length == rhs.length else { return false }
        return withUnsafeBytes(of: lhs.address) { left in
            withUnsafeBytes(of: rhs.address) { right in left.prefix(Int(lhs.length)).elementsEqual(right.prefix(Int(lhs.length))) }
        }
    }

    // MARK: ConnectionLoop

    package func complete(_ id: UInt64, _ completion: Driver.Completion) {
        let waiter = inbox.withLock { inbox in
            inbox.completions.append((id, completion))
            defer { inbox.waiter = nil }
            return inbox.waiter
        }
        waiter?.resume()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        globalConcurrentExecutor.enqueue(UnownedJob(job))
    }


    package func readNextTurn(_ connection: Driver.Connection) {
        guard !connection.readQueued else { return }
        connection.readQueued = true
        readAgain.append(connection.id)
    }

    /// An in-memory connection has no TLS.
    package func startTLS(_ connection: Driver.Connection) -> Bool { false }

    package func isOpen(_ connection: Driver.Connection) -> Bool { connections[connection.id] != nil }

    package func close(_ connection: Driver.Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        forgetClosed(connection, openConnections: connections.count)
        connection.io.close()
    }

    package func receiveDatagram(into buffer: UnsafeMutableRawBufferPointer) -> ReceivedDatagram? {
        guard listenerOpen, !datagramsIn.isEmpty else { return nil }
        let datagram = datagramsIn.removeFirst()
        let copied = min(datagram.bytes.count, buffer.count)
        datagram.bytes.withUnsafeBytes { buffer.baseAddress?.copyMemory(from: $0.baseAddress!, byteCount: copied) }
        return ReceivedDatagram(length: datagram.bytes.count, peer: datagram.peer, remote: datagram.remote, kernelDrops: kernelDrops)
    }

    package func sendDatagram(_ bytes: UnsafeRawBufferPointer, to peer: cs_peer) -> Int? {
        guard listenerOpen else { return nil }
        datagramsOut.append((Array(bytes), peer))
        return bytes.count
    }
}

/// One in-memory connection's bytes: what the peer sent and the driver has not read yet, and
/// what the driver wrote and the test has not taken (``InMemoryLoop/takeWritten(from:)``).
package final class InMemoryIO: ConnectionIO {
    package var inbound: [UInt8] = []
    /// The peer half-closed: once `inbound` is read, reads reach end-of-stream.
    package var inboundEnded = false
    /// The peer reset the connection: reads and writes fail.
    package var resetByPeer = false
    package var outbound: [UInt8] = []
    /// How many more bytes the peer takes before a write would block; `nil`: no limit.
    package var writeCapacity: Int?
    /// A write would have blocked since the test last took the written bytes.
    package var blockedWrite = false
    /// Whether the driver shut down its writing side, and whether it closed the connection.
    package private(set) var writeShutDown = false
    package private(set) var closed = false

    package var descriptor: Int32 { -1 }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        if closed || resetByPeer { return .failed(104) } // ECONNRESET
        guard !inbound.isEmpty else { return inboundEnded ? .endOfStream : .wouldBlock }
        let count = min(buffer.count, inbound.count)
        inbound.withUnsafeBytes { buffer.baseAddress?.copyMemory(from: $0.baseAddress!, byteCount: count) }
        inbound.removeFirst(count)
        return .bytes(count)
    }

    package func write(_ buffers: UnsafeBufferPointer<UnsafeRawBufferPointer>) -> IOResult {
        if closed || resetByPeer { return .failed(32) } // EPIPE
        var room = writeCapacity ?? .max
        var written = 0
        for buffer in buffers where room > 0 {
            let count = min(buffer.count, room)
            outbound.append(contentsOf: buffer.prefix(count))
            room -= count
            written += count
        }
        if writeCapacity != nil { writeCapacity = room }
        if written == 0 {
            blockedWrite = true
            return .wouldBlock
        }
        return .bytes(written)
    }

    package func shutdownWrite() { writeShutDown = true }

    package func close() { closed = true }
}

private extension String {
    /// `[::1]` as `::1`.
    var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}

package import WPCSystem

/// What a ``ConnectionDriver`` may ask of the loop that runs it: the whole seam between a
/// protocol (HTTP/1.1, a line protocol, datagrams) and the event loop. ``Reactor`` is the loop
/// of a running server (epoll, sockets, a thread of its own); ``InMemoryLoop`` is one with no
/// socket and no thread, for tests that drive a protocol byte by byte and move its clock by hand.
///
/// Every member but ``complete(_:_:)`` and the `TaskExecutor` requirement is called on the
/// loop's own thread (the driver's), never from a handler task.
package protocol ConnectionLoop<Driver>: TaskExecutor, Sendable {
    associatedtype Driver: ConnectionDriver

    /// The loop's monotonic clock in nanoseconds: every deadline a driver sets is read from it.
    var now: Int64 { get }
    /// The server's connection statistics (drivers count closes by a limit).
    var counters: ConnectionCounters { get }
    /// Read buffer shared by every connection of the loop.
    var scratch: UnsafeMutableRawBufferPointer { get }

    /// The driver the loop runs.
    var driver: Driver { get }

    /// Hands a handler's result for connection `id` to the loop. Callable from any thread.
    func complete(_ id: UInt64, _ completion: Driver.Completion)
    /// Drives the connection again on the loop's next turn, after the other connections had theirs.
    func readNextTurn(_ connection: Driver.Connection)
    /// Starts TLS on a connection; `false` when the listener has no certificate or no session
    /// could be made.
    func startTLS(_ connection: Driver.Connection) -> Bool
    /// Whether the connection is still in the loop's table.
    func isOpen(_ connection: Driver.Connection) -> Bool
    /// Closes the connection and forgets it (cancelling its handler task). Safe to call twice.
    func close(_ connection: Driver.Connection)

    /// A datagram listener's next waiting datagram, read into `buffer`; `nil` when none waits
    /// or the listener is closed. Its ``ReceivedDatagram/length`` may exceed the buffer's (truncated).
    func receiveDatagram(into buffer: UnsafeMutableRawBufferPointer) -> ReceivedDatagram?
    /// Sends one datagram from the listener to `peer`: the bytes sent (negative: an errno), or
    /// `nil` when the listener is closed.
    func sendDatagram(_ bytes: UnsafeRawBufferPointer, to peer: cs_peer) -> Int?
}

extension ConnectionLoop {
    /// What every close does once the loop has taken the connection out of its table (leaving
    /// `openConnections`): the handler task cancelled, the driver told, the count updated. The
    /// loop then closes the connection's I/O.
    package func forgetClosed(_ connection: Driver.Connection, openConnections: Int) {
        connection.task?.cancel()
        connection.task = nil
        driver.closed(connection, in: self)
        counters.update { $0.open = openConnections }
    }

    /// Reads once from the connection into `buffer`: the byte count, or `nil` when nothing more
    /// can be read now (``ReactorConnection/readable`` is then cleared) or the connection ended
    /// (then it is closed: ``isOpen(_:)`` says which).
    package func read(_ connection: Driver.Connection, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch connection.io.read(into: buffer) {
        case .bytes(let count):
            return count
        case .wouldBlock:
            connection.readable = false
            return nil
        case .endOfStream, .failed:
            close(connection)
            return nil
        }
    }
}

/// One datagram as a datagram listener received it.
package struct ReceivedDatagram {
    /// Its whole length: more than the buffer's when it was truncated.
    package var length: Int
    package var peer: cs_peer
    /// The sender as `ip:port` (`[ip6]:port`).
    package var remote: String
    /// The kernel's cumulative count of datagrams it dropped on the socket (32 bits, wrapping),
    /// or -1 when it did not say.
    package var kernelDrops: Int64

    package init(length: Int, peer: cs_peer, remote: String, kernelDrops: Int64) {
        self.length = length
        self.peer = peer
        self.remote = remote
        self.kernelDrops = kernelDrops
    }
}

import Testing
import WPTestThreads
import WPLogging
@testable import WPServer
import WPServerTesting

/// The HTTP/1.1 driver byte by byte on an ``InMemoryLoop``: no socket, no thread; time moves
/// only when a test moves it, so every timeout is checked on both sides of its deadline.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct InMemoryHTTPTests {
    private func makeLoop(scratchBytes: Int = 64 * 1024, handler: any HTTPHandler = EchoHandler(),
                          observer: (any RequestObserver)? = nil,
                          _ change: (inout WPHTTPServer.Configuration) -> Void = { _ in }) -> InMemoryLoop<HTTPConnectionDriver> {
        let driver = HTTPConnectionDriver(configuration: configuration(change), handler: handler, observer: observer,
                                          logger: LogWaiter().logger())
        return InMemoryLoop(driver: driver, scratchBytes: scratchBytes)
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aRequestSentOneByteAtATimeIsAnsweredOnceWhole() async {
        let loop = makeLoop(scratchBytes: 7)
        let connection = loop.connect()
        let request = Array(get("/split").utf8)
        for byte in request.dropLast() {
            loop.send([byte], on: connection)
            #expect(!loop.driver.isHandling(connection), "no handler before the head's last byte")
        }
        #expect(loop.takeWritten(from: connection).isEmpty)
        loop.send([request.last!], on: connection)
        #expect(loop.driver.isHandling(connection))
        await loop.awaitCompletions()
        let answer = text(loop.takeWritten(from: connection))
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.hasSuffix("\r\n\r\nGET /split "))
        #expect(loop.isOpen(connection), "keep-alive")
    }

    @Test func pipelinedRequestsInOneSegmentAreAnsweredInOrder() async {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.send(Array((get("/a") + "POST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nxyz" + get("/c")).utf8), on: connection)
        var answers = ""
        for _ in 0..<3 {
            await loop.awaitCompletions()
            answers += text(loop.takeWritten(from: connection))
        }
        let bodies = answers.split(separator: "HTTP/1.1 200 OK\r\n").map { $0.split(separator: "\r\n\r\n", maxSplits: 1).last.map(String.init) }
        #expect(bodies == ["GET /a ", "POST /b xyz", "GET /c "])
    }

    @Test func anUnfinishedHeadGets408AtItsDeadlineAndNotBefore() {
        let loop = makeLoop { $0.headTimeout = .seconds(10) }
        let connection = loop.connect()
        loop.send(Array("GET /slowloris HTTP/1.1\r\nHost: t\r\n".utf8), on: connection)
        loop.advance(by: .seconds(9))
        #expect(loop.isOpen(connection))
        #expect(loop.takeWritten(from: connection).isEmpty)
        loop.advance(by: .seconds(1))
        #expect(!loop.isOpen(connection))
        #expect(text(loop.takeWritten(from: connection)).hasPrefix("HTTP/1.1 408 "))
        #expect(loop.counters.current.open == 0)
    }

    @Test func anUnfinishedBodyGets408AtTheBodyTimeoutCountedFromTheHeadsEnd() {
        let loop = makeLoop { $0.bodyTimeout = .seconds(30) }
        let connection = loop.connect()
        loop.send(Array("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc".utf8), on: connection)
        loop.advance(by: .seconds(20))
        loop.send(Array("de".utf8), on: connection)
        loop.advance(by: .milliseconds(9_999))
        #expect(loop.isOpen(connection), "a part of the body does not restart the timeout")
        #expect(loop.takeWritten(from: connection).isEmpty)
        loop.advance(by: .milliseconds(1))
        #expect(text(loop.takeWritten(from: connection)).hasPrefix("HTTP/1.1 408 "))
        #expect(!loop.isOpen(connection))
    }

    @Test func theRequestTimeoutBoundsHeadAndBodyTogether() {
        let recorder = EventRecorder()
        let loop = makeLoop(observer: recorder) {
            $0.headTimeout = .seconds(3600)
            $0.bodyTimeout = .seconds(3600)
            $0.requestTimeout = .seconds(5)
        }
        let connection = loop.connect()
        loop.send(Array("POST /echo HTTP/1.1\r\nHost: t\r\n".utf8), on: connection)
        loop.advance(by: .seconds(3))
        loop.send(Array("Content-Length: 10\r\n\r\nabc".utf8), on: connection)
        loop.advance(by: .milliseconds(1_999))
        #expect(loop.isOpen(connection))
        loop.advance(by: .milliseconds(1))
        #expect(text(loop.takeWritten(from: connection)).hasPrefix("HTTP/1.1 408 "))
        #expect(recorder.all.map(\.status) == [408])
    }

    @Test func anIdleKeepAliveConnectionClosesAtTheIdleTimeout() async {
        let loop = makeLoop { $0.idleTimeout = .seconds(60) }
        let connection = loop.connect()
        loop.send(Array(get("/once").utf8), on: connection)
        await loop.awaitCompletions()
        #expect(text(loop.takeWritten(from: connection)).hasPrefix("HTTP/1.1 200 "))
        loop.advance(by: .seconds(59))
        #expect(loop.isOpen(connection))
        loop.advance(by: .seconds(1))
        #expect(!loop.isOpen(connection))
        #expect(loop.takeWritten(from: connection).isEmpty, "an idle close writes nothing")
    }

    @Test func aSlowReaderGetsTheWholeBodyAsItTakesIt() async {
        let loop = makeLoop()
        let connection = loop.connect()
        let io = InMemoryLoop<HTTPConnectionDriver>.io(of: connection)
        io.writeCapacity = 100
        loop.send(Array(get("/text").utf8), on: connection)
        await loop.awaitCompletions()
        var received: [UInt8] = []
        var takes = 0
        repeat {
            let chunk = loop.takeWritten(from: connection)
            #expect(chunk.count <= 100)
            received += chunk
            takes += 1
        } while connection.phase == .writing && takes < 10_000
        received += loop.takeWritten(from: connection)
        let answer = text(received)
        #expect(takes > 100, "the 10 KB body went out 100 bytes at a time")
        #expect(answer.hasSuffix(String(repeating: "wp_metric{device=\"1\"} 42\n", count: 400)))
        #expect(loop.isOpen(connection))
    }

    @Test func aPeerThatStopsReadingIsClosedAtTheWriteTimeout() async {
        let loop = makeLoop { $0.writeTimeout = .seconds(30) }
        let connection = loop.connect()
        InMemoryLoop<HTTPConnectionDriver>.io(of: connection).writeCapacity = 10
        loop.send(Array(get("/text").utf8), on: connection)
        await loop.awaitCompletions()
        loop.advance(by: .seconds(29))
        #expect(loop.isOpen(connection))
        loop.advance(by: .seconds(1))
        #expect(!loop.isOpen(connection))
        #expect(loop.counters.current.open == 0)
    }

    @Test func aResetDuringTheHandlerClosesAndDropsItsAnswer() async {
        let handler = EchoHandler()
        let loop = makeLoop(handler: handler)
        let connection = loop.connect()
        loop.send(Array(get("/slow").utf8), on: connection)
        await handler.gate.waitUntilEntered()
        loop.reset(connection)
        #expect(!loop.isOpen(connection))
        #expect(connection.task == nil, "the handler task was cancelled and forgotten")
        handler.gate.release()
        await loop.awaitCompletions()
        #expect(loop.takeWritten(from: connection).isEmpty)
    }

    @Test func aMalformedRequestIsAnswered400ThenLingersAndCloses() {
        let loop = makeLoop { $0.headTimeout = .seconds(10) }
        let connection = loop.connect()
        loop.send(Array("GARBAGE\r\n\r\n".utf8), on: connection)
        #expect(text(loop.takeWritten(from: connection)).hasPrefix("HTTP/1.1 400 "))
        #expect(InMemoryLoop<HTTPConnectionDriver>.io(of: connection).writeShutDown, "write side shut, reads drained")
        loop.send(Array(repeating: UInt8(ascii: "x"), count: 1000), on: connection)
        #expect(loop.isOpen(connection), "lingering discards what the peer still sends")
        #expect(loop.takeWritten(from: connection).isEmpty)
        loop.halfClose(connection)
        #expect(!loop.isOpen(connection))
    }

    @Test func aHalfCloseAfterARequestStillGetsItsAnswer() async {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.send(Array(get("/last").utf8), on: connection)
        loop.halfClose(connection)
        #expect(loop.isOpen(connection), "a half-close is a valid way to end a request")
        await loop.awaitCompletions()
        #expect(text(loop.takeWritten(from: connection)).hasSuffix("GET /last "))
    }

    /// HEAD: the GET's head (its Content-Length) and no body; the connection stays open.
    @Test func headAnswersTheGetsHeadWithoutItsBody() async {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.send(Array(get("/text").utf8), on: connection)
        await loop.awaitCompletions()
        let full = text(loop.takeWritten(from: connection))
        loop.send(Array("HEAD /text HTTP/1.1\r\nHost: t\r\n\r\n".utf8), on: connection)
        await loop.awaitCompletions()
        let head = text(loop.takeWritten(from: connection))
        let fullHead = full.split(separator: "\r\n\r\n", maxSplits: 1).first.map(String.init) ?? ""
        // The same head but for its Date (the two answers may fall in different seconds), no body.
        func withoutDate(_ text: String) -> String {
            text.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
        }
        #expect(head.hasSuffix("\r\n\r\n"))
        #expect(withoutDate(head) == withoutDate(fullHead + "\r\n\r\n"), "the same head, no body")
        #expect(head.contains("\r\nDate: "))
        #expect(fullHead.contains("Content-Length: \(String(repeating: "wp_metric{device=\"1\"} 42\n", count: 400).utf8.count)"))
        #expect(loop.isOpen(connection))
    }

    /// A chunked request body, its chunks split across reads, extensions and a trailer: the
    /// handler gets the body decoded.
    @Test func aChunkedBodyIsDecodedWhateverTheSegments() async {
        let loop = makeLoop(scratchBytes: 5)
        let connection = loop.connect()
        let request = "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4;note=x\r\nwp-e\r\n6\r\nxporte\r\n1\r\nr\r\n0\r\nX-Trailer: 1\r\n\r\n"
        for piece in Array(request.utf8).chunked(into: 3) { loop.send(piece, on: connection) }
        await loop.awaitCompletions()
        #expect(text(loop.takeWritten(from: connection)).hasSuffix("\r\n\r\nPOST /upload wp-exporter"))
        #expect(loop.isOpen(connection))
    }

    /// A body announced past `maxBodyBytes` is answered 413 before it is read (the handler never
    /// runs), then the connection lingers and closes.
    @Test func aBodyPastTheLimitIs413BeforeTheHandler() {
        let loop = makeLoop { $0.maxBodyBytes = 10 }
        let connection = loop.connect()
        loop.send(Array("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n".utf8), on: connection)
        #expect(!loop.driver.isHandling(connection))
        let answer = text(loop.takeWritten(from: connection))
        #expect(answer.hasPrefix("HTTP/1.1 413 "), "\(answer)")
        #expect(!answer.contains("POST /upload"))
        loop.halfClose(connection)
        #expect(!loop.isOpen(connection))
    }

    /// `Connection: close` ends a kept-alive connection after its answer.
    @Test func connectionCloseEndsTheConnectionAfterTheAnswer() async {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.send(Array(get("/first").utf8), on: connection)
        await loop.awaitCompletions()
        #expect(text(loop.takeWritten(from: connection)).hasSuffix("GET /first "))
        #expect(loop.isOpen(connection))
        loop.send(Array(get("/last", "Connection: close\r\n").utf8), on: connection)
        await loop.awaitCompletions()
        let answer = text(loop.takeWritten(from: connection))
        #expect(answer.contains("Connection: close"), "\(answer)")
        #expect(answer.hasSuffix("GET /last "))
        #expect(!loop.isOpen(connection), "closed after the answer")
    }
}

private extension Array {
    /// The array in pieces of `size` (the last one shorter).
    func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

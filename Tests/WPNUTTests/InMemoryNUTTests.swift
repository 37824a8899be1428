import Testing
import WPTestThreads
import WPNUT
@testable import WPServer
import WPServerTesting

/// The NUT server's line driver byte by byte on an ``InMemoryLoop``: no socket, no thread, and
/// a clock the test moves, so each timeout is checked just before and at its deadline.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct InMemoryNUTTests {
    typealias Loop = InMemoryLoop<LineConnectionDriver<NUTProtocol>>

    private func makeLoop(scratchBytes: Int = 64 * 1024) -> Loop {
        let environment = NUTSessionTests.environment([NUTSessionTests.ups("rack-a", status: "OB")])
        let configuration = LineServer<NUTProtocol>.Configuration(host: "127.0.0.1", port: 0, maxLineLength: 64,
                                                                  lineTimeout: .seconds(10), idleTimeout: .seconds(300),
                                                                  writeTimeout: .seconds(10))
        let driver = LineConnectionDriver(configuration: configuration, protocol: NUTProtocol(environment: environment),
                                          lines: LineCount())
        return Loop(driver: driver, scratchBytes: scratchBytes)
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func pipelinedLinesSplitAnywhereAreAnsweredOneAtATimeInOrder() async {
        let loop = makeLoop(scratchBytes: 3)
        let connection = loop.connect()
        let lines = Array("GET VAR rack-a ups.status\r\nGET VAR rack-a battery.charge\nVER\n".utf8)
        // Split mid-line and mid-CRLF; the driver hands the protocol one line, then waits.
        loop.send(lines[..<5], on: connection)
        #expect(!loop.driver.isHandling(connection))
        loop.send(lines[5..<26], on: connection)
        #expect(!loop.driver.isHandling(connection), "CR without LF is not a line's end")
        loop.send(lines[26...], on: connection)
        #expect(loop.driver.isHandling(connection))
        var replies = ""
        while replies.split(separator: "\n").count < 3 {
            await loop.awaitCompletions()
            replies += text(loop.takeWritten(from: connection))
        }
        let answered = replies.split(separator: "\n").map(String.init)
        #expect(answered[0] == "VAR rack-a ups.status \"OB\"")
        #expect(answered[1] == "VAR rack-a battery.charge \"100\"")
        #expect(answered[2].hasPrefix("Network UPS Tools upsd"))
        #expect(!loop.driver.isHandling(connection))
    }

    @Test func aLineOverTheLimitIsRefusedAndClosed() {
        let loop = makeLoop(scratchBytes: 16)
        let connection = loop.connect()
        loop.send(Array(repeating: UInt8(ascii: "A"), count: 64), on: connection)
        #expect(loop.isOpen(connection), "64 bytes and no newline yet may still be a line")
        #expect(loop.takeWritten(from: connection).isEmpty)
        loop.send([UInt8(ascii: "A")], on: connection)
        #expect(text(loop.takeWritten(from: connection)) == "ERR TOO-LONG\n")
        #expect(!loop.isOpen(connection))
    }

    @Test func aPartialLineTimesOutAtTheLineTimeoutAndNotBefore() {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.send(Array("LIST U".utf8), on: connection)
        loop.advance(by: .milliseconds(9_999))
        #expect(loop.isOpen(connection))
        loop.advance(by: .milliseconds(1))
        #expect(!loop.isOpen(connection))
        #expect(loop.counters.current.closedByLimits == 1)
    }

    @Test func anIdleConnectionIsClosedAtTheIdleTimeoutAndALineResetsIt() async {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.advance(by: .seconds(200))
        loop.send(Array("VER\n".utf8), on: connection)
        await loop.awaitCompletions()
        #expect(!loop.takeWritten(from: connection).isEmpty)
        loop.advance(by: .seconds(299))
        #expect(loop.isOpen(connection), "the line 299 s ago restarted the idle timeout")
        loop.advance(by: .seconds(1))
        #expect(!loop.isOpen(connection))
    }

    @Test func logoutIsAnsweredThenClosed() async {
        let loop = makeLoop()
        let connection = loop.connect()
        loop.send(Array("LOGOUT\n".utf8), on: connection)
        await loop.awaitCompletions()
        #expect(text(loop.takeWritten(from: connection)).hasPrefix("OK Goodbye"))
        #expect(!loop.isOpen(connection))
    }

    @Test func aReplyThePeerDoesNotTakeIsClosedAtTheWriteTimeout() async {
        let loop = makeLoop()
        let connection = loop.connect()
        Loop.io(of: connection).writeCapacity = 4
        loop.send(Array("HELP\n".utf8), on: connection)
        await loop.awaitCompletions()
        #expect(text(loop.takeWritten(from: connection)) == "Comm", "four bytes, then the peer took no more")
        loop.advance(by: .milliseconds(9_999))
        #expect(loop.isOpen(connection))
        loop.advance(by: .milliseconds(1))
        #expect(!loop.isOpen(connection))
    }
}

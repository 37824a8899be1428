package import WPServer

/// The NUT network protocol as a `LineProtocol`: what a `LineServer` serves on the NUT port.
/// Each connection is a ``NUTSession``; a connection logged into a UPS (an `upsmon`), or one
/// whose user passed a password check, is protected when the server is full, so a flood of
/// idle connections cannot cut a monitor off; one that had a useful command answered
/// (``NUTSession/wasServed``) makes room only after every connection that had none.
package struct NUTProtocol: LineProtocol {
    package let environment: NUTSession.Environment

    package init(environment: NUTSession.Environment) {
        self.environment = environment
    }

    package func open(remote: String) -> NUTSession { NUTSession(client: remote) }

    package func handle(_ line: [UInt8], session: inout NUTSession) async -> LineReply {
        let (reply, action) = await session.handle(line, environment)
        let then: LineReply.Then = switch action {
        case .none: .continue
        case .close: .close
        case .startTLS: .startTLS
        }
        return LineReply(Array(reply.text.utf8), then: then)
    }

    package func isProtected(_ session: NUTSession) -> Bool { session.loggedInto != nil || session.isAuthenticated }

    package func isEstablished(_ session: NUTSession) -> Bool { session.wasServed }

    package func close(_ session: NUTSession) { session.end(environment) }

    package var tooLongReply: [UInt8] { Array("ERR TOO-LONG\n".utf8) }
}

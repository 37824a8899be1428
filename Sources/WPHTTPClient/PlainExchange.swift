import WPRuntime
/// One `http://` exchange on POSIX sockets: take or open a connection, write the request,
/// read the response, park the connection when it can be reused.
struct PlainExchange {
    let request: HTTPClientRequest
    let target: RequestTarget
    let configuration: HTTPClient.Configuration
    let deadline: Deadline
    let cancellation: ExchangeCancellation
    let pool: ConnectionPool
    let resolver: HostResolver

    private enum Outcome {
        case response(HTTPClientResponse)
        /// The connection failed (closed, reset) before any response byte arrived.
        case failedBeforeResponse(HTTPClientError)
    }

    func run() throws(HTTPClientError) -> HTTPClientResponse {
        let bytes = try RequestEncoder.encode(request, target: target, userAgent: configuration.userAgent)
        if let reused = pool.take(target.poolKey) {
            switch try exchange(bytes, on: reused) {
            case .response(let response): return response
            case .failedBeforeResponse: break // closed by the server while idle: once more, fresh
            }
        }
        let fresh = try ClientSocket.connect(host: target.host, port: target.port, deadline: deadline,
                                             cancellation: cancellation, resolver: resolver)
        switch try exchange(bytes, on: fresh) {
        case .response(let response): return response
        case .failedBeforeResponse(let error): throw error
        }
    }

    /// Sends `bytes` on `socket` and reads the response; the socket is parked or closed.
    private func exchange(_ bytes: [UInt8], on socket: ClientSocket) throws(HTTPClientError) -> Outcome {
        cancellation.attach(socket.descriptor)
        var reader = ResponseReader(source: SocketSource(socket: socket, deadline: deadline,
                                                         cancellation: cancellation, authority: target.authority),
                                    maxHeadBytes: configuration.maxHeadBytes, maxBodyBytes: configuration.maxBodyBytes)
        do throws(HTTPClientError) {
            try socket.write(bytes, deadline: deadline, cancellation: cancellation, authority: target.authority)
            let parsed = try reader.read(method: request.method)
            cancellation.detach(socket.descriptor)
            if parsed.reusable && !cancellation.isCancelled {
                pool.park(socket, for: target.poolKey)
            } else {
                socket.close()
            }
            return .response(parsed.response)
        } catch {
            socket.close(detachingFrom: cancellation)
            if error.kind == .network && !reader.receivedAny { return .failedBeforeResponse(error) }
            throw error
        }
    }
}

/// A connected socket as a ``ByteSource`` for ``ResponseReader``.
struct SocketSource: ByteSource {
    let socket: ClientSocket
    let deadline: Deadline
    let cancellation: ExchangeCancellation
    let authority: String

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Int {
        try socket.read(into: buffer, deadline: deadline, cancellation: cancellation, authority: authority)
    }
}

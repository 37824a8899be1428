#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FoundationEssentials
import Synchronization
import Testing
import WPTestThreads
@testable import WPHTTPClient

/// The client's own threads: exchanges that hang hold only their client's threads, never the
/// Swift concurrency pool, more requests than threads wait in order, and joined host-name
/// lookups hold one `dns` thread per name. Hung exchanges are released at the end (server
/// stopped, lookup released, task cancelled); deadlines are upper bounds that never fire.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ClientThreadsTests {
    /// More requests than the machine has cores, so blocking the pool would show.
    static let crowd = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) + 2

    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    static func request(_ port: Int, _ path: String = "/", host: String = "127.0.0.1") throws -> HTTPClientRequest {
        HTTPClientRequest(url: try #require(URL(string: "http://\(host):\(port)\(path)")), timeout: .seconds(300))
    }

    static func client(maxThreads: Int, idleTime: Duration = .seconds(300),
                       resolver: HostResolver = .system) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.maxThreads = maxThreads
        configuration.threadIdleTime = idleTime
        return HTTPClient(configuration: configuration, resolver: resolver)
    }

    /// How a request ended.
    enum Outcome: Equatable, Sendable {
        case success(Int)
        case failure(HTTPClientError.Kind)
    }

    /// The outcome of sending `request`: the status, or the error's kind.
    static func outcome(_ client: HTTPClient, _ request: HTTPClientRequest) async -> Outcome {
        do {
            return .success(try await client.send(request).status)
        } catch {
            return .failure(error.kind)
        }
    }

    /// Proves the Swift concurrency pool still runs work: many trivial child tasks, awaited.
    static func cooperativePoolRuns() async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for index in 0..<(crowd * 8) { group.addTask { index % 7 } }
            return await group.reduce(0, +)
        }
    }

    /// The names of this process's threads, from /proc/self/task/*/comm.
    static func threadNames() -> [String] {
        guard let directory = opendir("/proc/self/task") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let task = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard task.first?.isNumber == true else { continue }
            let descriptor = open("/proc/self/task/\(task)/comm", O_RDONLY)
            guard descriptor >= 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(descriptor, &buffer, buffer.count)
            close(descriptor)
            if count > 0 { names.append(String(decoding: buffer[..<count], as: UTF8.self).filter { $0 != "\n" }) }
        }
        return names
    }

    /// Yields until `condition` holds (the suite's time limit bounds the wait).
    static func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test func exchangesHangingOnMoreThreadsThanCoresLeaveTheSwiftPoolAndOtherClientsFree() async throws {
        let hung = try RawServer { _, _, _ in .silence } // accepts and reads, never answers
        let healthy = try RawServer { _, _, _ in .send(Self.ok) }
        let hungClient = Self.client(maxThreads: Self.crowd)
        let request = try Self.request(hung.port)
        let pending = (0..<Self.crowd).map { _ in Task { await Self.outcome(hungClient, request) } }
        var arrived = hung.requests.makeAsyncIterator()
        for _ in 0..<Self.crowd { _ = await arrived.next() } // every exchange is blocked in a read

        #expect(hungClient.threads.threadCount == Self.crowd)
        #expect(Self.threadNames().filter { $0 == "http-client" }.count >= Self.crowd)
        #expect(await Self.cooperativePoolRuns() == (0..<(Self.crowd * 8)).reduce(0) { $0 + $1 % 7 })
        let other = Self.client(maxThreads: 1)
        #expect(await Self.outcome(other, try Self.request(healthy.port)) == .success(200))

        await hung.stop() // shuts the silent connections down: each exchange ends
        for task in pending { #expect(await task.value == .failure(.network)) }
        await healthy.stop()
    }

    @Test func requestsBeyondMaxThreadsWaitInOrderForTheirClientsThreads() async throws {
        // The first connection never answers; later ones answer every request.
        let server = try RawServer { connection, _, _ in connection == 1 ? .silence : .send(Self.ok) }
        let client = Self.client(maxThreads: 1)
        let first = Task { await Self.outcome(client, try Self.request(server.port, "/first")) }
        var arrived = server.requests.makeAsyncIterator()
        #expect(await arrived.next()?.head.hasPrefix("GET /first ") == true)
        var waiting: [Task<Outcome, any Error>] = []
        for (index, path) in ["/second", "/third", "/fourth"].enumerated() {
            waiting.append(Task { await Self.outcome(client, try Self.request(server.port, path)) })
            await Self.until { client.threads.waitingCount == index + 1 }
        }
        #expect(client.threads.threadCount == 1)

        first.cancel() // frees the one thread; the waiting requests run on it in turn
        #expect(try await first.value == .failure(.cancelled))
        for task in waiting { #expect(try await task.value == .success(200)) }
        var order: [String] = []
        for _ in 0..<3 { if let head = await arrived.next()?.head { order.append(String(head.split(whereSeparator: \.isNewline).first ?? "")) } }
        #expect(order == ["GET /second HTTP/1.1", "GET /third HTTP/1.1", "GET /fourth HTTP/1.1"])
        #expect(client.threads.threadCount == 1)
        await server.stop()
    }

    @Test func aRequestCancelledWhileWaitingForAThreadEndsAtOnce() async throws {
        let server = try RawServer { _, _, _ in .silence }
        let client = Self.client(maxThreads: 1)
        let hanging = Task { await Self.outcome(client, try Self.request(server.port)) }
        var arrived = server.requests.makeAsyncIterator()
        _ = await arrived.next()
        let queued = Task { await Self.outcome(client, try Self.request(server.port)) }
        await Self.until { client.threads.waitingCount == 1 }
        queued.cancel()
        #expect(try await queued.value == .failure(.cancelled)) // while the first still hangs
        #expect(client.threads.waitingCount == 0)
        #expect(server.acceptedConnections == 1)
        await server.stop()
        #expect(try await hanging.value == .failure(.network))
    }

    @Test func aRequestStillWaitingForAThreadAtItsDeadlineTimesOut() async throws {
        let server = try RawServer { _, _, _ in .silence }
        let client = Self.client(maxThreads: 1)
        let hanging = Task { await Self.outcome(client, try Self.request(server.port)) }
        var arrived = server.requests.makeAsyncIterator()
        _ = await arrived.next()
        var late = try Self.request(server.port, "/late?token=secret")
        late.timeout = .milliseconds(100)
        do {
            _ = try await client.send(late)
            Issue.record("expected a timeout")
        } catch {
            #expect(error.kind == .timeout)
            #expect(error.detail == "timed out waiting for a thread to reach 127.0.0.1:\(server.port): all 1 of the client's are busy")
        }
        #expect(client.threads.waitingCount == 0)
        #expect(server.acceptedConnections == 1) // the late request never left
        await server.stop()
        #expect(try await hanging.value == .failure(.network))
    }

    @Test func idleThreadsEnd() async throws {
        let server = try RawServer { _, _, _ in .send(Self.ok) }
        let client = Self.client(maxThreads: 4, idleTime: .zero)
        #expect(await Self.outcome(client, try Self.request(server.port)) == .success(200))
        await Self.until { client.threads.threadCount == 0 }
        #expect(await Self.outcome(client, try Self.request(server.port)) == .success(200)) // started anew
        await server.stop()
    }

    /// A lookup that blocks its thread until released, counting its calls.
    final class BlockingLookup: Sendable {
        let release = DispatchSemaphore(value: 0)
        let answer: Int
        private let calls = Mutex<[String]>([])
        var hosts: [String] { calls.withLock { $0 } }

        init(answeringWithPort port: Int) { answer = port }

        var resolver: HostResolver {
            HostResolver { host, _ in
                self.calls.withLock { $0.append(host) }
                self.release.wait()
                return HostResolver.systemLookup(host: "127.0.0.1", port: self.answer)
            }
        }
    }

    @Test func concurrentLookupsOfOneNameJoinOneDNSThreadAndLeaveThePoolsFree() async throws {
        let server = try RawServer { _, _, _ in .send(Self.ok) }
        let lookup = BlockingLookup(answeringWithPort: server.port)
        let resolver = lookup.resolver
        let client = Self.client(maxThreads: Self.crowd, resolver: resolver)
        let request = try Self.request(server.port, host: "ups.example")
        let pending = (0..<Self.crowd).map { _ in Task { await Self.outcome(client, request) } }
        await Self.until { resolver.waitingExchanges == Self.crowd && !lookup.hosts.isEmpty }

        #expect(lookup.hosts == ["ups.example"])
        #expect(resolver.lookupsInFlight == 1)
        #expect(Self.threadNames().filter { $0 == "dns" }.count >= 1)
        #expect(await Self.cooperativePoolRuns() == (0..<(Self.crowd * 8)).reduce(0) { $0 + $1 % 7 })
        let other = Self.client(maxThreads: 1)
        #expect(await Self.outcome(other, try Self.request(server.port)) == .success(200))

        lookup.release.signal()
        for task in pending { #expect(await task.value == .success(200)) }
        #expect(lookup.hosts == ["ups.example"])
        #expect(resolver.lookupsInFlight == 0 && resolver.waitingExchanges == 0)
        await server.stop()
    }

    @Test func aLookupOutlivingItsRequestIsJoinedByTheNext() async throws {
        let server = try RawServer { _, _, _ in .send(Self.ok) }
        let lookup = BlockingLookup(answeringWithPort: server.port)
        let resolver = lookup.resolver
        let client = Self.client(maxThreads: 2, resolver: resolver)
        let request = try Self.request(server.port, host: "ups.example")
        let abandoned = Task { await Self.outcome(client, request) }
        await Self.until { resolver.waitingExchanges == 1 && !lookup.hosts.isEmpty }
        abandoned.cancel()
        #expect(await abandoned.value == .failure(.cancelled))
        #expect(resolver.lookupsInFlight == 1 && resolver.waitingExchanges == 0) // still hung, nobody waits

        let next = Task { await Self.outcome(client, request) }
        await Self.until { resolver.waitingExchanges == 1 }
        #expect(lookup.hosts == ["ups.example"]) // joined, not looked up again
        lookup.release.signal()
        #expect(await next.value == .success(200))
        await server.stop()
    }
}

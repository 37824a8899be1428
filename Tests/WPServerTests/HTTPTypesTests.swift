import Testing
import WPTestThreads
import WPServer

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HTTPTypesTests {
    @Test func headersAreCaseInsensitiveAndKeepRepeats() {
        var headers: WPHTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        headers.set(name: "X-A", value: "3")
        #expect(headers.values(for: "x-a") == ["3"])
        #expect(headers["Content-Typf"] == nil)
    }

    @Test func requestSplitsPathAndDecodesQuery() {
        let request = WPHTTPRequest(method: "GET", target: "/api/v1/list?current=2&name=a+b%2Fc&bad=%zz&flag")
        #expect(request.path == "/api/v1/list")
        #expect(request.queryValue("current") == "2")
        #expect(request.queryValue("name") == "a b/c")
        #expect(request.queryValue("bad") == "%zz")
        #expect(request.queryValue("flag") == "")
        #expect(WPHTTPRequest(method: "GET", target: "/x").query == nil)
    }

    @Test func codecParsesAndEncodesBytes() throws {
        let bytes = Array("GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\nGET".utf8)
        let (request, consumed) = try #require(try HTTPCodec.parseRequest(bytes))
        #expect(request.path == "/a" && consumed == bytes.count - 3)
        #expect(try HTTPCodec.parseRequest(Array("GET / HT".utf8)) == nil)
        #expect(throws: HTTPParseError(status: 400, reason: "HTTP/1.1 request without Host header")) {
            try HTTPCodec.parseRequest(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        }
        let wire = HTTPCodec.encode(.text("ok"), keepAlive: false, date: "D")
        #expect(String(decoding: wire, as: UTF8.self)
            == "HTTP/1.1 200 OK\r\nDate: D\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    }
}

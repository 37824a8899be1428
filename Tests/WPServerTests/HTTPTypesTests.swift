import Testing
import WPServer

@Suite struct HTTPTypesTests {
    @Test func headersAreCaseInsensitiveAndKeepRepeats() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        headers.set(name: "X-A", value: "3")
        #expect(headers.values(for: "x-a") == ["3"])
        #expect(headers["Content-Typf"] == nil)
    }

    @Test func requestSplitsPathAndDecodesQuery() {
        let request = HTTPRequest(method: "GET", target: "/api/v1/list?current=2&name=a+b%2Fc&bad=%zz&flag")
        #expect(request.path == "/api/v1/list")
        #expect(request.queryValue("current") == "2")
        #expect(request.queryValue("name") == "a b/c")
        #expect(request.queryValue("bad") == "%zz")
        #expect(request.queryValue("flag") == "")
        #expect(HTTPRequest(method: "GET", target: "/x").query == nil)
    }
}

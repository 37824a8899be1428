import Foundation
import Testing
import WPServer
import WPSimulator
import WPTestSupport

func loginRequest(username: String = "admin", password: String = "s3cr3t-Pa55") -> WPHTTPRequest {
    WPHTTPRequest(method: "POST", target: "/api/v1/auth/login",
                headers: ["Content-Type": "application/json", "Accept": "application/json, text/plain, */*",
                          "Content-language": "en"],
                body: Array(#"{"username":"\#(username)","password":"\#(password)"}"#.utf8))
}

func listRequest(token: String?, page: Int = 1, pageSize: Int = 100) -> WPHTTPRequest {
    var headers: WPHTTPHeaders = ["Accept": "application/json, text/plain, */*", "Content-language": "zh-CN"]
    if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
    return WPHTTPRequest(method: "GET", target: "/api/v1/deviceData/detail/list?current=\(page)&pageSize=\(pageSize)"
                           + "&areaId=00000000-0000-0000-0000-000000000000&includeSubArea=true&pageNum=\(page)&deviceType=1",
                       headers: headers)
}

/// The body parsed by Foundation (independently of the client's decoder).
func json(_ response: WPHTTPResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
}

/// Logs in and returns the token.
func token(_ simulator: WinPowerSimulator) async throws -> String {
    let response = try await simulator.handle(loginRequest())
    let data = try #require(try json(response)["data"] as? [String: Any])
    return try #require(data["token"] as? String)
}

/// The decoded JSON of segment `index` of a three-segment JWT (0 header, 1 payload).
func jwtPayload(_ token: String, segment index: Int = 1) throws -> [String: Any] {
    let segments = token.split(separator: ".")
    #expect(segments.count == 3)
    var base64 = String(segments[index]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    let data = try #require(Data(base64Encoded: base64))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

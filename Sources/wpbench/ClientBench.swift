import WPHTTPClient
import Foundation
import WPClient
import WPLogging
import WPSimulator

/// Benchmark scenarios for the Client area.
enum ClientBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "client.decode-1000", summary: "decode one device-list page of 1,000 devices (goal ≤ 15 ms, ≤ 30 MB RSS)") {
            try decode(devices: 1000, iterations: 50)
        },
        Scenario(name: "client.fetch-1000", summary: "fetchDevices over 50 pages of 20 (1,000 devices), canned responses") {
            try await fetch(devices: 1000, pageSize: 20, iterations: 20)
        },
    ]

    /// A device-list body as the simulator renders it.
    static func listBody(devices: ArraySlice<SimulatedDevice>, total: Int, pageSize: Int, page: Int) -> [UInt8] {
        let objects = devices.map { $0.json(at: 1234.5) }.joined(separator: ",")
        return Array(("{\"total\":\(total),\"pageSize\":\(pageSize),\"currentPage\":\(page),\"data\":[\(objects)],"
                      + "\"code\":\"000000\",\"msg\":\"OK\"}").utf8)
    }

    static func decode(devices count: Int, iterations: Int) throws {
        let devices = (0..<count).map(SimulatedDevice.init(index:))
        let body = listBody(devices: devices[...], total: count, pageSize: count, page: 1)
        let decoder = DeviceListDecoder()
        let before = peakRSSMegabytes()
        var best = Duration.seconds(1000), samples: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let elapsed = try clock.measure {
                let page = try decoder.decodeDeviceList(body)
                guard page.devices.count == count else { throw ClientError(.decode, "expected \(count) devices") }
            }
            samples.append(elapsed)
            best = min(best, elapsed)
        }
        let afterDecode = peakRSSMegabytes()
        var foundation = Duration.seconds(1000)
        for _ in 0..<5 {
            foundation = min(foundation, clock.measure { _ = try? JSONSerialization.jsonObject(with: Data(body)) })
        }
        let median = samples.sorted()[samples.count / 2]
        print("   body \(body.count / 1024) KiB; decode best \(ms(best)) ms, median \(ms(median)) ms "
              + "(\(iterations) runs); JSONSerialization tree only: best \(ms(foundation)) ms")
        print("   peak RSS (VmHWM): \(before) MB after rendering the body, \(afterDecode) MB after decoding, "
              + "\(peakRSSMegabytes()) MB after the JSONSerialization comparison")
    }

    static func fetch(devices count: Int, pageSize: Int, iterations: Int) async throws {
        let devices = (0..<count).map(SimulatedDevice.init(index:))
        let pages = stride(from: 0, to: count, by: pageSize).enumerated().map { index, start in
            listBody(devices: devices[start..<min(start + pageSize, count)], total: count, pageSize: pageSize, page: index + 1)
        }
        let transport = CannedTransport(pages: pages)
        var configuration = WinPowerHTTPClient.Configuration(
            baseURL: URL(string: "http://bench.invalid:8081")!, username: "bench", password: "bench")
        configuration.maxPages = pages.count + 1
        let client = WinPowerHTTPClient(configuration: configuration, transport: transport, logger: .disabled)
        let clock = ContinuousClock()
        var best = Duration.seconds(1000)
        for _ in 0..<iterations {
            let elapsed = try await clock.measure {
                let readout = try await client.fetchDevices()
                guard readout.devices.count == count else { throw ClientError(.decode, "expected \(count) devices") }
            }
            best = min(best, elapsed)
        }
        print("   \(pages.count) pages; fetchDevices best \(ms(best)) ms (\(iterations) runs, login once)")
        print("   peak RSS \(peakRSSMegabytes()) MB (whole process, VmHWM)")
    }

    static func ms(_ duration: Duration) -> String {
        let (s, atto) = duration.components
        return String(format: "%.2f", Double(s) * 1000 + Double(atto) / 1e15)
    }

    /// The process's peak resident set (VmHWM) in MB, or "?" where /proc is unavailable.
    static func peakRSSMegabytes() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return "?" }
        return String(format: "%.1f", kb / 1024)
    }
}

/// Answers the login and then the pre-rendered pages by `current` (the client and collector
/// benchmarks' WinPower).
struct CannedTransport: HTTPTransport {
    let pages: [[UInt8]]

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.method == "POST" {
            return TransportResponse(status: 200, body: Array(#"{"code":"000000","message":"OK","data":{"token":"bench"}}"#.utf8))
        }
        let query = request.url.query ?? ""
        let current = query.split(separator: "&").first { $0.hasPrefix("current=") }.flatMap { Int($0.dropFirst(8)) } ?? 1
        let body = current >= 1 && current <= pages.count ? pages[current - 1] : Array(#"{"total":0,"data":[],"code":"000000"}"#.utf8)
        return TransportResponse(status: 200, body: body)
    }
}

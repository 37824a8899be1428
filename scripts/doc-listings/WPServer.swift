// parameters: authenticator: WPBasicAuthenticator, u: String, p: String, router: WPRouter, request: WPHTTPRequest, snapshot: Snapshot, chunks: [Chunk], header: [UInt8], tail: [UInt8], bytes: [UInt8], renderer: any HTTPHandler, requestMetrics: any RequestObserver, metricsHandler: any HTTPHandler, log: WPLogger, listener: any Listener
import WPLogging
import WPServer

fileprivate struct Snapshot { var gzip: [UInt8] = []; var plain: [UInt8] = [] }
fileprivate final class Storage: StableBytes {
    var stableBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
}
fileprivate struct Chunk { var storage = Storage(); var range = 0..<0 }

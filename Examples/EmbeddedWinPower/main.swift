// swift run EmbeddedWinPower           prints the service's /metrics before and after a reload
#if os(Linux)
import WPLogging

let bodies = try await EmbeddedWinPower.run(log: WPLogger(label: "service", level: .warn,
                                                        sink: StreamSink.standardError(encoder: ConsoleLogEncoder())))
print(bodies.joined(separator: "\n--- after the reload ---\n"))
#else
print("EmbeddedWinPower needs WPServer, which is Linux-only.")
#endif

import Foundation
import Synchronization
package import WPClient

/// A ``WinPowerClient`` that answers from a script, for tests of code that consumes readouts
/// (the collector, the exporter).
///
/// Each `fetchDevices()` takes the next queued result; when the queue is empty, the last
/// result repeats (or, with none ever queued, an empty readout is returned).
///
/// ```swift
/// let client = ClientStub([.success(.make(devices: [.make(id: "a", watts: 100)])),
///                          .failure(ClientError(.network, "down"))])
/// ```
package final class ClientStub: WinPowerClient {
    private struct State {
        var queue: [Result<DeviceReadout, ClientError>]
        var last: Result<DeviceReadout, ClientError>?
        var calls = 0
    }

    private let state: Mutex<State>

    package init(_ results: [Result<DeviceReadout, ClientError>] = []) {
        state = Mutex(State(queue: results))
    }

    /// Appends results to the script.
    package func enqueue(_ results: Result<DeviceReadout, ClientError>...) {
        state.withLock { $0.queue.append(contentsOf: results) }
    }

    /// How many times `fetchDevices()` was called.
    package var calls: Int { state.withLock { $0.calls } }

    package func fetchDevices() async throws -> DeviceReadout {
        let result: Result<DeviceReadout, ClientError> = state.withLock { state in
            state.calls += 1
            if !state.queue.isEmpty { state.last = state.queue.removeFirst() }
            return state.last ?? .success(DeviceReadout(devices: [], reportedTotal: 0))
        }
        return try result.get()
    }
}

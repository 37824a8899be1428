import Foundation

extension ChildProcess {
    /// The UDP port a child bound on IPv4, read from `/proc`: for a child told to listen on
    /// port 0 that does not say which port it got (snmptrapd `udp:127.0.0.1:0`), so no port is
    /// picked, released and bound again by someone else in between. `nil` while it has none.
    package func boundUDPPort() -> Int? {
        let descriptors = "/proc/\(pid)/fd"
        var sockets = Set<Substring>()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { continue }
            sockets.insert(Substring(target.dropFirst("socket:[".count).dropLast()))
        }
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
        guard let table = try? String(contentsOfFile: "/proc/\(pid)/net/udp", encoding: .utf8) else { return nil }
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, sockets.contains(fields[9]) else { continue }
            let local = fields[1].split(separator: ":")
            if local.count == 2, let port = Int(local[1], radix: 16), port != 0 { return port }
        }
        return nil
    }

    /// Waits until the child has bound a UDP port (``boundUDPPort()``), at most `limit`;
    /// looks again every 10 ms (the kernel tells no one when a process binds).
    package func waitForUDPPort(limit: Duration = .seconds(30)) async -> Int? {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while ContinuousClock.now < deadline, isRunning {
            if let port = boundUDPPort() { return port }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return boundUDPPort()
    }
}

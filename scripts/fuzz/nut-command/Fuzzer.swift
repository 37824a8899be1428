// libFuzzer target for the NUT server's command handling. Built by scripts/fuzz.sh nut-command
// together with the WPNUT sources it lists (not part of the package build).
//
// Each input is a conversation: its lines (split at \n) go in order to one session over a
// fixed UPS and user table. Every reply must be empty (a line continued by an open quote or a
// final backslash, or a parse error: upsd answers neither) or end in \n and be an error, an
// OK or one of the protocol's reply forms; nothing may crash. Whatever the input, the session
// holds at most 32 words of 512 bytes between lines.

import Dispatch
import Synchronization

/// Never holds an answer back (the fuzzer must not sleep).
private struct NoLimits: NUTFailureLimiter {
    func isSuspect(_ host: String) -> Bool { false }
    func recordFailure(of host: String) -> Duration { .zero }
    func recordSuccess(of host: String) {}
}

private struct Fleet: NUTDataSource {
    let list = [NUTUPS(name: "rack-a", description: "Rack \"A\" \\ C3K",
                       variables: [("battery.charge", "100"), ("ups.status", "OB LB")]),
                NUTUPS(name: "old", description: "stale", variables: [("ups.status", "OL")], availability: .stale),
                NUTUPS(name: "gone", description: "remembered", variables: [], availability: .driverNotConnected)]
    func upsList() -> [NUTUPS] { list }
    func ups(named name: String) -> NUTUPS? {
        let wanted = name.lowercased() == "ups" ? "rack-a" : name.lowercased()  // `ups` is an alias
        return list.first { $0.name == wanted }
    }
}

private struct Users: NUTUsers {
    func authenticate(username: String, password: String, suspect: Bool) async -> NUTUser? {
        username == "monuser" && password == "secret" ? NUTUser(name: username, role: .primary) : nil
    }
}

private let forms = ["ERR ", "OK", "VAR ", "TYPE ", "DESC ", "CMDDESC ", "UPSDESC ", "NUMLOGINS ", "BEGIN LIST ",
                     "Network UPS Tools upsd ", "1.3", "Commands: ", "OFF\n"]

private final class Box: @unchecked Sendable {
    var replies: [String] = []
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNUTCommand(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(64).map(Array.init)
    let environment = NUTSession.Environment(data: Fleet(), users: Users(), state: NUTServerState(), version: "1.0",
                                             failures: NoLimits())
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task {
        var session = NUTSession(client: "127.0.0.1:1")
        for line in lines { box.replies.append(await session.handle(line, environment).0.text) }
        session.end(environment)
        done.signal()
    }
    done.wait()
    for reply in box.replies where !reply.isEmpty {
        guard reply.hasSuffix("\n"), reply.count > 1 else { fatalError("reply without its line end: \(reply.debugDescription)") }
        guard forms.contains(where: reply.hasPrefix) else { fatalError("unexpected reply \(reply.debugDescription)") }
    }
    return 0
}

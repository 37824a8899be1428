import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPNUT
import WPServer
import WPTestSupport

/// A fixed set of UPSs; `aliases` (lower-cased alias → name) as `nut.default_ups` makes `ups`.
struct Fleet: NUTDataSource {
    var list: [NUTUPS]
    var aliases: [String: String] = [:]
    func upsList() -> [NUTUPS] { list }
    func ups(named name: String) -> NUTUPS? {
        let name = aliases[name.lowercased()] ?? name
        return list.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// Plain passwords: `monuser`/`secret` (primary), `watcher`/`pw` (secondary), `reader`/`r` (no role).
struct Users: NUTUsers {
    func authenticate(username: String, password: String, suspect: Bool) async -> NUTUser? {
        switch (username, password) {
        case ("monuser", "secret"): NUTUser(name: username, role: .primary)
        case ("watcher", "pw"): NUTUser(name: username, role: .secondary)
        case ("reader", "r"): NUTUser(name: username, role: nil)
        default: nil
        }
    }
}

/// Refuses every password, each check waiting until the test releases it; says when a check
/// started.
private final class GatedUsers: NUTUsers, Sendable {
    private let state = Mutex((calls: 0, waiting: [CheckedContinuation<Void, Never>](),
                               watchers: [(target: Int, continuation: CheckedContinuation<Void, Never>)]()))
    private let seen = Mutex(0)

    var calls: Int { state.withLock { $0.calls } }

    func authenticate(username: String, password: String, suspect: Bool) async -> NUTUser? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                state.calls += 1
                state.waiting.append(continuation)
                let calls = state.calls
                defer { state.watchers.removeAll { $0.target <= calls } }
                return state.watchers.filter { $0.target <= calls }
            }
            for watcher in ready { watcher.continuation.resume() }
        }
        return nil
    }

    /// Returns once one more check has started than this method returned for before.
    func entered() async {
        let target = seen.withLock { count in
            count += 1
            return count
        }
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.calls >= target { return true }
                state.watchers.append((target, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets the checks under way answer.
    func release() {
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTSessionTests {
    static func ups(_ name: String, status: String = "OL", stale: Bool = false) -> NUTUPS {
        NUTUPS(name: name, description: "Rack \"A\" (Santak C3K)",
               variables: [("battery.charge", "100"), ("device.model", "Santak C3K"), ("ups.status", status)],
               availability: stale ? .stale : .fresh)
    }

    static func environment(_ list: [NUTUPS], aliases: [String: String] = [:], requireLogin: Bool = false,
                            state: NUTServerState = NUTServerState()) -> NUTSession.Environment {
        NUTSession.Environment(data: Fleet(list: list, aliases: aliases), users: Users(), state: state, version: "1.0.0",
                               requireLogin: requireLogin, failures: AuthFailureTracker())
    }

    /// Sends `lines` in order and returns the replies joined.
    static func conversation(_ lines: [String], _ environment: NUTSession.Environment,
                             session: inout NUTSession) async -> String {
        var out = ""
        for line in lines { out += await session.handle(Array(line.utf8), environment).0.text }
        return out
    }

    @Test func listsAndReadsWithQuotingAndFraming() async {
        let environment = Self.environment([Self.ups("rack-a"), Self.ups("rack-b")])
        var session = NUTSession(client: "127.0.0.1:5000")
        let out = await Self.conversation(["LIST UPS", "GET VAR rack-a ups.status", "LIST VAR rack-b", "get var rack-a battery.charge"],
                                          environment, session: &session)
        #expect(out == """
            BEGIN LIST UPS
            UPS rack-a "Rack 'A' (Santak C3K)"
            UPS rack-b "Rack 'A' (Santak C3K)"
            END LIST UPS
            VAR rack-a ups.status "OL"
            BEGIN LIST VAR rack-b
            VAR rack-b battery.charge "100"
            VAR rack-b device.model "Santak C3K"
            VAR rack-b ups.status "OL"
            END LIST VAR rack-b
            VAR rack-a battery.charge "100"

            """)
    }

    /// The longest texts a configuration allows (a 32-byte name; an alias, model and server name
    /// of 256 bytes each, Chinese that pinyin makes longer, `#` that escaping doubles): every
    /// reply line fits the 511 bytes NUT's own clients read, cut without splitting an escape.
    @Test func everyReplyLineFitsWhatNUTClientsRead() async {
        let name = String(repeating: "n", count: NUTNames.maximumLength)
        let alias = String(repeating: "机房", count: 42) + String(repeating: "#", count: 200)
        let long = NUTUPS(name: name, description: alias + " (" + String(repeating: "M", count: 256) + ") on " + String(repeating: "s", count: 256),
                          variables: [("device.model", String(repeating: "#", count: 256)), ("ups.status", "OL")])
        let environment = Self.environment([long, Self.ups("rack-b")])
        var session = NUTSession(client: "c")
        let out = await Self.conversation(["LIST UPS", "GET UPSDESC \(name)", "LIST VAR \(name)", "GET VAR \(name) device.model"],
                                          environment, session: &session)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 10)
        for line in lines {
            #expect(line.utf8.count + 1 <= NUTLine.maximumReplyLine, "\(line.utf8.count + 1) bytes: \(line.prefix(40))")
            // Words as NUT splits them: the quoted value is one word, closed, and not cut mid-escape.
            var tokenizer = NUTLine.Tokenizer()
            guard case .words(let words) = tokenizer.line(Array(line.utf8)) else {
                Issue.record("not one line: \(line.prefix(60))")
                continue
            }
            #expect(words.count >= 2)
        }
        let upsLine = lines.first { $0.hasPrefix("UPS \(name) ") }
        #expect(upsLine?.hasSuffix("...\"") == true, "cut and marked as cut")
        #expect(upsLine?.utf8.count == NUTLine.maximumReplyLine - 1 || upsLine?.utf8.count == NUTLine.maximumReplyLine - 2,
                "cut at the limit (one less when an escape would cross it)")
        #expect(lines.contains("UPS rack-b \"Rack 'A' (Santak C3K)\""), "a short one untouched")
    }

    /// `LIST UPS` puts the UPSs that answer first (Home Assistant reads the first one listed),
    /// each group in the source's order.
    @Test func readableUPSsAreListedFirst() async {
        let environment = Self.environment([Self.ups("down-1", stale: true), Self.ups("rack-a"),
                                            NUTUPS(name: "gone", description: "", variables: [], availability: .driverNotConnected),
                                            Self.ups("rack-b"), Self.ups("down-2", stale: true)])
        var session = NUTSession(client: "c")
        let out = await Self.conversation(["LIST UPS"], environment, session: &session)
        let names = out.split(separator: "\n").filter { $0.hasPrefix("UPS ") }.map { $0.split(separator: " ")[1] }
        #expect(names == ["rack-a", "rack-b", "down-1", "gone", "down-2"])
    }

    @Test func errorsNameWhatWasWrong() async {
        let environment = Self.environment([Self.ups("rack-a"), Self.ups("old", stale: true)])
        var session = NUTSession(client: "c")
        let cases: [(String, String)] = [
            ("GET VAR nope ups.status", "ERR UNKNOWN-UPS\n"),
            ("GET VAR rack-a input.current", "ERR VAR-NOT-SUPPORTED\n"),
            ("GET VAR old ups.status", "ERR DATA-STALE\n"),
            ("LIST VAR old", "ERR DATA-STALE\n"),
            ("GET VAR rack-a", "ERR INVALID-ARGUMENT\n"),
            ("FROB", "ERR UNKNOWN-COMMAND\n"),
            ("SET VAR rack-a ups.status OB", "ERR USERNAME-REQUIRED\n"),
            ("LOGIN rack-a", "ERR USERNAME-REQUIRED\n"),
            ("STARTTLS", "ERR FEATURE-NOT-CONFIGURED\n"),
            ("VER extra", "ERR INVALID-ARGUMENT\n"),
            ("HELP me", "ERR INVALID-ARGUMENT\n"),
            ("LIST FOO bar", "ERR INVALID-ARGUMENT\n"),
            ("LIST VAR nope extra", "ERR UNKNOWN-UPS\n"),
            ("GET FOO rack-a", "ERR INVALID-ARGUMENT\n"),
            ("GET VAR RACK-A UPS.STATUS", "VAR RACK-A UPS.STATUS \"OL\"\n"),
            ("GET VAR rack-a ups.status extra words", "VAR rack-a ups.status \"OL\"\n"),
            ("GET VAR nope server.version", "VAR nope server.version \"1.0.0\"\n"),
            ("GET VAR nope SERVER.INFO", "VAR nope server.info \"Network UPS Tools upsd 1.0.0 - wpexporter NUT bridge\"\n"),
            ("GET VAR rack-a server.other", "ERR VAR-NOT-SUPPORTED\n"),
            ("GET DESC old ups.status", "ERR DATA-STALE\n"),
            ("GET NUMLOGINS old", "ERR DATA-STALE\n"),
            ("GET UPSDESC old", "UPSDESC old \"Rack 'A' (Santak C3K)\"\n"),
            ("LIST CLIENT old", "BEGIN LIST CLIENT old\nEND LIST CLIENT old\n"),
            ("GET TRACKING", "OFF\n"),
            ("GET TRACKING 1234", "ERR FEATURE-NOT-CONFIGURED\n"),
            ("SET TRACKING on", "ERR USERNAME-REQUIRED\n"),
            ("", "ERR UNKNOWN-COMMAND\n"),
            ("GET VAR rack-a ups.status # a comment", "VAR rack-a ups.status \"OL\"\n"),
            ("GET VAR rack-a \"ups.#status\"", ""),
            ("GET VAR \"unterminated", ""),
        ]
        for (line, reply) in cases {
            #expect(await session.handle(Array(line.utf8), environment).0.text == reply, "\(line)")
        }
    }

    /// A primary logs in, claims primary and sets FSD; the flag shows in ups.status for every
    /// client and stays, as upsd keeps it, whatever mains does afterwards; secondaries cannot
    /// set it.
    @Test func primaryAndForcedShutdown() async {
        let state = NUTServerState()
        var onBattery = Self.environment([Self.ups("rack-a", status: "OB LB")], state: state)
        var secondary = NUTSession(client: "10.0.0.2:1")
        #expect(await Self.conversation(["USERNAME watcher", "PASSWORD pw", "LOGIN rack-a", "FSD rack-a"], onBattery,
                                        session: &secondary) == "OK\nOK\nOK\nERR ACCESS-DENIED\n")
        var primary = NUTSession(client: "10.0.0.1:1")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD secret", "LOGIN rack-a", "PRIMARY rack-a", "MASTER rack-a",
                                         "GET NUMLOGINS rack-a", "FSD rack-a", "GET VAR rack-a ups.status"], onBattery,
                                        session: &primary)
                == "OK\nOK\nOK\nOK PRIMARY-GRANTED\nOK MASTER-GRANTED\nNUMLOGINS rack-a 2\nOK FSD-SET\nVAR rack-a ups.status \"FSD OB LB\"\n")
        #expect(await Self.conversation(["LIST CLIENT rack-a"], onBattery, session: &primary)
                == "BEGIN LIST CLIENT rack-a\nCLIENT rack-a 10.0.0.1\nCLIENT rack-a 10.0.0.2\nEND LIST CLIENT rack-a\n")
        onBattery = Self.environment([Self.ups("rack-a", status: "OL CHRG")], state: state)
        var reader = NUTSession(client: "10.0.0.3:1")
        #expect(await Self.conversation(["GET VAR rack-a ups.status", "LIST VAR rack-a"], onBattery, session: &reader)
                == "VAR rack-a ups.status \"FSD OL CHRG\"\nBEGIN LIST VAR rack-a\nVAR rack-a battery.charge \"100\"\n"
                + "VAR rack-a device.model \"Santak C3K\"\nVAR rack-a ups.status \"FSD OL CHRG\"\nEND LIST VAR rack-a\n",
                "mains back: FSD stays until the process restarts")
        #expect(await primary.handle(Array("LOGOUT".utf8), onBattery) == (NUTReply("OK Goodbye\n"), .close))
        #expect(state.clients(of: "rack-a") == ["10.0.0.2:1"])
    }

    /// FSD set by a primary on a UPS on mains (`upsmon -c fsd`) is kept and shown at once.
    @Test func forcedShutdownOnMains() async {
        let told = Mutex<[NUTServerState.ForcedShutdown]>([])
        let state = NUTServerState { fsd in told.withLock { $0.append(fsd) } }
        let environment = Self.environment([Self.ups("rack-a", status: "OL CHRG"), Self.ups("rack-b")], state: state)
        var primary = NUTSession(client: "10.0.0.1:1")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD secret", "FSD RACK-A", "GET VAR rack-a ups.status",
                                         "GET VAR rack-b ups.status"], environment, session: &primary)
                == "OK\nOK\nOK FSD-SET\nVAR rack-a ups.status \"FSD OL CHRG\"\nVAR rack-b ups.status \"OL\"\n")
        // Who set it is told (the exporter logs it): the UPS's own name, the user, the client.
        #expect(await Self.conversation(["FSD rack-a"], environment, session: &primary) == "OK FSD-SET\n")
        var secondary = NUTSession(client: "10.0.0.2:1")
        #expect(await Self.conversation(["USERNAME watcher", "PASSWORD pw", "FSD rack-a"], environment, session: &secondary)
                == "OK\nOK\nERR ACCESS-DENIED\n")
        #expect(told.withLock { $0 }.map { "\($0.ups) \($0.user) \($0.client) \($0.first)" } == [
            "rack-a monuser 10.0.0.1:1 true", "rack-a monuser 10.0.0.1:1 false",
        ])
    }

    /// The alias (`ups`, as `nut.default_ups` gives it) is the same UPS as its device's name:
    /// FSD set under either shows under both, logins under either count once for the UPS.
    @Test func theAliasIsTheSameUPS() async {
        let environment = Self.environment([Self.ups("rack-a", status: "OB LB"), Self.ups("rack-b")], aliases: ["ups": "rack-a"])
        var secondary = NUTSession(client: "10.0.0.2:1")
        #expect(await Self.conversation(["USERNAME watcher", "PASSWORD pw", "LOGIN ups"], environment, session: &secondary)
                == "OK\nOK\nOK\n")
        #expect(secondary.loggedInto == "rack-a")
        var primary = NUTSession(client: "10.0.0.1:1")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD secret", "LOGIN rack-a", "GET NUMLOGINS rack-a",
                                         "GET NUMLOGINS UPS", "LIST CLIENT ups", "FSD rack-a", "GET VAR ups ups.status",
                                         "GET NUMLOGINS rack-b"], environment, session: &primary)
                == "OK\nOK\nOK\nNUMLOGINS rack-a 2\nNUMLOGINS UPS 2\n"
                + "BEGIN LIST CLIENT ups\nCLIENT rack-a 10.0.0.1\nCLIENT rack-a 10.0.0.2\nEND LIST CLIENT ups\n"
                + "OK FSD-SET\nVAR ups ups.status \"FSD OB LB\"\nNUMLOGINS rack-b 0\n")
        var other = NUTSession(client: "10.0.0.3:1")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD secret", "FSD ups"], Self.environment(
            [Self.ups("rack-a"), Self.ups("rack-b")], aliases: ["ups": "rack-b"], state: NUTServerState()), session: &other)
                == "OK\nOK\nOK FSD-SET\n")
    }

    /// LOGIN needs an `upsmon` role (upsd grants it to primary and secondary users only); a
    /// role-less user still reads.
    @Test func loginNeedsAnUpsmonRole() async {
        let state = NUTServerState()
        let environment = Self.environment([Self.ups("rack-a")], requireLogin: true, state: state)
        var reader = NUTSession(client: "10.0.0.4:1")
        #expect(await Self.conversation(["USERNAME reader", "PASSWORD r", "LOGIN rack-a", "GET VAR rack-a ups.status",
                                         "GET NUMLOGINS rack-a", "PRIMARY rack-a", "FSD rack-a"], environment, session: &reader)
                == "OK\nOK\nERR ACCESS-DENIED\nVAR rack-a ups.status \"OL\"\nNUMLOGINS rack-a 0\nERR ACCESS-DENIED\nERR ACCESS-DENIED\n")
        #expect(reader.loggedInto == nil)
        #expect(state.loginCount == 0)
        #expect(reader.isAuthenticated, "a user that passed its password check is kept when the server is full")
        #expect(NUTProtocol(environment: environment).isProtected(reader))
        var guesser = NUTSession(client: "10.0.0.5:1")
        _ = await Self.conversation(["USERNAME reader", "PASSWORD wrong", "GET VAR rack-a ups.status"], environment, session: &guesser)
        #expect(!NUTProtocol(environment: environment).isProtected(guesser))
    }

    /// Values and descriptions are printable ASCII on the wire, whatever the alias or model:
    /// Chinese in pinyin, Latin letters without their diacritics.
    @Test func valuesArePrintableASCII() async {
        let ups = NUTUPS(name: "ups-3", description: "机房 UPS 3 (Santak \"C3K\")",
                         variables: [("device.model", "Büro-USV Ünïcode\\1"), ("ups.alarm", "tab\there"), ("ups.status", "OL")])
        let environment = Self.environment([ups])
        var session = NUTSession(client: "c")
        let out = await Self.conversation(["LIST UPS", "GET UPSDESC ups-3", "LIST VAR ups-3", "GET VAR ups-3 device.model"],
                                          environment, session: &session)
        #expect(out.utf8.allSatisfy { $0 == 0x0A || (0x20..<0x7F).contains($0) }, "\(out)")
        #expect(out == """
            BEGIN LIST UPS
            UPS ups-3 "jifang UPS 3 (Santak 'C3K')"
            END LIST UPS
            UPSDESC ups-3 "jifang UPS 3 (Santak 'C3K')"
            BEGIN LIST VAR ups-3
            VAR ups-3 device.model "Buro-USV Unicode/1"
            VAR ups-3 ups.alarm "tab?here"
            VAR ups-3 ups.status "OL"
            END LIST VAR ups-3
            VAR ups-3 device.model "Buro-USV Unicode/1"

            """)
    }

    /// A hostile alias and model (ESC, NUL, BEL, U+202E) reach `LIST UPS`, `GET UPSDESC` and
    /// the variables with each of those characters shown as `?`, none dropped or passed raw.
    @Test func hostileTextIsShownWithVisibleReplacements() async {
        let hostile = "evil\u{1B}[2J\u{0}\u{7}\u{202E}spu"
        let ups = NUTUPS(name: "ups-1", description: hostile,
                         variables: [("device.model", hostile), ("ups.status", "OL")])
        var session = NUTSession(client: "c")
        let out = await Self.conversation(["LIST UPS", "GET UPSDESC ups-1", "GET VAR ups-1 device.model"],
                                          Self.environment([ups]), session: &session)
        #expect(out == """
            BEGIN LIST UPS
            UPS ups-1 "evil?[2J???spu"
            END LIST UPS
            UPSDESC ups-1 "evil?[2J???spu"
            VAR ups-1 device.model "evil?[2J???spu"

            """)
    }

    /// GET TYPE answers as upsd does for read-only driver variables: NUMBER, whatever the value.
    /// A UPS remembered without readings answers reads as upsd with its driver down.
    @Test func typesAndAUPSWithoutItsDriver() async {
        var waiting = Self.ups("rack-b")
        waiting.availability = .driverNotConnected
        let environment = Self.environment([Self.ups("rack-a"), waiting])
        var session = NUTSession(client: "c")
        #expect(await Self.conversation(["GET TYPE rack-a device.model", "GET TYPE rack-a battery.charge", "GET TYPE rack-a no.such",
                                         "GET VAR rack-b ups.status", "LIST VAR rack-b", "GET NUMLOGINS rack-b",
                                         "USERNAME watcher", "PASSWORD pw", "LOGIN rack-b"], environment, session: &session)
                == "TYPE rack-a device.model NUMBER\nTYPE rack-a battery.charge NUMBER\nERR VAR-NOT-SUPPORTED\n"
                + "ERR DRIVER-NOT-CONNECTED\nERR DRIVER-NOT-CONNECTED\nERR DRIVER-NOT-CONNECTED\nOK\nOK\nOK\n")
    }

    @Test func wrongPasswordsAndRepeatedCredentials() async {
        let environment = Self.environment([Self.ups("ups")])
        var session = NUTSession(client: "c")
        #expect(await Self.conversation(["USERNAME monuser", "USERNAME again", "PASSWORD wrong", "PASSWORD again",
                                         "LOGIN ups", "PRIMARY ups"], environment, session: &session)
                == "OK\nERR ALREADY-SET-USERNAME\nOK\nERR ALREADY-SET-PASSWORD\nERR ACCESS-DENIED\nERR ACCESS-DENIED\n")
        #expect(session.failedChecks == 1, "a wrong password is checked once per connection")
    }

    /// Wrong passwords count against the client's host (not its port), as basic
    /// authentication's do; a right one clears the count.
    @Test func failedChecksAreCountedPerHost() async {
        let failures = AuthFailureTracker(threshold: 100)
        let environment = NUTSession.Environment(data: Fleet(list: [Self.ups("ups")]), users: Users(), state: NUTServerState(),
                                                 version: "1", failures: failures)
        for port in 1...3 {
            var session = NUTSession(client: "10.0.0.9:\(port)")
            _ = await Self.conversation(["USERNAME monuser", "PASSWORD guess\(port)", "LOGIN ups"], environment, session: &session)
        }
        #expect(failures.failures(of: "10.0.0.9") == 3)
        var right = NUTSession(client: "10.0.0.9:4")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD secret", "LOGIN ups"], environment, session: &right)
                == "OK\nOK\nOK\n")
        #expect(failures.failures(of: "10.0.0.9") == 0)
    }

    /// A suspect host gets one password check at a time: while one is under way, its other
    /// connections are refused without a check; another host is not held up, and the next
    /// check comes once the first ended.
    @Test func aSuspectHostGetsOneCheckAtATime() async {
        let users = GatedUsers()
        let failures = AuthFailureTracker(threshold: 1, delayStep: .milliseconds(1), maximumDelay: .milliseconds(1))
        _ = failures.recordFailure(of: "10.0.0.9")
        let environment = NUTSession.Environment(data: Fleet(list: [Self.ups("ups")]), users: users, state: NUTServerState(),
                                                 version: "1", failures: failures)
        let first = Task {
            var session = NUTSession(client: "10.0.0.9:1")
            return await Self.conversation(["USERNAME monuser", "PASSWORD guess1", "LOGIN ups"], environment, session: &session)
        }
        await users.entered()
        var second = NUTSession(client: "10.0.0.9:2")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD guess2", "LOGIN ups"], environment, session: &second)
                == "OK\nOK\nERR ACCESS-DENIED\n")
        #expect(second.failedChecks == 1)
        #expect(users.calls == 1, "refused without a check")
        users.release()
        #expect(await first.value == "OK\nOK\nERR ACCESS-DENIED\n")
        let thirdTask = Task {
            var third = NUTSession(client: "10.0.0.9:3")
            return await Self.conversation(["USERNAME monuser", "PASSWORD guess3", "LOGIN ups"], environment, session: &third)
        }
        await users.entered()
        #expect(users.calls == 2, "checked once the first check ended")
        users.release()
        #expect(await thirdTask.value == "OK\nOK\nERR ACCESS-DENIED\n")
    }

    /// With `require_login`, reads need a valid user; without, anyone may read.
    @Test func anonymousReadsAreConfigurable() async {
        var session = NUTSession(client: "c")
        let closed = Self.environment([Self.ups("ups")], requireLogin: true)
        #expect(await Self.conversation(["LIST UPS", "USERNAME reader", "GET VAR ups ups.status", "PASSWORD r",
                                         "GET VAR ups ups.status"], closed, session: &session)
                == "ERR USERNAME-REQUIRED\nOK\nERR PASSWORD-REQUIRED\nOK\nVAR ups ups.status \"OL\"\n")
    }

    /// SET and INSTCMD after credentials: upsd's checks, then what a user without rights gets.
    @Test func writesAreCheckedAsUpsdChecksThem() async {
        let environment = Self.environment([Self.ups("ups"), Self.ups("old", stale: true)])
        var session = NUTSession(client: "c")
        #expect(await Self.conversation(["USERNAME monuser", "PASSWORD secret", "SET VAR ups", "SET VAR nope x y",
                                         "SET VAR old ups.id x", "SET FOO bar", "SET TRACKING maybe", "SET TRACKING on",
                                         "GET TRACKING", "GET TRACKING 1234", "INSTCMD ups", "INSTCMD nope x",
                                         "INSTCMD ups load.off"], environment, session: &session)
                == "OK\nOK\nERR INVALID-ARGUMENT\nERR UNKNOWN-UPS\nERR DATA-STALE\nERR INVALID-ARGUMENT\n"
                + "ERR INVALID-ARGUMENT\nOK\nON\nERR UNKNOWN\nERR INVALID-ARGUMENT\nERR UNKNOWN-UPS\nERR CMD-NOT-SUPPORTED\n")
    }

    @Test func readOnlyListsAreEmptyAndWritesRefused() async {
        let environment = Self.environment([Self.ups("ups")])
        var session = NUTSession(client: "c")
        #expect(await Self.conversation(["LIST CMD ups", "LIST RW ups", "LIST ENUM ups ups.status", "LIST RANGE ups ups.status",
                                         "USERNAME monuser", "INSTCMD ups test.battery.start", "PASSWORD secret",
                                         "INSTCMD ups test.battery.start", "SET VAR ups ups.id x"],
                                        environment, session: &session)
                == """
                BEGIN LIST CMD ups
                END LIST CMD ups
                BEGIN LIST RW ups
                END LIST RW ups
                BEGIN LIST ENUM ups ups.status
                END LIST ENUM ups ups.status
                BEGIN LIST RANGE ups ups.status
                END LIST RANGE ups ups.status
                OK
                ERR PASSWORD-REQUIRED
                OK
                ERR CMD-NOT-SUPPORTED
                ERR ACCESS-DENIED

                """)
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTUserTableTests {
    @Test func plainAndBcryptPasswordsAndRoles() async throws {
        var generator = SystemRandomNumberGenerator()
        let hash = try #require(BCrypt.hash(password: "s3cret", setting: BCrypt.setting(cost: 4, using: &generator)))
        let table = NUTUserTable([NUTAccount(name: "monuser", secret: .plain("secret"), role: .primary),
                                  NUTAccount(name: "hashed", secret: .bcrypt(hash), role: .secondary),
                                  NUTAccount(name: "reader", secret: .plain("r"), role: nil)])
        #expect(await table.authenticate(username: "monuser", password: "secret", suspect: false) == NUTUser(name: "monuser", role: .primary))
        #expect(await table.authenticate(username: "monuser", password: "Secret", suspect: false) == nil)
        #expect(await table.authenticate(username: "hashed", password: "s3cret", suspect: false) == NUTUser(name: "hashed", role: .secondary))
        #expect(await table.authenticate(username: "hashed", password: hash, suspect: false) == nil, "the hash is not the password")
        #expect(await table.authenticate(username: "reader", password: "r", suspect: false) == NUTUser(name: "reader", role: nil))
        #expect(await table.authenticate(username: "nobody", password: "secret", suspect: false) == nil)
    }

    @Test func aNulInThePasswordFailsForPlainAndBcryptUsers() async throws {
        var generator = SystemRandomNumberGenerator()
        let hash = try #require(BCrypt.hash(password: "s3cret", setting: BCrypt.setting(cost: 4, using: &generator)))
        let table = NUTUserTable([NUTAccount(name: "monuser", secret: .plain("secret"), role: .primary),
                                  NUTAccount(name: "hashed", secret: .bcrypt(hash), role: .secondary)])
        #expect(await table.authenticate(username: "monuser", password: "secret\0junk", suspect: false) == nil)
        #expect(await table.authenticate(username: "hashed", password: "s3cret\0junk", suspect: false) == nil)
        #expect(await table.authenticate(username: "hashed", password: "s3cret", suspect: false) != nil)
    }

    @Test func aBcryptUsersPasswordPastSeventyTwoBytesFails() async throws {
        var generator = SystemRandomNumberGenerator()
        let longest = String(repeating: "p", count: BCrypt.maxPasswordBytes)
        let hash = try #require(BCrypt.hash(password: longest, setting: BCrypt.setting(cost: 4, using: &generator)))
        let table = NUTUserTable([NUTAccount(name: "hashed", secret: .bcrypt(hash), role: .primary)])
        #expect(await table.authenticate(username: "hashed", password: longest, suspect: false) != nil)
        #expect(await table.authenticate(username: "hashed", password: longest + "junk", suspect: false) == nil)
    }
}

/// The protocol over a real socket: a `LineServer` serving `NUTProtocol`.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTOverTCPTests {
    @Test func aMonitorsConversationOverTCP() async throws {
        let state = NUTServerState()
        let environment = NUTSession.Environment(data: Fleet(list: [NUTSessionTests.ups("ups", status: "OB")]), users: Users(),
                                                 state: state, version: "1.0.0", failures: AuthFailureTracker())
        let server = LineServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: NUTProtocol(environment: environment),
                                logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let client = try await TestHTTPClient.connect(port: port)
        defer { client.close() }
        try await client.send("USERNAME monuser\nPASSWORD secret\nLOGIN ups\nGET VAR ups ups.status\n")
        for expected in ["OK", "OK", "OK", "VAR ups ups.status \"OB\""] { #expect(try await client.readLine() == expected) }
        #expect(state.clients(of: "ups").count == 1)
        try await client.send("LOGOUT\n")
        #expect(try await client.readLine() == "OK Goodbye")
        #expect(await client.isClosedByServer())
        #expect(state.clients(of: "ups").isEmpty, "the login ends with the connection")
    }
}

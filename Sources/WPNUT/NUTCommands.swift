import WPServer

/// One connection's conversation with the NUT server: its credentials and login, and the
/// answer to each command line, as upsd answers a read-only driver (docs/nut.md lists the
/// commands and where the bridge differs by design).
///
/// Nothing here does I/O: the listener feeds it lines and writes the replies. Password checks
/// (``NUTUsers``) may take milliseconds (bcrypt) and are awaited.
package struct NUTSession: Sendable {
    /// What the server answers with.
    package struct Environment: Sendable {
        package var data: any NUTDataSource
        package var users: any NUTUsers
        package var state: NUTServerState
        /// `VER`'s version (the exporter's).
        package var version: String
        /// Whether reads need a user: `false` lets anyone list and read (upsd's default).
        package var requireLogin: Bool
        /// Whether `STARTTLS` can be offered (a certificate is configured).
        package var tlsAvailable: Bool
        /// Failed password checks by client host: after too many, each wrong password is
        /// answered only after a growing delay (this connection waits; no other does).
        package var failures: any NUTFailureLimiter
        /// Told of every command: its name (one of ``NUTSession/commands`` or `other`) and
        /// result (`OK` or the error code), for the exporter's metrics.
        package var observe: @Sendable (_ command: String, _ result: String) -> Void

        package init(data: any NUTDataSource, users: any NUTUsers, state: NUTServerState, version: String,
                    requireLogin: Bool = false, tlsAvailable: Bool = false,
                    failures: any NUTFailureLimiter,
                    observe: @escaping @Sendable (_ command: String, _ result: String) -> Void = { _, _ in }) {
            self.data = data
            self.users = users
            self.state = state
            self.version = version
            self.requireLogin = requireLogin
            self.tlsAvailable = tlsAvailable
            self.failures = failures
            self.observe = observe
        }
    }

    /// What the connection asked for besides a reply.
    package enum Action: Sendable, Equatable {
        case none
        /// Close once the reply is written (`LOGOUT`).
        case close
        /// Start TLS once the reply is written (`STARTTLS`).
        case startTLS
    }

    /// The peer, `ip:port`, for `LIST CLIENT`.
    package let client: String
    private var username: String?
    private var password: String?
    /// Where the line tokenizer stands: a quote left open continues on the next line.
    private var tokenizer = NUTLine.Tokenizer()
    /// `SET TRACKING ON`: nothing is ever tracked (nothing is written), but the flag is kept.
    private var tracking = false
    /// The user, once a password check passed (cached for the connection's life).
    private var user: NUTUser?
    /// Whether the credentials were checked (passed or not).
    private var checked = false
    /// The UPS this connection logged into.
    package private(set) var loggedInto: String?
    /// Failed password checks on this connection.
    package private(set) var failedChecks = 0
    /// Whether this connection's credentials passed a password check (a user, with a role or
    /// not): the server keeps it when full, as it keeps a login.
    package var isAuthenticated: Bool { user != nil }
    /// Whether a useful command was answered without an error: a `GET`, `LIST`, `LOGIN`,
    /// `PRIMARY`, `FSD`, … (not `VER`, `NETVER`, `HELP`, `STARTTLS`, `USERNAME`, `PASSWORD`,
    /// which anyone can send). When the server is full, connections without one make room first.
    package private(set) var wasServed = false

    package init(client: String) {
        self.client = client
    }

    /// The client's address without its port (failures are counted per host).
    private var clientHost: String { PeerAddress.host(of: client) }

    /// Ends the session: its login, if any, no longer counts.
    package func end(_ environment: Environment) {
        if let loggedInto { environment.state.logout(loggedInto, client: client) }
    }

    /// The reply to one line (without its line ending) and what to do after writing it.
    ///
    /// A line that leaves a quote open (or ends in a backslash) continues on the next one and
    /// gets no reply yet; one with a `#` inside quotes gets none at all (upsd's parse error).
    package mutating func handle(_ line: some Collection<UInt8>, _ environment: Environment) async -> (NUTReply, Action) {
        guard case .words(let words) = tokenizer.line(line) else { return (NUTReply(""), .none) }
        let answer = await answer(words, environment)
        let command = words.first?.uppercased() ?? ""
        let text = answer.0.text
        let result = text.hasPrefix("ERR ") ? String(text.dropFirst(4).dropLast()) : "OK"
        if result == "OK" && Self.commands.contains(command) && !Self.trivialCommands.contains(command) { wasServed = true }
        environment.observe(Self.commands.contains(command) ? command : "other", result)
        return answer
    }

    /// The commands counted by name (anything else is `other`).
    package static let commands: Set<String> = ["VER", "NETVER", "PROTVER", "HELP", "STARTTLS", "USERNAME", "PASSWORD", "LOGOUT",
                                               "LOGIN", "PRIMARY", "MASTER", "FSD", "GET", "LIST", "SET", "INSTCMD"]

    /// Commands answered to anyone without reading a UPS: they do not make a connection
    /// ``wasServed``.
    static let trivialCommands: Set<String> = ["VER", "NETVER", "PROTVER", "HELP", "STARTTLS", "USERNAME", "PASSWORD", "LOGOUT"]

    /// upsd's `server.info`: what `VER` says.
    private static func serverInfo(_ version: String) -> String {
        "Network UPS Tools upsd \(version) - wpexporter NUT bridge"
    }

    private mutating func answer(_ words: [String], _ environment: Environment) async -> (NUTReply, Action) {
        guard let command = words.first?.uppercased() else { return (.error(.unknownCommand), .none) }
        let arguments = Array(words.dropFirst())
        // Commands that act for a user need one first, whatever their arguments (upsd's FLAG_USER).
        if ["LOGIN", "PRIMARY", "MASTER", "FSD", "SET", "INSTCMD"].contains(command) {
            if username == nil { return (.error(.usernameRequired), .none) }
            if password == nil { return (.error(.passwordRequired), .none) }
        }
        switch command {
        case "VER":
            guard arguments.isEmpty else { return (.error(.invalidArgument), .none) }
            return (NUTReply(Self.serverInfo(environment.version) + "\n"), .none)
        case "NETVER", "PROTVER":
            guard arguments.isEmpty else { return (.error(.invalidArgument), .none) }
            return (NUTReply("1.3\n"), .none)
        case "HELP":
            guard arguments.isEmpty else { return (.error(.invalidArgument), .none) }
            return (NUTReply("Commands: HELP VER GET LIST SET INSTCMD LOGIN LOGOUT USERNAME PASSWORD STARTTLS\n"), .none)
        case "STARTTLS":
            if !environment.tlsAvailable { return (.error(.featureNotConfigured), .none) }
            return (NUTReply("OK STARTTLS\n"), .startTLS)
        case "USERNAME":
            guard arguments.count == 1 else { return (.error(.invalidArgument), .none) }
            guard username == nil else { return (.error(.alreadySetUsername), .none) }
            username = arguments[0]
            return (NUTReply("OK\n"), .none)
        case "PASSWORD":
            guard arguments.count == 1 else { return (.error(.invalidArgument), .none) }
            guard password == nil else { return (.error(.alreadySetPassword), .none) }
            password = arguments[0]
            return (NUTReply("OK\n"), .none)
        case "LOGOUT":
            guard arguments.isEmpty else { return (.error(.invalidArgument), .none) }
            if let loggedInto { environment.state.logout(loggedInto, client: client) }
            loggedInto = nil
            return (NUTReply("OK Goodbye\n"), .close)
        case "LOGIN":
            return (await login(arguments, environment), .none)
        case "PRIMARY", "MASTER":
            return (await primary(arguments, granted: command, environment), .none)
        case "FSD":
            return (await forcedShutdown(arguments, environment), .none)
        case "GET":
            if let refusal = await readRefusal(environment) { return (refusal, .none) }
            return (get(arguments, environment), .none)
        case "LIST":
            if let refusal = await readRefusal(environment) { return (refusal, .none) }
            return (list(arguments, environment), .none)
        case "SET":
            return (set(arguments, environment), .none)
        case "INSTCMD":
            return (instantCommand(arguments, environment), .none)
        default:
            return (.error(.unknownCommand), .none)
        }
    }

    /// The user of this connection's credentials, checked once.
    private mutating func authenticated(_ environment: Environment) async -> NUTUser? {
        // Credentials cannot change once set (ALREADY-SET-…): one check per connection.
        if checked { return user }
        guard let username, let password else { return nil }
        let host = clientHost
        let suspect = environment.failures.isSuspect(host)
        // A host that failed too often gets one check at a time, held through its delay: its
        // other connections are refused meanwhile, unchecked, so opening many connections at
        // once does not multiply its guesses.
        if suspect, !environment.state.beginSuspectCheck(of: host) {
            checked = true
            failedChecks += 1
            return nil
        }
        let user = await environment.users.authenticate(username: username, password: password, suspect: suspect)
        self.user = user
        checked = true
        if user == nil {
            failedChecks += 1
            let delay = environment.failures.recordFailure(of: host)
            if delay > .zero { try? await Task.sleep(for: delay) }
        } else {
            environment.failures.recordSuccess(of: host)
        }
        if suspect { environment.state.endSuspectCheck(of: host) }
        return user
    }

    private mutating func readRefusal(_ environment: Environment) async -> NUTReply? {
        guard environment.requireLogin else { return nil }
        if username == nil { return .error(.usernameRequired) }
        if password == nil { return .error(.passwordRequired) }
        return await authenticated(environment) == nil ? .error(.accessDenied) : nil
    }

    private mutating func login(_ arguments: [String], _ environment: Environment) async -> NUTReply {
        guard arguments.count == 1 else { return .error(.invalidArgument) }
        guard loggedInto == nil else { return .error(.alreadyLoggedIn) }
        guard let ups = environment.data.ups(named: arguments[0]) else { return .error(.unknownUPS) }
        // upsd grants LOGIN to `upsmon primary` and `upsmon secondary` users only.
        guard await authenticated(environment)?.role != nil else { return .error(.accessDenied) }
        loggedInto = ups.name
        environment.state.login(ups.name, client: client)
        return NUTReply("OK\n")
    }

    private mutating func primary(_ arguments: [String], granted command: String, _ environment: Environment) async -> NUTReply {
        guard arguments.count == 1 else { return .error(.invalidArgument) }
        guard environment.data.ups(named: arguments[0]) != nil else { return .error(.unknownUPS) }
        guard await authenticated(environment)?.role == .primary else { return .error(.accessDenied) }
        return NUTReply("OK \(command)-GRANTED\n")
    }

    private mutating func forcedShutdown(_ arguments: [String], _ environment: Environment) async -> NUTReply {
        guard arguments.count == 1 else { return .error(.invalidArgument) }
        guard let ups = environment.data.ups(named: arguments[0]) else { return .error(.unknownUPS) }
        guard let user = await authenticated(environment), user.role == .primary else { return .error(.accessDenied) }
        environment.state.setForcedShutdown(ups.name, user: user.name, client: client)
        return NUTReply("OK FSD-SET\n")
    }

    /// upsd's `ups_available`: `ERR DRIVER-NOT-CONNECTED` for a UPS without readings yet,
    /// `ERR DATA-STALE` for one whose readings are stale, `nil` when it may be read.
    private func unavailable(_ ups: NUTUPS) -> NUTReply? {
        switch ups.availability {
        case .fresh: nil
        case .stale: .error(.dataStale)
        case .driverNotConnected: .error(.driverNotConnected)
        }
    }

    /// `GET`, in upsd's order of checks; arguments past those a form needs are ignored. UPS and
    /// variable names are matched in any case and echoed as the client spelled them.
    private func get(_ arguments: [String], _ environment: Environment) -> NUTReply {
        guard let what = arguments.first?.uppercased() else { return .error(.invalidArgument) }
        if what == "TRACKING" {
            if arguments.count < 2 { return NUTReply(tracking ? "ON\n" : "OFF\n") }
            return tracking ? NUTReply("ERR UNKNOWN\n") : .error(.featureNotConfigured)
        }
        guard arguments.count >= 2 else { return .error(.invalidArgument) }
        let name = arguments[1]
        switch what {
        case "NUMLOGINS":
            guard let ups = environment.data.ups(named: name) else { return .error(.unknownUPS) }
            if let stale = unavailable(ups) { return stale }
            return NUTReply("NUMLOGINS \(name) \(environment.state.clients(of: ups.name).count)\n")
        case "UPSDESC":
            guard let ups = environment.data.ups(named: name) else { return .error(.unknownUPS) }
            return NUTReply(NUTLine.quotedLine("UPSDESC \(name)", ups.description))
        default:
            break
        }
        guard arguments.count >= 3, ["VAR", "TYPE", "DESC", "CMDDESC"].contains(what) else { return .error(.invalidArgument) }
        let variable = arguments[2]
        // server.info and server.version answer whatever the UPS name.
        if what == "VAR", variable.lowercased().hasPrefix("server.") {
            switch variable.lowercased() {
            case "server.info": return NUTReply("VAR \(name) server.info \"\(Self.serverInfo(environment.version))\"\n")
            case "server.version": return NUTReply("VAR \(name) server.version \"\(environment.version)\"\n")
            default: return .error(.varNotSupported)
            }
        }
        guard let ups = environment.data.ups(named: name) else { return .error(.unknownUPS) }
        if let stale = unavailable(ups) { return stale }
        switch what {
        case "VAR":
            guard var value = ups.value(of: variable) else { return .error(.varNotSupported) }
            if variable.lowercased() == "ups.status", environment.state.isForcedShutdown(ups.name) { value = "FSD " + value }
            return NUTReply(NUTLine.quotedLine("VAR \(name) \(variable)", value))
        case "TYPE":
            guard ups.value(of: variable) != nil else { return .error(.varNotSupported) }
            // upsd answers NUMBER for every variable its driver gave no type flag: every
            // read-only variable of a real driver, and so every variable here.
            return NUTReply("TYPE \(name) \(variable) NUMBER\n")
        case "DESC":
            return NUTReply("DESC \(name) \(variable) \"\(NUTDescriptions.description(of: variable.lowercased()))\"\n")
        default:
            // The bridge has no instant commands, so no command descriptions.
            return NUTReply("CMDDESC \(name) \(variable) \"Description unavailable\"\n")
        }
    }

    /// `LIST`, in upsd's order of checks; arguments past those a form needs are ignored.
    private func list(_ arguments: [String], _ environment: Environment) -> NUTReply {
        guard let what = arguments.first?.uppercased() else { return .error(.invalidArgument) }
        if what == "UPS" {
            var text = "BEGIN LIST UPS\n"
            // The UPSs that answer reads first, each group in the source's order: clients that
            // read the first UPS listed (Home Assistant's setup) find one that answers.
            let all = environment.data.upsList()
            for ups in all.filter({ $0.availability == .fresh }) + all.filter({ $0.availability != .fresh }) { text += NUTLine.quotedLine("UPS \(ups.name)", ups.description) }
            return NUTReply(text + "END LIST UPS\n")
        }
        guard arguments.count >= 2 else { return .error(.invalidArgument) }
        let name = arguments[1]
        switch what {
        case "VAR", "RW", "CMD", "CLIENT":
            guard let ups = environment.data.ups(named: name) else { return .error(.unknownUPS) }
            if what == "CLIENT" {
                var text = "BEGIN LIST CLIENT \(name)\n"
                for client in environment.state.clients(of: ups.name) { text += "CLIENT \(ups.name) \(PeerAddress.host(of: client))\n" }
                return NUTReply(text + "END LIST CLIENT \(name)\n")
            }
            if let stale = unavailable(ups) { return stale }
            guard what == "VAR" else { return NUTReply("BEGIN LIST \(what) \(name)\nEND LIST \(what) \(name)\n") }
            let forced = environment.state.isForcedShutdown(ups.name)
            var text = "BEGIN LIST VAR \(name)\n"
            for variable in ups.variables {
                let value = forced && variable.name == "ups.status" ? "FSD " + variable.value : variable.value
                text += NUTLine.quotedLine("VAR \(name) \(variable.name)", value)
            }
            return NUTReply(text + "END LIST VAR \(name)\n")
        case "ENUM", "RANGE":
            guard arguments.count >= 3 else { return .error(.invalidArgument) }
            guard let ups = environment.data.ups(named: name) else { return .error(.unknownUPS) }
            if let stale = unavailable(ups) { return stale }
            guard ups.value(of: arguments[2]) != nil else { return .error(.varNotSupported) }
            return NUTReply("BEGIN LIST \(what) \(name) \(arguments[2])\nEND LIST \(what) \(name) \(arguments[2])\n")
        default:
            return .error(.invalidArgument)
        }
    }

    /// `SET`, with upsd's checks up to the permission a read-only bridge never grants: nothing
    /// reaches WinPower.
    private mutating func set(_ arguments: [String], _ environment: Environment) -> NUTReply {
        guard arguments.count >= 2 else { return .error(.invalidArgument) }
        switch arguments[0].uppercased() {
        case "VAR":
            guard arguments.count >= 4 else { return .error(.invalidArgument) }
            guard let ups = environment.data.ups(named: arguments[1]) else { return .error(.unknownUPS) }
            if let stale = unavailable(ups) { return stale }
            return .error(.accessDenied)
        case "TRACKING":
            guard ["ON", "OFF"].contains(arguments[1].uppercased()) else { return .error(.invalidArgument) }
            tracking = arguments[1].uppercased() == "ON"
            return NUTReply("OK\n")
        default:
            return .error(.invalidArgument)
        }
    }

    /// `INSTCMD`, with upsd's checks: the bridge has no instant commands.
    private func instantCommand(_ arguments: [String], _ environment: Environment) -> NUTReply {
        guard arguments.count >= 2 else { return .error(.invalidArgument) }
        guard let ups = environment.data.ups(named: arguments[0]) else { return .error(.unknownUPS) }
        if let stale = unavailable(ups) { return stale }
        return .error(.cmdNotSupported)
    }
}

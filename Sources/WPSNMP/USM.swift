import Synchronization

/// The security levels of SNMPv3 (RFC 3411 §3.4.3), ordered.
package enum SNMPSecurityLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case noAuthNoPriv = 0
    case authNoPriv = 1
    case authPriv = 2

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .noAuthNoPriv: "noAuthNoPriv"
        case .authNoPriv: "authNoPriv"
        case .authPriv: "authPriv"
        }
    }

    init(_ flags: SNMPv3Message.Flags) {
        self = flags.contains(.encrypted) ? .authPriv : flags.contains(.authenticated) ? .authNoPriv : .noAuthNoPriv
    }
}

/// Why an SNMPv3 user cannot be made.
package enum USMUserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// RFC 3414 §11.2: a password of fewer than 8 characters (the password is never named).
    case passwordTooShort(user: String, which: String)
    /// A privacy password without an authentication password (RFC 3414 §3.1.1: privacy
    /// needs authentication).
    case privacyWithoutAuthentication(user: String)
    /// libcrypto is not available to derive the keys.
    case cryptoUnavailable

    package var description: String {
        switch self {
        case .passwordTooShort(let user, let which): "SNMPv3 user \(user.debugDescription): the \(which) password has fewer than 8 characters"
        case .privacyWithoutAuthentication(let user): "SNMPv3 user \(user.debugDescription): a privacy password needs an authentication password"
        case .cryptoUnavailable: "SNMPv3: libcrypto (OpenSSL 3 or 1.1) is not available for SHA and AES"
        }
    }
}

/// An SNMPv3 user of the agent, read-only: its name, the lowest security level it may use, its
/// authentication protocol, and its keys localized to the agent's engine (RFC 3414 §2.6).
/// Authentication is HMAC with the user's SHA hash (HMAC-192-SHA-256 unless said otherwise),
/// privacy AES-128-CFB (RFC 3826); the passwords are not kept.
package struct USMUser: Sendable {
    package let name: String
    /// The HMAC its messages are authenticated with; its keys are made with the same hash.
    package let authenticationProtocol: USMAuthenticationProtocol
    /// The lowest level the user's requests may have: `authPriv` with both passwords,
    /// `authNoPriv` with an authentication password only, `noAuthNoPriv` with none (a user
    /// without passwords must be configured as such on purpose).
    package let minimumLevel: SNMPSecurityLevel
    let authenticationKey: [UInt8]?
    let privacyKey: [UInt8]?

    /// - Parameters:
    ///   - name: the user's name (`msgUserName`).
    ///   - authenticationPassword: the password its authentication key is made from; `nil`
    ///     for a user without authentication.
    ///   - privacyPassword: the password its privacy (AES) key is made from; `nil` for none.
    ///   - authenticationProtocol: the HMAC (and the hash of the keys); HMAC-192-SHA-256 by
    ///     default.
    ///   - engineID: the agent's engine ID, to which the keys are localized.
    /// - Throws: ``USMUserError`` for a password under 8 characters, privacy without
    ///   authentication, or no libcrypto.
    package init(name: String, authenticationProtocol: USMAuthenticationProtocol = .sha256, authenticationPassword: String?,
                privacyPassword: String?, engineID: [UInt8]) throws(USMUserError) {
        try self.init(USMCredentials(name: name, authenticationProtocol: authenticationProtocol,
                                     authenticationPassword: authenticationPassword, privacyPassword: privacyPassword),
                      engineID: engineID)
    }

    /// The user of `credentials` with its keys localized to `engineID` (no password hashed again).
    ///
    /// - Throws: ``USMUserError/cryptoUnavailable`` without libcrypto.
    package init(_ credentials: USMCredentials, engineID: [UInt8]) throws(USMUserError) {
        guard let user = credentials.localized(to: engineID) else { throw .cryptoUnavailable }
        self = user
    }

    /// A user of already localized keys.
    init(name: String, authenticationProtocol: USMAuthenticationProtocol, authenticationKey: [UInt8]?, privacyKey: [UInt8]?) {
        self.name = name
        self.authenticationProtocol = authenticationProtocol
        self.authenticationKey = authenticationKey
        self.privacyKey = privacyKey
        minimumLevel = privacyKey != nil ? .authPriv : authenticationKey != nil ? .authNoPriv : .noAuthNoPriv
    }

    /// Whether the user may send at `level`: at least its minimum, with the keys it needs.
    func allows(_ level: SNMPSecurityLevel) -> Bool {
        level >= minimumLevel && (level < .authNoPriv || authenticationKey != nil) && (level < .authPriv || privacyKey != nil)
    }
}

/// An SNMPv3 user for engines other than the agent's: the keys made from its passwords
/// (RFC 3414 §2.6, `Ku`), not yet localized, so they can be localized to each receiver's
/// engine once it is discovered (an inform's receiver is the authoritative engine, RFC 3414
/// §1.5.1). The passwords are not kept.
package struct USMCredentials: Sendable {
    package let name: String
    /// The level its messages are sent at: `authPriv` with both passwords, `authNoPriv` with
    /// an authentication password only, `noAuthNoPriv` with none.
    package let level: SNMPSecurityLevel
    /// The HMAC its messages are authenticated with; its keys are made with the same hash.
    package let authenticationProtocol: USMAuthenticationProtocol
    let authenticationMasterKey: [UInt8]?
    let privacyMasterKey: [UInt8]?

    /// - Throws: ``USMUserError`` as
    ///   ``USMUser/init(name:authenticationProtocol:authenticationPassword:privacyPassword:engineID:)``.
    package init(name: String, authenticationProtocol: USMAuthenticationProtocol = .sha256, authenticationPassword: String?,
                privacyPassword: String?) throws(USMUserError) {
        self.name = name
        self.authenticationProtocol = authenticationProtocol
        if privacyPassword != nil && authenticationPassword == nil { throw .privacyWithoutAuthentication(user: name) }
        func key(_ password: String?, _ which: String) throws(USMUserError) -> [UInt8]? {
            guard let password else { return nil }
            guard password.count >= 8 else { throw .passwordTooShort(user: name, which: which) }
            guard let key = USMCrypto.passwordToKey(Array(password.utf8), authenticationProtocol) else { throw .cryptoUnavailable }
            return key
        }
        authenticationMasterKey = try key(authenticationPassword, "authentication")
        privacyMasterKey = try key(privacyPassword, "privacy")
        level = privacyMasterKey != nil ? .authPriv : authenticationMasterKey != nil ? .authNoPriv : .noAuthNoPriv
    }

    /// The user with its keys localized to `engineID`; `nil` without libcrypto.
    func localized(to engineID: [UInt8]) -> USMUser? {
        func localize(_ key: [UInt8]?) -> [UInt8]?? {
            guard let key else { return .some(nil) }
            return USMCrypto.localize(key, engineID: engineID, authenticationProtocol).map { .some($0) }
        }
        guard let authentication = localize(authenticationMasterKey), let privacy = localize(privacyMasterKey) else { return nil }
        return USMUser(name: name, authenticationProtocol: authenticationProtocol, authenticationKey: authentication, privacyKey: privacy)
    }
}

/// The agent's SNMP engine (RFC 3411 §3.1.1): its identifier, how many times it has started
/// (`snmpEngineBoots`, kept by the owner across restarts) and the seconds since this start.
package struct SNMPEngine: Sendable {
    package let engineID: [UInt8]
    package let boots: Int32
    /// Seconds since the engine started (`snmpEngineTime`), from a monotonic clock.
    package let time: @Sendable () -> Int32

    package init(engineID: [UInt8], boots: Int32, time: @escaping @Sendable () -> Int32) {
        self.engineID = engineID
        self.boots = boots
        self.time = time
    }

    /// An engine identifier in RFC 3411's format 5 (octets): `80 00 00 00 05` then `random`
    /// (8 to 27 bytes). The enterprise number is 0: wpexporter holds no enterprise number of
    /// its own and names nobody else's; set one of your own where an engine must be
    /// recognisable.
    package static func engineID(random: [UInt8]) -> [UInt8] {
        [0x80, 0x00, 0x00, 0x00, 0x05] + random.prefix(27)
    }
}

/// What the user-based security model counted (RFC 3414 §5, `usmStats`), with the message
/// processing's own drops.
package struct USMStatistics: Sendable, Equatable {
    package var unsupportedSecurityLevels = 0
    package var notInTimeWindows = 0
    package var unknownUserNames = 0
    package var unknownEngineIDs = 0
    package var wrongDigests = 0
    package var decryptionErrors = 0
    /// `snmpUnknownSecurityModels`: another security model than the USM.
    package var unknownSecurityModels = 0
    /// `snmpInvalidMsgs`: privacy without authentication, or a malformed security part.
    package var invalidMessages = 0

    package init() {}
}

/// The user-based security model of an agent (RFC 3414 §3.2 for what arrives, §3.1 for what
/// is sent), read-only: it authenticates and decrypts requests, answers discovery and
/// failures with Report PDUs, and authenticates and encrypts responses.
package final class USM: Sendable {
    /// What processing an incoming message came to.
    package enum Incoming {
        /// An authentic request (at the user's level) to answer.
        case request(SNMPv3Message, SNMPv3Message.ScopedPDU, USMUser)
        /// A Report PDU to send (discovery, an unknown user, a wrong digest, …).
        case report([UInt8])
        /// Nothing to send.
        case drop
    }

    static let timeWindow: Int32 = 150
    static let maxBoots: Int32 = 2_147_483_647

    let engine: SNMPEngine
    private let users: [String: USMUser]
    private let state = Mutex<(statistics: USMStatistics, salt: UInt64)>((USMStatistics(), 0))

    package init(engine: SNMPEngine, users: [USMUser], saltSeed: UInt64) {
        self.engine = engine
        var byName: [String: USMUser] = [:]
        for user in users { byName[user.name] = user }
        self.users = byName
        state.withLock { $0.salt = saltSeed }
    }

    var statistics: USMStatistics { state.withLock { $0.statistics } }

    private func count(_ change: (inout USMStatistics) -> Void) { state.withLock { change(&$0.statistics) } }

    /// RFC 3414 §3.2 over a decoded message whose original bytes are `bytes`.
    package func process(_ message: SNMPv3Message, bytes: [UInt8]) -> Incoming {
        guard message.securityModel == SNMPv3Message.userBasedSecurityModel else {
            count { $0.unknownSecurityModels += 1 }
            return .drop
        }
        let level = SNMPSecurityLevel(message.flags)
        if message.flags.contains(.encrypted) && !message.flags.contains(.authenticated) {
            count { $0.invalidMessages += 1 }
            return .drop
        }
        let plainPDU: PDU? = if case .plain(let scoped) = message.data { scoped.pdu } else { nil }
        // Step 3: an engine ID that is not ours (empty: discovery).
        guard message.engineID == engine.engineID else {
            let value = state.withLock { state in state.statistics.unknownEngineIDs += 1; return state.statistics.unknownEngineIDs }
            return report(to: message, requestID: plainPDU?.requestID, oid: Self.unknownEngineIDs, value: value)
        }
        // Step 4: an unknown user.
        guard let user = users[String(decoding: message.userName, as: UTF8.self)],
              Array(user.name.utf8) == message.userName else {
            let value = state.withLock { state in state.statistics.unknownUserNames += 1; return state.statistics.unknownUserNames }
            return report(to: message, requestID: plainPDU?.requestID, oid: Self.unknownUserNames, value: value)
        }
        // Step 5: a level the user may not use.
        guard user.allows(level) else {
            let value = state.withLock { state in
                state.statistics.unsupportedSecurityLevels += 1
                return state.statistics.unsupportedSecurityLevels
            }
            return report(to: message, requestID: plainPDU?.requestID, oid: Self.unsupportedSecLevels, value: value)
        }
        if level >= .authNoPriv, let key = user.authenticationKey {
            // Step 6: the MAC over the message with its authentication parameters zeroed, of the
            // user's protocol's length (another length is a wrong digest, RFC 3414 §6.3.2).
            let authentication = user.authenticationProtocol
            var zeroed = bytes
            for index in message.authenticationRange { zeroed[index] = 0 }
            guard message.authenticationParameters.count == authentication.macLength,
                  let mac = USMCrypto.mac(authentication, key: key, zeroed),
                  constantTimeEqual(mac, message.authenticationParameters) else {
                let value = state.withLock { state in state.statistics.wrongDigests += 1; return state.statistics.wrongDigests }
                return report(to: message, requestID: plainPDU?.requestID, oid: Self.wrongDigests, value: value)
            }
            // Step 7: within the time window, else a report authenticated with our clock.
            let now = engine.time()
            guard engine.boots != Self.maxBoots, message.boots == engine.boots,
                  abs(Int64(message.time) - Int64(now)) <= Int64(Self.timeWindow) else {
                let value = state.withLock { state in state.statistics.notInTimeWindows += 1; return state.statistics.notInTimeWindows }
                return report(to: message, requestID: plainPDU?.requestID, oid: Self.notInTimeWindows, value: value, user: user)
            }
        }
        // Step 8: decryption.
        let scoped: SNMPv3Message.ScopedPDU
        switch message.data {
        case .plain(let plain):
            guard level < .authPriv else { count { $0.invalidMessages += 1 }; return .drop }
            scoped = plain
        case .encrypted(let cipher):
            guard level == .authPriv, let key = user.privacyKey, message.privacyParameters.count == USMCrypto.saltLength,
                  let clear = USMCrypto.aes128CFB(encrypt: false, key: key,
                                                  iv: USMCrypto.iv(boots: message.boots, time: message.time, salt: message.privacyParameters),
                                                  cipher),
                  let decoded = try? SNMPv3Message.scopedPDU(decrypted: clear) else {
                let value = state.withLock { state in state.statistics.decryptionErrors += 1; return state.statistics.decryptionErrors }
                return report(to: message, requestID: nil, oid: Self.decryptionErrors, value: value)
            }
            scoped = decoded
        }
        return .request(message, scoped, user)
    }

    /// The response to `request` carrying `pdu` with encoded bindings `varBindBytes`, at the
    /// request's level, or `nil` when it cannot be made (no libcrypto).
    package func response(to request: SNMPv3Message, scoped: SNMPv3Message.ScopedPDU, user: USMUser, pdu: PDU,
                  varBindBytes: [UInt8]) -> [UInt8]? {
        let level = SNMPSecurityLevel(request.flags)
        var flags = request.flags
        flags.remove(.reportable)
        let plain = SNMPv3Message.scopedPDUBytes(contextEngineID: engine.engineID, contextName: scoped.contextName, pdu: pdu,
                                                 varBindBytes: varBindBytes)
        return seal(envelope(request, flags: flags, user: user, level: level), plain: plain, user: user, level: level)
    }

    /// The size of ``response(to:scoped:user:pdu:varBindBytes:)`` for bindings of `varBindBytes` bytes.
    func responseSize(to request: SNMPv3Message, scoped: SNMPv3Message.ScopedPDU, user: USMUser, pdu: PDU, varBindBytes: Int) -> Int {
        let level = SNMPSecurityLevel(request.flags)
        var flags = request.flags
        flags.remove(.reportable)
        let scopedSize = SNMPv3Message.scopedPDUSize(contextEngineID: engine.engineID, contextName: scoped.contextName, pdu: pdu,
                                                     varBindBytes: varBindBytes)
        return envelope(request, flags: flags, user: user, level: level)
            .encodedSize(dataCount: scopedSize, authenticationLength: level >= .authNoPriv ? user.authenticationProtocol.macLength : 0)
    }

    /// A message of the engine's own initiative (a notification: for a Trap the sender is
    /// authoritative, RFC 3414 §1.5.1) carrying `pdu` for `user` at `level`.
    func outgoing(_ pdu: PDU, user: USMUser, level: SNMPSecurityLevel, messageID: Int32, contextName: String = "") -> [UInt8]? {
        guard user.allows(level) else { return nil }
        var flags: SNMPv3Message.Flags = []
        if level >= .authNoPriv { flags.insert(.authenticated) }
        if level == .authPriv { flags.insert(.encrypted) }
        let template = SNMPv3Message(messageID: messageID, maxSize: 65_507, flags: flags, engineID: engine.engineID, boots: engine.boots,
                                     time: engine.time(), userName: Array(user.name.utf8), data: .encrypted([]))
        let plain = SNMPv3Message.scopedPDUBytes(contextEngineID: engine.engineID, contextName: Array(contextName.utf8), pdu: pdu,
                                                 varBindBytes: pdu.varBinds.flatMap(BERWriter.varBind))
        return seal(envelope(template, flags: flags, user: user, level: level), plain: plain, user: user, level: level)
    }

    // MARK: - Sending

    private func envelope(_ request: SNMPv3Message, flags: SNMPv3Message.Flags, user: USMUser?, level: SNMPSecurityLevel) -> SNMPv3Message {
        let salt: [UInt8] = level == .authPriv ? nextSalt() : []
        return SNMPv3Message(messageID: request.messageID, maxSize: 65_507, flags: flags, engineID: engine.engineID,
                             boots: engine.boots, time: engine.time(), userName: user.map { Array($0.name.utf8) } ?? request.userName,
                             privacyParameters: salt, data: .encrypted([]))
    }

    /// The message's bytes: `plain` encrypted at `authPriv`, the MAC written at `authNoPriv` and up.
    private func seal(_ message: SNMPv3Message, plain: [UInt8], user: USMUser?, level: SNMPSecurityLevel) -> [UInt8]? {
        var data = plain
        if level == .authPriv {
            guard let key = user?.privacyKey,
                  let cipher = USMCrypto.aes128CFB(encrypt: true, key: key,
                                                   iv: USMCrypto.iv(boots: message.boots, time: message.time, salt: message.privacyParameters),
                                                   plain) else { return nil }
            data = cipher
        }
        let authenticationLength = level >= .authNoPriv ? user?.authenticationProtocol.macLength ?? 0 : 0
        var (bytes, range) = message.encoded(dataBytes: data, authenticationLength: authenticationLength)
        if level >= .authNoPriv {
            guard let user, let key = user.authenticationKey,
                  let mac = USMCrypto.mac(user.authenticationProtocol, key: key, bytes) else { return nil }
            bytes.replaceSubrange(range, with: mac)
        }
        return bytes
    }

    /// A Report PDU with `oid` = `value` (Counter32) answering `request`, if it is reportable:
    /// unauthenticated, or authenticated for `user` (a time-window report, RFC 3414 §3.2 7b).
    private func report(to request: SNMPv3Message, requestID: Int32?, oid: OID, value: Int, user: USMUser? = nil) -> Incoming {
        guard request.flags.contains(.reportable) else { return .drop }
        let level: SNMPSecurityLevel = user == nil ? .noAuthNoPriv : .authNoPriv
        let flags: SNMPv3Message.Flags = user == nil ? [] : [.authenticated]
        let pdu = PDU(type: BERTag.report, requestID: requestID ?? 0, varBinds: [])
        let contextName: [UInt8] = if case .plain(let scoped) = request.data { scoped.contextName } else { [] }
        let binding = BERWriter.varBind(VarBind(oid, .counter32(UInt32(truncatingIfNeeded: value))))
        let plain = SNMPv3Message.scopedPDUBytes(contextEngineID: engine.engineID, contextName: contextName, pdu: pdu,
                                                 varBindBytes: binding)
        guard let bytes = seal(envelope(request, flags: flags, user: user, level: level), plain: plain, user: user, level: level)
        else { return .drop }
        return .report(bytes)
    }

    /// RFC 3826 §3.1.3.1: a 64-bit integer, incremented for each encrypted message.
    private func nextSalt() -> [UInt8] {
        let salt = state.withLock { state in
            state.salt &+= 1
            return state.salt
        }
        return withUnsafeBytes(of: salt.bigEndian) { Array($0) }
    }

    private func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static let unsupportedSecLevels: OID = "1.3.6.1.6.3.15.1.1.1.0"
    static let notInTimeWindows: OID = "1.3.6.1.6.3.15.1.1.2.0"
    static let unknownUserNames: OID = "1.3.6.1.6.3.15.1.1.3.0"
    static let unknownEngineIDs: OID = "1.3.6.1.6.3.15.1.1.4.0"
    static let wrongDigests: OID = "1.3.6.1.6.3.15.1.1.5.0"
    static let decryptionErrors: OID = "1.3.6.1.6.3.15.1.1.6.0"
}

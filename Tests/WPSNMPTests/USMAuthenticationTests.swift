import Testing
import WPTestThreads
@testable import WPSNMP

/// The authentication protocols of the USM: HMAC-96-SHA-1 (RFC 3414) and RFC 7860's SHA-2
/// HMACs, from password to localized key to the MAC of each message.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct USMAuthenticationTests {
    static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }

    /// RFC 3414 A.3.2 (SHA-1): password "maplesyrup", engine ID 00…02. RFC 7860 gives no
    /// vectors: the SHA-2 keys are Python's hashlib's over the same A.2 algorithm (and net-snmp
    /// authenticates with keys it derives itself in `NetSNMPVersion3Tests`).
    static let knownKeys: [(USMAuthenticationProtocol, key: String, localized: String)] = [
        (.sha1, "9fb5cc0381497b3793528939ff788d5d79145211", "6695febc9288e36282235fc7151f128497b38f3f"),
        (.sha224, "282a5867ee9aac639ad59df9572c7d3ac0fbc13a905b6df07dbbf00b",
         "0bd8827c6e29f8065e08e09237f177e410f69b90e1782be682075674"),
        (.sha256, "ab51014d1e077f6017df2b12bee5f5aa72993177e9bb569c4dff5a4ca0b4afac",
         "8982e0e549e866db361a6b625d84cccc11162d453ee8ce3a6445c2d6776f0f8b"),
        (.sha384, "e06eccdf2c68a06ed034723c9c26e0db3b669e1e2efed49150b55377a2e98f383c86fb836857444654b287c93f51ff64",
         "3b298f16164a11184279d5432bf169e2d2a48307de02b3d3f7e2b4f36eb6f0455a53689a3937eea07319a633d2ccba78"),
        (.sha512, "7e4396de5aadc77be853819b98c9406265b3a9c37cc3176569847a4e4f6fba63dd3a73d04924d31a63f95a601f9385af6be4ed1b37f87d040f7c6ed6f8d38a91",
         "22a5a36cedfcc085807a128d7bc6c2382167ad6c0dbc5fdff856740f3d84c099ad1ea87a8db096714d9788bd544047c9021e4229ce27e4c0a69250adfcffbb0b"),
    ]

    @Test(arguments: knownKeys.indices) func passwordToKeyAndLocalizationGiveTheKnownKeys(_ index: Int) throws {
        let (authentication, key, localized) = Self.knownKeys[index]
        let engineID = Self.bytes(hex: "000000000000000000000002")
        let master = try #require(USMCrypto.passwordToKey(Array("maplesyrup".utf8), authentication))
        #expect(master == Self.bytes(hex: key), "\(authentication)")
        #expect(USMCrypto.localize(master, engineID: engineID, authentication) == Self.bytes(hex: localized), "\(authentication)")
        // The same through the public path, for both keys (privacy keys use the authentication hash).
        let user = try USMUser(name: "u", authenticationProtocol: authentication, authenticationPassword: "maplesyrup",
                               privacyPassword: "maplesyrup", engineID: engineID)
        #expect(user.authenticationKey == Self.bytes(hex: localized) && user.privacyKey == Self.bytes(hex: localized))
        #expect(user.authenticationProtocol == authentication && user.minimumLevel == .authPriv)
    }

    /// RFC 2202 (HMAC-SHA-1) and RFC 4231 (HMAC-SHA-2) test case 2, through the shim's HMAC
    /// by digest name; the MAC is cut to the protocol's length.
    @Test func theHMACOfEachProtocolMatchesTheRFCVectors() throws {
        let vectors: [(USMAuthenticationProtocol, String)] = [
            (.sha1, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
            (.sha224, "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44"),
            (.sha256, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            (.sha384, "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649"),
            (.sha512, "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"),
        ]
        let key = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        for (authentication, expected) in vectors {
            let hmac = try #require(USMCrypto.hmac(authentication, key: key, data), "\(authentication)")
            #expect(hmac == Self.bytes(hex: expected), "\(authentication)")
            #expect(hmac.count == authentication.keyLength)
            #expect(USMCrypto.mac(authentication, key: key, data) == Array(hmac.prefix(authentication.macLength)))
        }
        #expect(USMAuthenticationProtocol.allCases.map(\.macLength) == [12, 16, 24, 32, 48])
        #expect(USMAuthenticationProtocol.allCases.map(\.oid) == (3...7).map { OID(parsing: "1.3.6.1.6.3.10.1.1.\($0)")! })
        #expect(USMAuthenticationProtocol.allCases.map(\.description) == ["SHA", "SHA-224", "SHA-256", "SHA-384", "SHA-512"])
    }

    @Test func aUserWithoutAProtocolAuthenticatesWithHMACSHA256() throws {
        let user = try USMUser(name: "u", authenticationPassword: "maplesyrup", privacyPassword: nil,
                               engineID: Self.bytes(hex: "000000000000000000000002"))
        #expect(user.authenticationProtocol == .sha256)
        #expect(user.authenticationKey == Self.bytes(hex: Self.knownKeys[2].localized))
        let credentials = try USMCredentials(name: "u", authenticationPassword: "maplesyrup", privacyPassword: nil)
        #expect(credentials.authenticationProtocol == .sha256)
    }

    /// Each user's messages carry its protocol's MAC: the agent answers a request sealed with
    /// the user's protocol, at the request's level, with a MAC of that length that the
    /// manager's side verifies.
    @Test func eachUserIsAnsweredWithItsProtocolsMAC() throws {
        let engineID = SNMPEngine.engineID(random: [9, 8, 7, 6, 5, 4, 3, 2])
        let engine = SNMPEngine(engineID: engineID, boots: 3, time: { 100 })
        var users: [USMUser] = []
        for authentication in USMAuthenticationProtocol.allCases {
            users.append(try USMUser(name: "\(authentication)-priv", authenticationProtocol: authentication,
                                     authenticationPassword: "auth-\(authentication)", privacyPassword: "priv-\(authentication)",
                                     engineID: engineID))
            users.append(try USMUser(name: "\(authentication)-auth", authenticationProtocol: authentication,
                                     authenticationPassword: "auth-\(authentication)", privacyPassword: nil, engineID: engineID))
        }
        let view = fullView()
        let agent = SNMPAgent(configuration: .init(communities: [], engine: engine, users: users)) { view }
        let manager = USM(engine: engine, users: users, saltSeed: 5)
        for user in users {
            let level = user.minimumLevel
            let request = try #require(USMTestMessages.request(engineID: engineID, user: user, level: level))
            #expect(try SNMPv3Message(decoding: request).authenticationParameters.count == user.authenticationProtocol.macLength)
            let answer = try #require(agent.answer(request), "\(user.name)")
            let decoded = try SNMPv3Message(decoding: answer)
            #expect(SNMPSecurityLevel(decoded.flags) == level, "\(user.name)")
            #expect(decoded.authenticationParameters.count == user.authenticationProtocol.macLength, "\(user.name)")
            guard case .request(_, let scoped, _) = manager.process(decoded, bytes: answer) else {
                Issue.record("\(user.name): the answer did not authenticate")
                continue
            }
            #expect(scoped.pdu.type == BERTag.response && scoped.pdu.varBinds == [VarBind("1.3.6.1.2.1.1.1.0", view.get("1.3.6.1.2.1.1.1.0"))])
        }
        #expect(agent.statistics.answered == users.count)
        #expect(agent.securityStatistics == USMStatistics())
    }
}

/// SNMPv3 requests as a manager builds them, reportable, for the tests of the USM.
enum USMTestMessages {
    /// A GetRequest of sysDescr from `userName` (or `user`'s name) at `level`: encrypted with
    /// `user`'s privacy key (or `cipher` as the encrypted PDU), its MAC of `macLength` bytes
    /// (the user's protocol's by default) made with the user's protocol, then `corrupt`ed.
    static func request(engineID: [UInt8], boots: Int32 = 3, time: Int32 = 100, userName: String? = nil, user: USMUser? = nil,
                        level: SNMPSecurityLevel, macLength: Int? = nil, corrupt: Bool = false, cipher: [UInt8]? = nil,
                        varBinds: [VarBind] = [VarBind("1.3.6.1.2.1.1.1.0", .null)]) -> [UInt8]? {
        var flags: SNMPv3Message.Flags = [.reportable]
        if level >= .authNoPriv { flags.insert(.authenticated) }
        if level == .authPriv { flags.insert(.encrypted) }
        let salt: [UInt8] = level == .authPriv ? [0, 0, 0, 0, 0, 0, 0, 1] : []
        let message = SNMPv3Message(messageID: 1, maxSize: 484, flags: flags, engineID: engineID, boots: boots, time: time,
                                    userName: Array((userName ?? user?.name ?? "").utf8), privacyParameters: salt, data: .encrypted([]))
        let pdu = PDU(type: BERTag.getRequest, requestID: 1, varBinds: [])
        var data = SNMPv3Message.scopedPDUBytes(contextEngineID: level == .noAuthNoPriv ? [] : engineID, contextName: [], pdu: pdu,
                                                varBindBytes: varBinds.flatMap(BERWriter.varBind))
        if level == .authPriv {
            if let cipher {
                data = cipher
            } else {
                guard let key = user?.privacyKey,
                      let encrypted = USMCrypto.aes128CFB(encrypt: true, key: key, iv: USMCrypto.iv(boots: boots, time: time, salt: salt), data)
                else { return nil }
                data = encrypted
            }
        }
        let length = level >= .authNoPriv ? macLength ?? user?.authenticationProtocol.macLength ?? 0 : 0
        var (bytes, range) = message.encoded(dataBytes: data, authenticationLength: length)
        if level >= .authNoPriv, let user, let key = user.authenticationKey {
            guard let mac = USMCrypto.hmac(user.authenticationProtocol, key: key, bytes) else { return nil }
            bytes.replaceSubrange(range, with: mac.prefix(length) + [UInt8](repeating: 0, count: max(0, length - mac.count)))
            if corrupt, !range.isEmpty { bytes[range.lowerBound] ^= 0x01 }
        }
        return bytes
    }
}

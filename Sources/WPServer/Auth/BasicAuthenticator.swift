import WPCSecurityShim
import WPCrypto
import Synchronization

/// Checks HTTP basic credentials against bcrypt hashes (`$2a$`, `$2b$`, `$2y$`).
///
/// Hashes are verified with libcrypt's `crypt_r`, loaded at run time. An unknown user costs
/// the same as a known one: the password is verified against a dummy bcrypt setting of the
/// highest configured cost, so response time does not reveal which users exist. Successful
/// verifications are remembered in a small cache keyed by a salted SHA-256 of user, password
/// and stored hash (the password itself is never kept), so a scrape every few seconds does
/// not cost a bcrypt each time.
///
/// ```swift
/// let authenticator = try WPBasicAuthenticator(users: ["prometheus": "$2b$10$..."])
/// let handler = BasicAuthHandler(wrapping: router, authenticator: authenticator)
/// ```
public final class WPBasicAuthenticator: Sendable {
    /// Realm sent in `WWW-Authenticate`.
    public let realm: String
    private let users: [String: String]
    private let dummySetting: String
    private let cache: Mutex<VerificationCache>
    private let verificationCount = Atomic<Int>(0)
    /// Where ``BasicAuthHandler`` runs the verifications the cache cannot answer.
    public let pool: BCryptPool
    /// Recent failures per client address.
    public let failures: AuthFailureTracker

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - users: User name → bcrypt hash.
    ///   - realm: Realm of the `WWW-Authenticate` challenge.
    ///   - cacheCapacity: Successful verifications remembered (oldest forgotten first); 0 disables.
    ///   - pool: Threads and queue for bcrypt; by default one thread and 16 waiting.
    ///   - failures: Failed logins per address; by default suspect after 5 within a minute.
    /// - Throws: ``BasicAuthError`` when a hash is not bcrypt or libcrypt cannot be loaded.
    public init(users: [String: String], realm: String = "wpexporter", cacheCapacity: Int = 64,
                pool: BCryptPool = BCryptPool(), failures: AuthFailureTracker = AuthFailureTracker()) throws(BasicAuthError) {
        var cost = 4
        for (user, hash) in users.sorted(by: { $0.key < $1.key }) {
            guard let hashCost = BCrypt.cost(of: hash) else { throw BasicAuthError.notBcrypt(user: user) }
            cost = max(cost, hashCost)
        }
        var message = [CChar](repeating: 0, count: 256)
        guard wps_crypt_load(&message, message.count) == 0 else {
            throw BasicAuthError.libraryMissing(TLSContextStore.string(message))
        }
        self.users = users
        self.realm = realm
        self.pool = pool
        self.failures = failures
        var generator = SystemRandomNumberGenerator()
        self.dummySetting = BCrypt.setting(cost: cost, using: &generator)
        var salt = [UInt8](repeating: 0, count: 32)
        for index in salt.indices { salt[index] = generator.next() }
        self.cache = Mutex(VerificationCache(capacity: max(0, cacheCapacity), salt: salt))
    }

    /// How many bcrypt verifications ran (cache hits excluded), unknown users included.
    public var bcryptVerifications: Int { verificationCount.load(ordering: .relaxed) }

    /// Whether `password` is known to be the password of `user` from an earlier verification:
    /// a SHA-256 and a lookup, cheap enough for the event loop.
    public func isCached(user: String, password: String) -> Bool {
        guard let stored = users[user], let key = cacheKey(user: user, password: password, hash: stored) else { return false }
        return cache.withLock { $0.contains(key) }
    }

    /// Whether `password` is the password of `user`. Runs a bcrypt unless cached: call it off
    /// the event loop (``BasicAuthHandler`` runs it on ``pool``).
    public func verify(user: String, password: String) -> Bool {
        let stored = users[user]
        let key = stored.flatMap { cacheKey(user: user, password: password, hash: $0) }
        if let key, cache.withLock({ $0.contains(key) }) { return true }
        verificationCount.add(1, ordering: .relaxed)
        let computed = BCrypt.hash(password: password, setting: stored ?? dummySetting)
        guard let stored, let computed, BCrypt.constantTimeEqual(computed, stored) else { return false }
        if let key { cache.withLock { $0.insert(key) } }
        return true
    }

    /// Whether an `Authorization` header value carries valid credentials.
    public func verify(authorization: String?) -> Bool {
        guard let credentials = authorization.flatMap(BasicCredentials.init(header:)) else { return false }
        return verify(user: credentials.user, password: credentials.password)
    }

    private func cacheKey(user: String, password: String, hash: String) -> [UInt8]? {
        let salt = cache.withLock { $0.salt }
        guard !salt.isEmpty else { return nil }
        var material = salt
        material.append(contentsOf: user.utf8)
        material.append(0)
        material.append(contentsOf: password.utf8)
        material.append(0)
        material.append(contentsOf: hash.utf8)
        defer { for index in material.indices { material[index] = 0 } }
        return Digest.hash(.sha256, material)
    }
}

/// Why basic authentication cannot be set up.
public enum BasicAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The user's hash is not a bcrypt hash (`$2a$`, `$2b$`, `$2y$` with a cost of 4...31).
    case notBcrypt(user: String)
    /// libcrypt (for `crypt_r`) could not be loaded.
    case libraryMissing(String)

    /// What cannot be set up: the user whose hash is not bcrypt, or why libcrypt did not load.
    public var description: String {
        switch self {
        case .notBcrypt(let user): "basic_auth_users: the hash of user \"\(user)\" is not a bcrypt hash ($2a$, $2b$ or $2y$)"
        case .libraryMissing(let reason): "basic authentication needs libcrypt: \(reason)"
        }
    }
}

/// Remembered successful verifications, oldest first. Keys are salted SHA-256 digests.
struct VerificationCache {
    var capacity: Int
    var salt: [UInt8]
    private var keys: Set<[UInt8]> = []
    private var order: [[UInt8]] = []

    init(capacity: Int, salt: [UInt8]) {
        self.capacity = capacity
        self.salt = capacity > 0 ? salt : []
    }

    func contains(_ key: [UInt8]) -> Bool { keys.contains(key) }

    mutating func insert(_ key: [UInt8]) {
        guard capacity > 0, keys.insert(key).inserted else { return }
        order.append(key)
        if order.count > capacity { keys.remove(order.removeFirst()) }
    }
}

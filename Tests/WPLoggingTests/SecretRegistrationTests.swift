import Testing
import WPTestThreads
@testable import WPLogging
import WPTestSupport

/// How secrets are registered: the size cap, replacing and removing named slots, and
/// registration that never holds up redaction.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SecretRegistrationTests {
    @Test func secretsLongerThanTheCapAreRefused() {
        let limit = Redactor.maxSecretLength
        #expect(limit == 4096)
        let longest = String(repeating: "k", count: limit)
        let tooLong = String(repeating: "x", count: limit + 1)
        let redactor = Redactor(secrets: [tooLong, "short-one"])
        #expect(redactor.secretCount == 1)
        #expect(redactor.register(tooLong) == false)
        #expect(redactor.register(String(repeating: "é", count: limit / 2 + 1)) == false, "the cap counts UTF-8 bytes")
        #expect(redactor.register("") == false)
        #expect(redactor.register(longest))
        #expect(redactor.secretCount == 2)
        #expect(redactor.redact("a \(longest) b") == "a *** b")
    }

    @Test func aRefusedValueEmptiesItsSlot() {
        let redactor = Redactor()
        #expect(redactor.setSecret("token-one", named: "winpower.token"))
        #expect(redactor.setSecret(String(repeating: "t", count: Redactor.maxSecretLength + 1), named: "winpower.token") == false)
        #expect(redactor.secretCount == 0)
        #expect(redactor.secretNames.isEmpty)
        #expect(redactor.setSecret(nil, named: "winpower.token"))
    }

    /// The sequence the exporter runs at start and on each reload: `winpower.password` and one
    /// slot per server, replaced as a group.
    @Test func reloadedPasswordsReplaceTheirPredecessorsAndRemovedServersAreForgotten() {
        let redactor = Redactor()
        redactor.setSecret("token-abc", named: "winpower.token")
        redactor.setSecret("default-pw", named: "winpower.password")
        redactor.replaceSecrets(withPrefix: "servers.", by: ["servers.a.password": "old-a-pw", "servers.b.password": "b-pw"])
        #expect(redactor.secretNames == ["servers.a.password", "servers.b.password", "winpower.password", "winpower.token"])
        #expect(redactor.redact("old-a-pw b-pw default-pw token-abc") == "*** *** *** ***")

        // Reload: a's password rotated, b is gone, the default password was removed.
        redactor.setSecret(nil, named: "winpower.password")
        let refused = redactor.replaceSecrets(withPrefix: "servers.", by: ["servers.a.password": "new-a-pw"])
        #expect(refused.isEmpty)
        #expect(redactor.secretNames == ["servers.a.password", "winpower.token"])
        #expect(redactor.secretCount == 2)
        #expect(redactor.redact("old-a-pw new-a-pw b-pw default-pw token-abc") == "old-a-pw *** b-pw default-pw ***")

        // Many reloads with rotating passwords keep the set at its size.
        for round in 0..<50 {
            redactor.replaceSecrets(withPrefix: "servers.", by: ["servers.a.password": "pw-\(round)", "servers.c.password": "c"])
        }
        #expect(redactor.secretCount == 3)
        #expect(redactor.redact("pw-48 pw-49") == "pw-48 ***")

        let tooLong = String(repeating: "p", count: Redactor.maxSecretLength + 1)
        #expect(redactor.replaceSecrets(withPrefix: "servers.", by: ["servers.a.password": tooLong, "servers.z.password": "z"])
                == ["servers.a.password"])
        #expect(redactor.secretNames == ["servers.z.password", "winpower.token"])
    }

    /// Redaction only copies the published patterns: it works while a registration holds the
    /// writers' lock (with one lock for both, this would lock the mutex twice on one thread and
    /// trap).
    @Test func redactionDoesNotWaitForARegistration() {
        let redactor = Redactor(secrets: ["hunter2"])
        let sink = InMemoryLogSink()
        let log = WPLogger(label: "test", sink: sink, redactor: redactor)
        redactor.whileRegistering {
            #expect(redactor.redact("pw hunter2") == "pw ***")
            #expect(redactor.redact(["detail": "hunter2"])["detail"] == "***")
            #expect(redactor.secretCount == 1)
            log.info("login with hunter2", ["url": "http://admin:pa/ss@host"])
        }
        #expect(sink.records.map(\.message) == ["login with ***"])
        #expect(sink.records.first?.fields["url"] == "http://admin:***@host")
    }

    @Test func concurrentRegistrationsAndRedactionsAgree() async {
        let redactor = Redactor()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for round in 0..<100 { redactor.setSecret("secret-\(writer)-\(round)", named: "slot-\(writer)") }
                }
            }
            group.addTask {
                for _ in 0..<400 { _ = redactor.redact("secret-0-99 secret-1-99") }
            }
        }
        #expect(redactor.secretCount == 4)
        #expect(redactor.redact("secret-0-99 secret-1-99 secret-2-99 secret-3-99 secret-0-98") == "*** *** *** *** secret-0-98")
    }
}

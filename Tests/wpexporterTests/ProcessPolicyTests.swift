import Foundation
import Testing
import WPTestThreads
import WPConfig
import WPLogging
import WPServer
import WPExporter
@testable import wpexporter

/// The executable's own process policy: the addresses it prints and the secrets of its log
/// (its signal handling is WPProcess', tested there).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ProcessPolicyTests {
    /// Every password of the configuration is masked in logs: WinPower's, each server's, the
    /// Pushgateway's; a reload replaces them.
    @Test func everyPasswordIsASecretOfTheLog() {
        var configuration = ExporterConfiguration()
        configuration.winPower.password = Secret("wp-Secret-1")
        configuration.push.password = Secret("push-Secret-2")
        var entry = ServerEntry(name: "east", winPower: configuration.winPower)
        entry.winPower.password = Secret("east-Secret-3")
        configuration.servers = [entry]
        let redactor = Redactor()
        ExporterSecrets.register(configuration, in: redactor)
        let line = redactor.redact("wp-Secret-1 push-Secret-2 east-Secret-3")
        for secret in ["wp-Secret-1", "push-Secret-2", "east-Secret-3"] { #expect(!line.contains(secret), "\(secret)") }
        configuration.push.password = Secret("push-Rotated-4")
        ExporterSecrets.register(configuration, in: redactor)
        #expect(!redactor.redact("push-Rotated-4").contains("push-Rotated-4"))
        #expect(redactor.redact("push-Secret-2").contains("push-Secret-2"), "a replaced password is no longer a secret")
    }

    @Test func wildcardAddressesPrintAsLocalhost() {
        #expect(RuntimeCommands.url(ServerAddress(host: "0.0.0.0", port: 9090), "/metrics") == "http://localhost:9090/metrics")
        #expect(RuntimeCommands.url(ServerAddress(host: "::1", port: 1)) == "http://[::1]:1")
    }
}

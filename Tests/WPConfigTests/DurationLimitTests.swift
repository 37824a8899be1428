import Testing
import WPTestThreads
@testable import WPConfig

/// Durations far beyond any sensible value are refused where they come from, before deadline
/// arithmetic could overflow on them (`--server.read_timeout 2562047h` trapped the event loop
/// once the machine had been up ~47 minutes).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DurationLimitTests {
    @Test func hugeReadTimeoutFlagIsRefusedNamingTheFlag() {
        let problems = TestInputs.problems(TestInputs.make(flags: [("--server.read_timeout", "2562047h")]))
        #expect(problems == ["flag --server.read_timeout: server.read_timeout: 2562047h is too long; must be at most 1h"])
    }

    @Test(arguments: [
        ("server:\n  write_timeout: 61m\n", "./config.yaml:2:18: server.write_timeout: 1h1m is too long; must be at most 1h"),
        ("winpower:\n  timeout: 2h\n  api_timeout: 2h\n", "./config.yaml:2:12: winpower.timeout: 2h is too long; must be at most 1h"),
        ("scheduler:\n  collection_interval: 25h\n  graceful_shutdown_timeout: 2h\n", "./config.yaml:2:24: scheduler.collection_interval: 25h is too long; must be at most 24h"),
        ("storage:\n  flush_interval: 100000h\n", "./config.yaml:2:19: storage.flush_interval: 100000h is too long; must be at most 24h"),
        ("energy:\n  max_gap: 169h\n", "./config.yaml:2:12: energy.max_gap: 169h is too long; must be at most 168h"),
    ])
    func fileDurationAboveItsMaximum(file: String, expected: String) {
        let problems = TestInputs.problems(TestInputs.make(file: file, withCredentials: false, purpose: .demo))
        #expect(problems.contains(expected), "\(problems)")
    }

    @Test func environmentValueAboveItsMaximumNamesTheVariable() {
        let problems = TestInputs.problems(TestInputs.make(environment: ["WINPOWER_EXPORTER_PUSH_INTERVAL": "48h"]))
        #expect(problems == ["env WINPOWER_EXPORTER_PUSH_INTERVAL: push.interval: 48h is too long; must be at most 24h"])
    }

    @Test func maximaThemselvesAreAccepted() {
        let problems = TestInputs.problems(TestInputs.make(flags: [
            ("--server.read_timeout", "1h"), ("--server.write_timeout", "1h"), ("--winpower.timeout", "1h"),
            ("--scheduler.collection_interval", "24h"), ("--energy.max_gap", "168h"), ("--storage.flush_interval", "24h"),
        ]))
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func everyDurationKeyHasAMaximum() {
        let durationKeys = ConfigKey.all.filter { if case .duration = $0.type { return true } else { return false } }
            .map(\.name).filter { $0 != "winpower.refresh_threshold" }
        #expect(Set(durationKeys) == Set(LoadState.durationMaxima.map(\.name)))
    }
}

import Testing
import WPTestThreads
@testable import WPConfig

/// `servers:` and the users files have documented ceilings on how many entries they list; past
/// one the file is refused naming it (and, for servers, advising to shard).
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct CountCeilingTests {
    static func servers(_ count: Int) -> String {
        "servers:\n" + (0..<count).map { "  - name: s\($0)\n    base_url: https://ups\($0).example.com\n" }.joined()
    }

    @Test func serversPastTheCeilingAreRefusedWithAdviceToShard() {
        let problems = TestInputs.problems(TestInputs.make(file: Self.servers(LoadState.maxServers + 1)))
        #expect(problems.contains { $0.contains("lists 10001 servers") && $0.contains("at most 10000") && $0.contains("shard") })
    }

    @Test func serversAtTheCeilingAreNotRefusedForTheirCount() {
        let problems = TestInputs.problems(TestInputs.make(file: Self.servers(LoadState.maxServers)))
        #expect(!problems.contains { $0.contains("shard") })
    }

    @Test func aNUTUsersFilePastTheCeilingIsRefused() {
        let users = "users:\n" + (0...NUTUsersFile.maxEntries).map { "  u\($0):\n    password: p\n" }.joined()
        let error = #expect(throws: ConfigurationError.self) {
            _ = try NUTUsersFile.load(path: "/u.yaml", files: .inMemory(["/u.yaml": users]))
        }
        #expect(error?.problems.contains { $0.description.contains("1001 users") && $0.description.contains("at most 1000") } == true)
    }

    @Test func anSNMPUsersFilePastTheCeilingIsRefused() {
        let traps = "communities:\n  - community: public\ntraps:\n"
            + (0...SNMPUsersFile.maxEntries).map { _ in "  - address: 192.0.2.1\n    community: public\n" }.joined()
        let error = #expect(throws: ConfigurationError.self) {
            _ = try SNMPUsersFile.load(path: "/s.yaml", files: .inMemory(["/s.yaml": traps]))
        }
        #expect(error?.problems.contains { $0.description.contains("1001 receivers") && $0.description.contains("at most 1000") } == true)
    }
}

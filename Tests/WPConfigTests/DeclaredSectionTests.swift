import Testing
import WPTestThreads
@testable import WPConfig

/// A section a front end declares: its keys read as the exporter's own (file, environment,
/// flags, precedence, errors at their source), listed, documented and checked, its secret
/// masked.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DeclaredSectionTests {
    struct Journal: ConfigSectionSettings {
        var enabled = false
        var path = "./journal"
        var keep = 7
        var every: Duration = .seconds(30)
        var label: String?
        var token: Secret?

        static let section = ConfigSection<Journal>("journal", [
            .boolean("enabled", \.enabled, "Write the journal."),
            .text("path", \.path, as: .path, "Directory of the journal."),
            .integer("keep", \.keep, in: 1...365, "Days kept.", env: ["JOURNAL_DAYS"], flags: ["--journal-days"]),
            .duration("every", \.every, "Time between two writes."),
            .text("label", \.label, "Label of each line."),
            .secret("token", \.token, "Token the readers present."),
        ])

        func problems() -> [ConfigDiagnostic] {
            enabled && path.isEmpty ? [ConfigDiagnostic(key: "journal.path", source: nil, message: "must not be empty while journal.enabled")] : []
        }
    }

    static let schema = ConfigSchema.exporter.adding(Journal.self)

    static func inputs(file: String? = nil, flags: [(String, String)] = [], environment: [String: String] = [:],
                       modes: [String: Int] = [:]) -> ConfigurationInputs {
        var inputs = TestInputs.make(file: file, flags: flags, environment: environment, modes: modes)
        inputs.schema = schema
        return inputs
    }

    @Test func itsKeysAreReadFromTheFileTheEnvironmentAndFlagsInThatPrecedence() throws {
        let file = "journal:\n  enabled: true\n  keep: 30\n  every: 1m\n  label: file\n  token: s3cret-token\n"
        let loaded = try ConfigurationLoader.load(Self.inputs(
            file: file, flags: [("--journal-days", "90")],
            environment: ["WINPOWER_EXPORTER_JOURNAL_LABEL": "env", "JOURNAL_DAYS": "60"]))
        let journal = loaded.configuration[section: Journal.self]
        #expect(journal.enabled && journal.keep == 90 && journal.every == .seconds(60))
        #expect(journal.label == "env" && journal.path == "./journal" && journal.token?.reveal() == "s3cret-token")
        #expect(loaded.settings["journal.keep"]?.source == .flag("--journal-days"))
        #expect(loaded.settings["journal.label"]?.source == .environment("WINPOWER_EXPORTER_JOURNAL_LABEL"))
        // Without the section in the file, the defaults.
        let plain = try ConfigurationLoader.load(Self.inputs())
        #expect(plain.configuration[section: Journal.self] == Journal())
        #expect(plain.configuration.declaredSections.isEmpty)
    }

    @Test func badValuesAreNamedWhereTheyWereRead() {
        let cases: [(String, [(String, String)], [String: String], String)] = [
            ("journal:\n  keep: 0\n", [], [:], "./config.yaml:2:9: journal.keep: 0 is out of range; must be 1–365"),
            ("journal:\n  enabled: maybe\n", [], [:], #"./config.yaml:2:12: journal.enabled: "maybe" must be true or false"#),
            ("journal:\n  kepe: 3\n", [], [:], #"./config.yaml:2:3: unknown key "journal.kepe"; did you mean "journal.keep"?"#),
            ("jurnal:\n  keep: 3\n", [], [:],
             #"./config.yaml:1:1: unknown section "jurnal"; allowed: server, winpower, storage, scheduler, energy, logging, push, nut, snmp, journal, servers; did you mean "journal"?"#),
            ("journal:\n  every: 9000h\n", [], [:], "./config.yaml:2:10: journal.every: 9000h is too long; must be at most 8784h"),
            ("journal:\n  enabled: true\n  path: ''\n", [], [:], "./config.yaml:3:9: journal.path: must not be empty while journal.enabled"),
            ("", [("--journal.keep", "x")], [:], #"flag --journal.keep: journal.keep: "x" must be a whole number"#),
        ]
        for (file, flags, environment, expected) in cases where !expected.isEmpty {
            let problems = TestInputs.problems(Self.inputs(file: file, flags: flags, environment: environment))
            #expect(problems == [expected], "\(file) \(flags)")
        }
        // Unknown to the exporter's own schema: the section is refused, naming what is allowed.
        let plain = TestInputs.problems(TestInputs.make(file: "journal:\n  keep: 3\n"))
        #expect(plain.first?.contains(#"unknown section "journal""#) == true, "\(plain)")
    }

    @Test func itsSecretIsMaskedInTheTableAndInErrorsAndListedForTheLog() throws {
        let secret = "s3cret-token"
        let loaded = try ConfigurationLoader.load(Self.inputs(file: "journal:\n  token: \(secret)\n  keep: 3\n"))
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("journal.token") && table.contains("journal.keep") && !table.contains(secret), "\(table)")
        #expect(loaded.configuration.declaredSecrets.map(\.key) == ["journal.token"])
        #expect(loaded.configuration.declaredSecrets.map(\.value) == [secret])
        // A refused value of a secret key is masked in the problem.
        let problems = TestInputs.problems(Self.inputs(file: "journal:\n  token: [\(secret)]\n"))
        #expect(!problems.isEmpty && problems.allSatisfy { !$0.contains(secret) }, "\(problems)")
        // A file others can read that holds it is warned about, as the exporter's passwords are.
        let readable = try ConfigurationLoader.load(Self.inputs(file: "journal:\n  token: \(secret)\n", modes: ["./config.yaml": 0o644]))
        #expect(readable.warnings.contains { $0.key == "journal.token" && $0.message.contains("chmod 600") }, "\(readable.warnings)")
    }

    @Test func aConfigurationBuiltInCodeIsCheckedByTheSameRules() {
        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = "https://winpower.example.com"
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("hunter2")
        #expect(configuration.problems().isEmpty)
        var journal = Journal()
        journal.keep = 400
        journal.enabled = true
        journal.path = ""
        configuration[section: Journal.self] = journal
        #expect(configuration.problems().map(\.description)
                == ["journal.keep: 400 is out of range; must be 1–365", "journal.path: must not be empty while journal.enabled"])
        // Set back to the defaults, the section holds nothing: equal to one never set.
        configuration[section: Journal.self] = Journal()
        #expect(configuration.declaredSections.isEmpty)
    }

    @Test func theReferenceAndTheKeysListTheSection() {
        let markdown = ConfigurationReference.markdown(Self.schema)
        #expect(markdown.contains("### `journal`"))
        #expect(markdown.contains("| `journal.keep` | integer 1–365 | `7` | `WINPOWER_EXPORTER_JOURNAL_KEEP`<br>`JOURNAL_DAYS` | `--journal.keep`<br>`--journal-days` | Days kept. |"))
        #expect(markdown.contains("| `journal.token` | string (secret) | — |"))
        #expect(!ConfigurationReference.markdown().contains("journal"))
        #expect(Self.schema.key(forFlag: "--journal-days")?.name == "journal.keep")
        #expect(Self.schema.sectionNames.last == "journal")
    }
}

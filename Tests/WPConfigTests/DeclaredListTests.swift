import Testing
import WPTestThreads
@testable import WPConfig

/// A list key of a declared section (`relay.sinks`): a sequence of entries read from the file
/// with errors at their position, shown by `check-config` with secrets masked, secrets read from
/// files, documented, and set in code.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DeclaredListTests {
    struct Relay: ConfigSectionSettings {
        struct Sink: ConfigListEntrySettings {
            var name = ""
            var url: Secret?
            var kind = "plain"
            var tags: [String] = []

            static let fields: [ConfigSection<Sink>.Field] = [
                .text("name", \.name, "Name of the sink."),
                .secret("url", \.url, "Where it sends.", file: true),
                .text("kind", \.kind, as: .choice(["plain", "fancy"]), "How it writes."),
                .words("tags", \.tags, as: .choice(["alpha", "beta", "gamma"]), "Tags it takes."),
            ]
        }

        var keep = 3
        var sinks: [Sink] = []

        static let section = ConfigSection<Relay>("relay", [
            .integer("keep", \.keep, in: 1...9, "Messages kept."),
            .list("sinks", \.sinks, "Where it relays."),
        ])

        func problems() -> [ConfigDiagnostic] {
            sinks.indices.compactMap { index in
                sinks[index].name.isEmpty ? ConfigDiagnostic(key: "relay.sinks[\(index)].name", source: nil, message: "is required") : nil
            }
        }
    }

    static let schema = ConfigSchema.exporter.adding(Relay.self)

    static func inputs(file: String, files: [String: String] = [:], modes: [String: Int] = [:]) -> ConfigurationInputs {
        var inputs = TestInputs.make(file: file, files: files, modes: modes)
        inputs.schema = schema
        return inputs
    }

    static let twoSinks = """
        relay:
          keep: 5
          sinks:
            - name: ops
              url: https://hooks.example.com/send?token=inline-secret
              tags: [alpha, gamma]
            - name: lab
              kind: fancy
              url_file: /etc/relay/lab.url
              tags:
                - beta
        """

    @Test func entriesAreReadFromTheFileWithSecretsFromFilesAndShownMasked() throws {
        let loaded = try ConfigurationLoader.load(Self.inputs(file: Self.twoSinks, files: ["/etc/relay/lab.url": "https://lab.example.com/file-secret\n"]))
        let relay = loaded.configuration[section: Relay.self]
        #expect(relay.keep == 5 && relay.sinks.map(\.name) == ["ops", "lab"])
        #expect(relay.sinks.map(\.kind) == ["plain", "fancy"] && relay.sinks.map(\.tags) == [["alpha", "gamma"], ["beta"]])
        #expect(relay.sinks.map { $0.url?.reveal() } == ["https://hooks.example.com/send?token=inline-secret", "https://lab.example.com/file-secret"])
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("relay.sinks[0].tags") && table.contains("[alpha, gamma]") && table.contains("relay.sinks[1].url_file"), "\(table)")
        #expect(table.contains("/etc/relay/lab.url") && table.contains("./config.yaml:5:12"), "\(table)")
        #expect(!table.contains("inline-secret") && !table.contains("file-secret"), "\(table)")
        #expect(loaded.configuration.declaredSecrets.map(\.key) == ["relay.sinks[0].url", "relay.sinks[1].url"])
        // Written in a file others can read, the inline secret is warned about.
        let readable = try ConfigurationLoader.load(Self.inputs(file: Self.twoSinks, files: ["/etc/relay/lab.url": "x"],
                                                                modes: ["./config.yaml": 0o644]))
        #expect(readable.warnings.map(\.key) == ["relay.sinks[0].url"], "\(readable.warnings)")
    }

    @Test func badEntriesAreNamedWhereTheyAreWritten() {
        let cases: [(String, String)] = [
            ("relay:\n  sinks:\n    - name: a\n      tags: [alpha, btea]\n",
             #"./config.yaml:4:21: relay.sinks[0].tags[1]: "btea" must be one of alpha, beta, gamma; did you mean "beta"?"#),
            ("relay:\n  sinks:\n    - name: a\n      kidn: plain\n",
             #"./config.yaml:4:7: unknown key "relay.sinks[0].kidn"; an entry holds name, url, url_file, kind, tags; did you mean "kind"?"#),
            ("relay:\n  sinks:\n    - name: a\n    - kind: plain\n", "./config.yaml:4:7: relay.sinks[1].name: is required"),
            ("relay:\n  sinks:\n    - just-a-word\n",
             "./config.yaml:3:7: relay.sinks[0]: must be a mapping of name, url, url_file, kind, tags, found a scalar"),
            ("relay:\n  sinks: ops\n", "./config.yaml:2:10: relay.sinks: must be a sequence of entries ('- name: ...'), found a scalar"),
            ("relay:\n  sinks:\n    - name: a\n      url: https://x.example.com/\n      url_file: /nope\n",
             "./config.yaml:5:17: relay.sinks[0].url_file: cannot be combined with relay.sinks[0].url; set only one"),
            ("relay:\n  sinks:\n    - name: a\n      url_file: /nope\n",
             #"./config.yaml:4:17: relay.sinks[0].url_file: "/nope" does not exist"#),
            ("relay:\n  sinks:\n    - name: a\n      url: [https://token-in-error.example.com/]\n",
             "./config.yaml:4:12: relay.sinks[0].url: must be a single value (string (secret)), found a sequence"),
        ]
        for (file, expected) in cases {
            let problems = TestInputs.problems(Self.inputs(file: file))
            #expect(problems == [expected], "\(file)")
            #expect(problems.allSatisfy { !$0.contains("token-in-error") })
        }
    }

    @Test func listsSetInCodeReadBackAndAreChecked() {
        var configuration = ExporterConfiguration()
        var relay = Relay()
        relay.sinks = [Relay.Sink(name: "a", url: Secret("https://a.example.com/k"), kind: "fancy", tags: ["beta"]), Relay.Sink()]
        configuration[section: Relay.self] = relay
        #expect(configuration[section: Relay.self] == relay)
        #expect(configuration.declaredSections["relay"]?.lists["relay.sinks"]?.count == 2)
        #expect(configuration.declaredSections["relay"]?.problems().map(\.description) == ["relay.sinks[1].name: is required"])
        configuration[section: Relay.self] = Relay()
        #expect(configuration.declaredSections.isEmpty)
    }

    struct Vault: ConfigSectionSettings {
        var user = ""
        var password: Secret?
        static let section = ConfigSection<Vault>("vault", [
            .text("user", \.user, "User."),
            .secret("password", \.password, "Password.", file: true),
        ])
        func problems() -> [ConfigDiagnostic] {
            !user.isEmpty && password == nil ? [ConfigDiagnostic(key: "vault.password", source: nil, message: "is required with vault.user")] : []
        }
    }

    @Test func aSectionsSecretMayBeReadFromTheFileItsFileKeyNames() throws {
        var inputs = TestInputs.make(file: "vault:\n  user: u\n", environment: ["WINPOWER_EXPORTER_VAULT_PASSWORD_FILE": "/run/vault.pw"],
                                     files: ["/run/vault.pw": "s3cret-from-file\n"])
        inputs.schema = ConfigSchema.exporter.adding(Vault.self)
        let loaded = try ConfigurationLoader.load(inputs)
        #expect(loaded.configuration[section: Vault.self].password?.reveal() == "s3cret-from-file")
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("vault.password_file") && table.contains("/run/vault.pw") && !table.contains("s3cret-from-file"), "\(table)")
        #expect(inputs.schema.key(forFlag: "--vault.password_file")?.type == .path)
        // Both set, or a file that is not there: named at their source.
        var both = inputs
        both.environment["WINPOWER_EXPORTER_VAULT_PASSWORD"] = "inline"
        #expect(TestInputs.problems(both) == ["env WINPOWER_EXPORTER_VAULT_PASSWORD: vault.password: cannot be combined with vault.password_file (env WINPOWER_EXPORTER_VAULT_PASSWORD_FILE); set only one"])
        var missing = inputs
        missing.environment["WINPOWER_EXPORTER_VAULT_PASSWORD_FILE"] = "/run/none"
        #expect(TestInputs.problems(missing) == [#"env WINPOWER_EXPORTER_VAULT_PASSWORD_FILE: vault.password_file: "/run/none" does not exist"#])
    }

    @Test func theReferenceDocumentsEachKeyOfAnEntry() {
        let markdown = ConfigurationReference.markdown(Self.schema)
        #expect(markdown.contains("| `relay.sinks` | list of entries | — | file only | file only | Where it relays. |"), "\(markdown)")
        #expect(markdown.contains("| `relay.sinks[].kind` | plain \\| fancy | `plain` | file only | file only | How it writes. |"))
        #expect(markdown.contains("| `relay.sinks[].url_file` | path | — | file only | file only | File holding `url`. |"))
        #expect(markdown.contains("| `relay.sinks[].tags` | list of alpha \\| beta \\| gamma | — |"))
        #expect(Self.schema.listKeyNames == ["relay.sinks", "relay.sinks[].name", "relay.sinks[].url", "relay.sinks[].url_file",
                                             "relay.sinks[].kind", "relay.sinks[].tags"])
    }
}

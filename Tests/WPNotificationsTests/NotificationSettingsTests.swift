import Testing
import WPConfig
import WPNotifications
import WPTestThreads

/// `notifications.*` as a user writes it: the shape docs/notifications.md shows loads as
/// written, secrets stay out of every table and message, and mistakes are named where they are.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct NotificationSettingsTests {
    static let schema = ConfigSchema.exporter.adding(NotificationSettings.self)
    static let token = "tok-5f1c9a"
    static let signing = "SEC-8b2e77"

    static func inputs(_ file: String, files: [String: String] = [:]) -> ConfigurationInputs {
        var all = files
        all["./config.yaml"] = file
        return ConfigurationInputs(environment: ["WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://winpower.example.com",
                                                 "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin",
                                                 "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2"],
                                   files: .inMemory(all, modes: ["./config.yaml": 0o600]), schema: schema)
    }

    static let example = """
        notifications:
          receivers:
            - name: ops
              type: dingtalk            # wecom, dingtalk, feishu, webhook, uptime_kuma
              url: https://oapi.dingtalk.com/robot/send?access_token=\(token)
              secret_file: /etc/wpexporter/dingtalk.secret
              language: zh-CN
          routes:
            - events: [on_battery, mains_back, low_battery, fault, disconnected, server_unreachable]
              receivers: [ops]
        """

    @Test func theDocumentedShapeLoadsAsWrittenWithItsSecretsMasked() throws {
        let loaded = try ConfigurationLoader.load(Self.inputs(Self.example, files: ["/etc/wpexporter/dingtalk.secret": Self.signing + "\n"]))
        let settings = loaded.configuration[section: NotificationSettings.self]
        let receiver = try #require(settings.receivers.first)
        #expect(receiver.name == "ops" && receiver.type == "dingtalk" && receiver.language == "zh-CN")
        #expect(receiver.secret?.reveal() == Self.signing && receiver.url?.reveal().hasSuffix(Self.token) == true)
        #expect(settings.routes.first?.events == ["on_battery", "mains_back", "low_battery", "fault", "disconnected", "server_unreachable"])
        #expect(settings.routes.first?.receivers == ["ops"])
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("notifications.receivers[0].url") && table.contains("/etc/wpexporter/dingtalk.secret"), "\(table)")
        #expect(!table.contains(Self.token) && !table.contains(Self.signing), "\(table)")
        let secrets = loaded.configuration.declaredSecrets
        #expect(secrets.map(\.key) == ["notifications.receivers[0].url", "notifications.receivers[0].secret"])
    }

    @Test func mistakesAreNamedAtTheirKeyWithoutTheToken() {
        let cases: [(String, String)] = [
            (Self.example.replacing("receivers: [ops]", with: "receivers: [osp]"),
             #"./config.yaml:10:18: notifications.routes[0].receivers: "osp" is no receiver; receivers: ops; did you mean "ops"?"#),
            (Self.example.replacing("on_battery, mains_back", with: "on_batery, mains_back"),
             #"./config.yaml:9:16: notifications.routes[0].events[0]: "on_batery" must be one of on_battery, mains_back, low_battery, low_battery_cleared, bypass, bypass_ended, fault, fault_cleared, alarm_raised, alarm_cleared, self_test_started, self_test_finished, self_test_overdue, self_test_overdue_cleared, battery_health_low, battery_health_recovered, disconnected, reconnected, stale, fresh, server_unreachable, login_refused, server_back; did you mean "on_battery"?"#),
            (Self.example.replacing("https://oapi", with: "oapi"),
             "./config.yaml:5:12: notifications.receivers[0].url: must start with https:// or http:// (the value is masked: it holds the receiver's token)"),
            (Self.example.replacing("type: dingtalk ", with: "type: wecom    "),
             "./config.yaml:6:20: notifications.receivers[0].secret: a wecom receiver signs nothing; remove it (its token is in the URL)"),
            (Self.example + "\n  time_zone: Mars/Olympus\n",
             #"./config.yaml:11:14: notifications.time_zone: "Mars/Olympus" is no time zone; write local, a name such as Asia/Shanghai, or UTC+08:00"#),
        ]
        for (file, expected) in cases {
            let problems: [String]
            do {
                _ = try ConfigurationLoader.load(Self.inputs(file, files: ["/etc/wpexporter/dingtalk.secret": Self.signing]))
                problems = []
            } catch {
                problems = error.problems.map(\.description)
            }
            #expect(problems == [expected], "\(file)")
            #expect(problems.allSatisfy { !$0.contains(Self.token) && !$0.contains(Self.signing) })
        }
    }

    @Test func receiversNeedNamesOnceAndARoute() {
        var settings = NotificationSettings()
        var first = NotificationSettings.Receiver()
        first.name = "ops"
        first.url = Secret("https://hook.example.com/a")
        var second = first
        second.url = nil
        settings.receivers = [first, second]
        #expect(settings.problems().map(\.description) == [
            #"notifications.receivers[1].name: "ops" names another receiver too; each name once"#,
            "notifications.receivers[1].url: is required (or url_file)",
            "notifications.routes: is required with receivers: no event would reach them",
        ])
    }
}

import Foundation
import Testing
import WPClient
import WPConfig
import WPEnergy
import WPMQTTFrontEnd
import WPTestSupport
import WPTestThreads

/// `mqtt.*` refused at load with the key named, and what Home Assistant is told of a UPS.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct MQTTSettingsTests {
    static func problems(_ file: String, files: [String: String] = [:]) -> [String] {
        var all = files
        all["./config.yaml"] = file
        let inputs = ConfigurationInputs(environment: ["WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://winpower.example.com",
                                                       "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin",
                                                       "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2"],
                                         files: .inMemory(all), schema: ConfigSchema.exporter.adding(MQTTSettings.self))
        do {
            _ = try ConfigurationLoader.load(inputs)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    /// A client certificate's key that others may read is warned about at load, naming
    /// `mqtt.key_file` and the file, as the web configuration's key is; mode 600 is not.
    @Test func aKeyFileOthersMayReadIsWarnedAbout() throws {
        func warnings(mode: Int) throws -> [String] {
            let file = "mqtt:\n  url: mqtts://broker\n  cert_file: /etc/wp/client.crt\n  key_file: /etc/wp/client.key\n"
            let files = ["./config.yaml": file, "/etc/wp/client.crt": "-----BEGIN CERTIFICATE-----\n",
                         "/etc/wp/client.key": "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n"]
            let inputs = ConfigurationInputs(environment: ["WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://winpower.example.com",
                                                           "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin",
                                                           "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2"],
                                             files: .inMemory(files, modes: ["/etc/wp/client.key": mode, "./config.yaml": 0o600]),
                                             schema: ConfigSchema.exporter.adding(MQTTSettings.self))
            return try ConfigurationLoader.load(inputs).warnings.map(\.description)
        }
        let warned = try warnings(mode: 0o640)
        #expect(warned == [#"./config.yaml:4:13: mqtt.key_file: "/etc/wp/client.key" holds a private key and is readable by other users (mode 0640); run chmod 600 /etc/wp/client.key"#])
        #expect(warned.allSatisfy { !$0.contains("c2VjcmV0") }, "nothing of the key in the warning")
        #expect(try warnings(mode: 0o600).isEmpty)
    }

    @Test func badBrokersAndPrefixesAreRefusedNamingTheKey() throws {
        let cases: [(String, String)] = [
            ("mqtt:\n  url: mqtt://\n", #"./config.yaml:2:8: mqtt.url: "mqtt://" has no host"#),
            ("mqtt:\n  url: mqtt://broker:70000\n", #"./config.yaml:2:8: mqtt.url: "mqtt://broker:70000" has a bad port; must be 1–65535"#),
            ("mqtt:\n  url: http://broker\n", #"./config.yaml:2:8: mqtt.url: "http://broker" must start with mqtt:// or mqtts://"#),
            ("mqtt:\n  url: mqtt://u:s3cret@broker\n",
             "./config.yaml:2:8: mqtt.url: holds credentials (user:******@); set mqtt.username and mqtt.password instead"),
            ("mqtt:\n  url: mqtt://broker\n  topic_prefix: ups/+\n",
             #"./config.yaml:3:17: mqtt.topic_prefix: "ups/+" holds + or #, MQTT's wildcards, which no topic may"#),
            ("mqtt:\n  url: mqtt://broker\n  discovery_prefix: '#'\n",
             ##"./config.yaml:3:21: mqtt.discovery_prefix: "#" holds + or #, MQTT's wildcards, which no topic may"##),
            ("mqtt:\n  url: mqtt://broker\n  password: x\n",
             "./config.yaml:3:13: mqtt.password: is set without mqtt.username; MQTT sends a password only with a user name"),
            ("mqtt:\n  url: mqtt://broker\n  connect_timeout: 50ms\n",
             "./config.yaml:3:20: mqtt.connect_timeout: must be 100ms–5m"),
            ("mqtt:\n  url: mqtt://broker\n  username: u\n  password_file: /none\n",
             #"./config.yaml:4:18: mqtt.password_file: "/none" does not exist"#),
        ]
        for (file, expected) in cases {
            let problems = Self.problems(file)
            #expect(problems == [expected], "\(file)")
            #expect(problems.allSatisfy { !$0.contains("s3cret") })
        }
        #expect(Self.problems("mqtt:\n  url: mqtt://[::1]:1884\n  username: u\n  password_file: /run/pw\n", files: ["/run/pw": "x\n"]).isEmpty)
        let v6 = try MQTTSettings.broker("mqtt://[::1]:1884").get()
        #expect(v6.host == "::1" && v6.port == 1884)
        for (url, reason) in [("mqtt://[::1", #""mqtt://[::1" has an unclosed ["#), ("mqtt://:1883", #""mqtt://:1883" has no host"#)] {
            guard case .failure(let error) = MQTTSettings.broker(url) else {
                Issue.record("\(url) accepted")
                continue
            }
            #expect(error.description == reason)
        }
        let plain = try MQTTSettings.broker("mqtt://broker.local").get()
        #expect(plain.host == "broker.local" && plain.port == 1883 && !plain.tls)
    }

    @Test func tlsToTheBrokerIsMqttsWithItsFilesCheckedAtLoad() throws {
        let secure = try MQTTSettings.broker("mqtts://broker.local").get()
        #expect(secure.host == "broker.local" && secure.port == 8883 && secure.tls)
        #expect(try MQTTSettings.broker("MQTTS://[::1]:18883").get() == ("::1", 18883, true))
        let files = ["/etc/ca.pem": "-----BEGIN CERTIFICATE-----\n", "/etc/c.pem": "c", "/etc/c.key": "k"]
        #expect(Self.problems("mqtt:\n  url: mqtts://broker\n  ca_file: /etc/ca.pem\n  cert_file: /etc/c.pem\n  key_file: /etc/c.key\n",
                              files: files).isEmpty)
        let cases: [(String, [String])] = [
            ("mqtt:\n  url: mqtts://broker\n  ca_file: /etc/none.pem\n",
             [#"./config.yaml:3:12: mqtt.ca_file: "/etc/none.pem" does not exist"#]),
            ("mqtt:\n  url: mqtt://broker\n  ca_file: /etc/ca.pem\n  skip_ssl_verify: true\n",
             ["./config.yaml:3:12: mqtt.ca_file: applies to TLS, but mqtt.url is not mqtts://; use mqtts:// or remove it",
              "./config.yaml:4:20: mqtt.skip_ssl_verify: applies to TLS, but mqtt.url is not mqtts://; use mqtts:// or remove it",
              "./config.yaml:4:20: mqtt.skip_ssl_verify: is true while mqtt.ca_file is set; set only one"]),
            ("mqtt:\n  url: mqtts://broker\n  cert_file: /etc/c.pem\n",
             ["./config.yaml:3:14: mqtt.cert_file: is set without mqtt.key_file; a client certificate needs both"]),
            ("mqtt:\n  url: mqtts://broker\n  key_file: /etc/c.key\n",
             ["./config.yaml:3:13: mqtt.key_file: is set without mqtt.cert_file; a client certificate needs both"]),
        ]
        for (file, expected) in cases {
            #expect(Self.problems(file, files: files) == expected, "\(file)")
        }
        // Environment and flags reach the TLS keys as every key of the section.
        #expect(MQTTSettings.section.keys.map(\.name).contains("mqtt.ca_file"))
        #expect(MQTTSettings.section.keys.first { $0.name == "mqtt.skip_ssl_verify" }?.environmentVariable
                == "WINPOWER_EXPORTER_MQTT_SKIP_SSL_VERIFY")
    }

    @Test func homeAssistantIsToldEachEntityWithItsClassesAndUnits() throws {
        let device = Device.make(id: "5e1a7a0c-0000", alias: "Rack A")
        let ups = MQTTUPS(server: "", device: device)
        #expect(ups.stateTopic("wpexporter") == "wpexporter/default/5e1a7a0c-0000/state")
        let state = MQTTState(device, energyKWh: 1.5, time: 1_795_680_000)
        let present = HomeAssistant.entities.filter { $0.present(state) }.map(\.key)
        #expect(present.contains("energy") && present.contains("temperature") && present.contains("load_watts"))
        let energy = try #require(HomeAssistant.entities.first { $0.key == "energy" })
        let config = try #require(try JSONSerialization.jsonObject(with: Data(HomeAssistant.config(
            energy, of: ups, topicPrefix: "wpexporter", chinese: true, version: "1.0"))) as? [String: Any])
        #expect(config["state_class"] as? String == "total_increasing" && config["unit_of_measurement"] as? String == "kWh")
        #expect(config["device_class"] as? String == "energy" && config["name"] as? String == "电能")
        #expect(config["unique_id"] as? String == "wpexporter_default_5e1a7a0c-0000_energy")
        #expect(HomeAssistant.configTopic(energy, of: ups, prefix: "homeassistant")
                == "homeassistant/sensor/wpexporter_default_5e1a7a0c-0000/energy/config")
        let device2 = try #require(config["device"] as? [String: Any])
        #expect(device2["name"] as? String == "Rack A" && device2["via_device"] as? String == "wpexporter_wpexporter")
        // The cost: Home Assistant's monetary class for an ISO 4217 code, a plain total for a symbol.
        let cost = try #require(HomeAssistant.entities.first { $0.key == "cost" })
        #expect(!cost.present(state) && cost.present(MQTTState(device, energyKWh: 1.5, cost: 0.123456, time: 0)))
        #expect(MQTTState(device, energyKWh: 1.5, cost: 0.123456, time: 0).cost == 0.1235)
        for (currency, deviceClass) in [("CNY", "monetary"), ("¥", nil)] as [(String, String?)] {
            let costConfig = try #require(try JSONSerialization.jsonObject(with: Data(HomeAssistant.config(
                cost, of: ups, topicPrefix: "wpexporter", chinese: false, version: "1.0", currency: currency))) as? [String: Any])
            #expect(costConfig["device_class"] as? String == deviceClass && costConfig["unit_of_measurement"] as? String == currency)
            #expect(costConfig["state_class"] as? String == "total" && costConfig["name"] as? String == "Energy cost")
        }
        // The battery: its health once measured enough, the problem when low, its replace-by day.
        let battery = ["battery_health", "battery_replace", "battery_replace_by"]
        #expect(HomeAssistant.entities.filter { $0.present(state) }.map(\.key).allSatisfy { !battery.contains($0) })
        var configured = device
        configured.battery = BatteryLife(installed: "2023-06-15", life: "3y")
        let reference = BatteryDischarge(kind: .outage, end: Date(timeIntervalSince1970: 0), seconds: 300, startCharge: 100,
                                         chargeUsed: 30, joules: 150_000)
        var weaker = reference
        weaker.seconds = 180
        weaker.joules = 90_000   // the same 500 W for 60 % of the time
        let verdict = BatteryHealthVerdict.judge([reference, reference, weaker])
        let measured = MQTTState(configured, energyKWh: nil, health: verdict, time: 0)
        #expect(measured.battery_health == 60 && measured.battery_replace == true && measured.battery_replace_by == "2026-06-15")
        #expect(HomeAssistant.entities.filter { $0.present(measured) }.map(\.key).filter(battery.contains) == battery)
        let notEnough = MQTTState(configured, energyKWh: nil, health: BatteryHealthVerdict.judge([reference]), time: 0)
        #expect(notEnough.battery_health == nil && notEnough.battery_replace == nil)
        let date = try #require(HomeAssistant.entities.first { $0.key == "battery_replace_by" })
        let dateConfig = try #require(try JSONSerialization.jsonObject(with: Data(HomeAssistant.config(
            date, of: ups, topicPrefix: "wpexporter", chinese: true, version: "1.0"))) as? [String: Any])
        #expect(dateConfig["device_class"] as? String == "date" && dateConfig["unit_of_measurement"] == nil
                && dateConfig["state_class"] == nil && dateConfig["name"] as? String == "电池更换期限")
        // A UPS without a temperature reading has no temperature entity.
        var cold = device
        cold.realtime.upsTemperature = nil
        #expect(!HomeAssistant.entities.filter { $0.present(MQTTState(cold, energyKWh: nil, time: 0)) }.map(\.key).contains("temperature"))
        // The alias renamed: the same unique ids (they follow the device id).
        var renamed = device
        renamed.asset.alias = "Rack B"
        #expect(MQTTUPS(server: "", device: renamed).nodeID == ups.nodeID)
    }
}

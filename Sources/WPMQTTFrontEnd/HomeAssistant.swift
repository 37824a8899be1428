import FoundationEssentials
import WPFrontEnd
package import WPClient
package import WPEnergy

/// One UPS as MQTT shows it: where its topics are, how Home Assistant identifies it, and what
/// its state message says.
package struct MQTTUPS: Sendable, Equatable {
    /// The server's name (`default` for a `winpower`-only configuration's), then the device id:
    /// the levels under the topic prefix, and Home Assistant's identifiers.
    package var server: String
    package var device: String
    /// What it is called: alias, else model, else id (as the status pages call it).
    package var name: String
    package var model: String?

    package init(server: String, device: Device) {
        self.server = Self.server(server)
        self.device = device.id
        name = device.displayName
        model = device.asset.model
    }

    /// A server's name in topics: `default` for a `winpower`-only configuration's.
    package static func server(_ name: String) -> String { name.isEmpty ? "default" : name }

    /// The topic of its state: `<prefix>/<server>/<device>/state`.
    package func stateTopic(_ prefix: String) -> String { "\(prefix)/\(Self.level(server))/\(Self.level(device))/state" }
    /// The topic of its availability (`online` while its reading is fresh).
    package func availabilityTopic(_ prefix: String) -> String {
        "\(prefix)/\(Self.level(server))/\(Self.level(device))/availability"
    }

    /// Home Assistant's node id: letters, digits, `_` and `-` only.
    package var nodeID: String { "wpexporter_" + Self.identifier(server) + "_" + Self.identifier(device) }

    /// `text` as one topic level: `+`, `#`, `/` and controls replaced by `_`.
    static func level(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar == "+" || scalar == "#" || scalar == "/" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar
        }))
    }

    /// `text` with only `A-Z a-z 0-9 _ -`, the rest `_`.
    static func identifier(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-") ? scalar : "_"
        }))
    }
}

/// What one state message of a UPS holds (`<prefix>/<server>/<device>/state`, retained JSON):
/// documented in docs/home-assistant.md; a reading WinPower does not send is left out.
package struct MQTTState: Encodable, Sendable, Equatable {
    /// `line`, `battery`, `bypass`, `battery_test`, `standby`, `fault`, `power_on`, or
    /// `disconnected`.
    package var state: String
    package var on_battery: Bool
    package var alarm: Bool
    package var alarms: [String]
    package var load_watts: Double?
    package var load_percent: Double?
    package var battery_charge: Double?
    package var battery_runtime: Double?
    package var input_voltage: Double?
    package var output_voltage: Double?
    package var input_frequency: Double?
    package var output_frequency: Double?
    package var temperature: Double?
    /// The energy `/metrics` serves, kWh.
    package var energy: Double?
    /// Its cost in `energy.tariffs.currency`, every tariff period together (the sum of
    /// `winpower_device_energy_cost_total`), to 1/10,000; only with tariffs.
    package var cost: Double?
    /// The battery's measured health, percent of its first measurement (docs/battery.md); only
    /// with enough measurements.
    package var battery_health: Double?
    /// Whether that health is below `battery.health_threshold`: the battery needs replacing.
    package var battery_replace: Bool?
    /// The day the battery is due for replacement (its configured installation day plus its
    /// life), `YYYY-MM-DD`.
    package var battery_replace_by: String?
    /// Unix seconds of the reading.
    package var time: Int64

    /// - Parameter health: the battery health meter's verdict of the UPS, when it has one.
    package init(_ device: Device, energyKWh: Double?, cost: Double? = nil, health: BatteryHealthVerdict? = nil, time: Int64) {
        let readings = device.realtime
        state = device.connected == false ? "disconnected" : device.operatingMode?.label ?? "unknown"
        on_battery = device.isOnBattery ?? false
        alarms = (device.activeAlarms?.alarms ?? []).map { alarm in alarm.name ?? alarm.message ?? alarm.code ?? "alarm" }
        alarm = (device.hasAlarm ?? false) || !alarms.isEmpty
        load_watts = readings.loadTotalWatt
        load_percent = readings.loadPercent
        battery_charge = readings.batCapacity
        battery_runtime = readings.batRemainTime
        input_voltage = readings.inputVolt1
        output_voltage = readings.outputVolt1
        input_frequency = readings.inputFreq
        output_frequency = readings.outputFreq
        temperature = readings.upsTemperature
        energy = energyKWh
        self.cost = cost.map { ($0 * 10_000).rounded() / 10_000 }
        if let health, let ratio = health.health {
            battery_health = (ratio * 1_000).rounded() / 10
            battery_replace = health.isLow
        }
        battery_replace_by = device.battery?.replaceBy
        self.time = time
    }
}

/// The entities of a UPS in Home Assistant (MQTT discovery): their components, device classes,
/// state classes, units and names, and the config message of each.
package enum HomeAssistant {
    /// One entity.
    package struct Entity: Sendable {
        /// Its key in the state message and its object id.
        package var key: String
        package var component: String
        package var english: String
        package var chinese: String
        package var deviceClass: String?
        package var stateClass: String?
        package var unit: String?
        package var icon: String?
        /// Whether the UPS has it now (a reading WinPower sends).
        package var present: @Sendable (MQTTState) -> Bool

        init(_ key: String, _ component: String = "sensor", _ english: String, _ chinese: String, deviceClass: String? = nil,
             stateClass: String? = nil, unit: String? = nil, icon: String? = nil,
             present: @escaping @Sendable (MQTTState) -> Bool = { _ in true }) {
            self.key = key
            self.component = component
            self.english = english
            self.chinese = chinese
            self.deviceClass = deviceClass
            self.stateClass = stateClass
            self.unit = unit
            self.icon = icon
            self.present = present
        }
    }

    /// Every entity a UPS may have, in the order Home Assistant lists them.
    package static let entities: [Entity] = [
        Entity("state", "sensor", "Status", "状态", icon: "mdi:power-plug"),
        Entity("on_battery", "binary_sensor", "On battery", "电池供电", icon: "mdi:battery-alert"),
        Entity("alarm", "binary_sensor", "Alarm", "告警", deviceClass: "problem"),
        Entity("load_watts", "sensor", "Load", "负载功率", deviceClass: "power", stateClass: "measurement", unit: "W",
               present: { $0.load_watts != nil }),
        Entity("load_percent", "sensor", "Load percentage", "负载率", stateClass: "measurement", unit: "%", icon: "mdi:gauge",
               present: { $0.load_percent != nil }),
        Entity("battery_charge", "sensor", "Battery charge", "电池电量", deviceClass: "battery", stateClass: "measurement", unit: "%",
               present: { $0.battery_charge != nil }),
        Entity("battery_runtime", "sensor", "Battery runtime", "电池剩余时间", deviceClass: "duration", stateClass: "measurement",
               unit: "s", present: { $0.battery_runtime != nil }),
        Entity("input_voltage", "sensor", "Input voltage", "输入电压", deviceClass: "voltage", stateClass: "measurement", unit: "V",
               present: { $0.input_voltage != nil }),
        Entity("output_voltage", "sensor", "Output voltage", "输出电压", deviceClass: "voltage", stateClass: "measurement", unit: "V",
               present: { $0.output_voltage != nil }),
        Entity("input_frequency", "sensor", "Input frequency", "输入频率", deviceClass: "frequency", stateClass: "measurement",
               unit: "Hz", present: { $0.input_frequency != nil }),
        Entity("output_frequency", "sensor", "Output frequency", "输出频率", deviceClass: "frequency", stateClass: "measurement",
               unit: "Hz", present: { $0.output_frequency != nil }),
        Entity("temperature", "sensor", "Temperature", "温度", deviceClass: "temperature", stateClass: "measurement", unit: "°C",
               present: { $0.temperature != nil }),
        Entity("energy", "sensor", "Energy", "电能", deviceClass: "energy", stateClass: "total_increasing", unit: "kWh",
               present: { $0.energy != nil }),
        // Its unit is the currency; `monetary` only for an ISO 4217 code (``config(_:of:topicPrefix:chinese:version:currency:)``).
        Entity("cost", "sensor", "Energy cost", "电费", deviceClass: "monetary", stateClass: "total", icon: "mdi:cash",
               present: { $0.cost != nil }),
        Entity("battery_health", "sensor", "Battery health", "电池健康度", stateClass: "measurement", unit: "%",
               icon: "mdi:battery-heart-variant", present: { $0.battery_health != nil }),
        Entity("battery_replace", "binary_sensor", "Battery replacement", "需更换电池", deviceClass: "problem",
               present: { $0.battery_replace != nil }),
        Entity("battery_replace_by", "sensor", "Replace battery by", "电池更换期限", deviceClass: "date", icon: "mdi:calendar-clock",
               present: { $0.battery_replace_by != nil }),
    ]

    /// Whether `currency` is an ISO 4217 code (three capital letters), the unit Home
    /// Assistant's `monetary` sensors take; another (`¥`) is shown as the unit of a plain sensor.
    static func isCurrencyCode(_ currency: String) -> Bool {
        currency.utf8.count == 3 && currency.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// The discovery topic of `entity` of `ups`: `<prefix>/<component>/<node>/<key>/config`.
    package static func configTopic(_ entity: Entity, of ups: MQTTUPS, prefix: String) -> String {
        "\(prefix)/\(entity.component)/\(ups.nodeID)/\(entity.key)/config"
    }

    /// The discovery message of `entity` of `ups`; the cost's unit is `currency`.
    package static func config(_ entity: Entity, of ups: MQTTUPS, topicPrefix: String, chinese: Bool, version: String,
                               currency: String? = nil) -> [UInt8] {
        var deviceClass = entity.deviceClass
        var unit = entity.unit
        if entity.key == "cost" {
            unit = currency
            if !(currency.map(isCurrencyCode) ?? false) { deviceClass = nil }
        }
        let template = switch entity.component {
        case "binary_sensor": "{{ 'ON' if value_json.\(entity.key) else 'OFF' }}"
        default: "{{ value_json.\(entity.key) }}"
        }
        let document = Config(
            name: chinese ? entity.chinese : entity.english,
            unique_id: "\(ups.nodeID)_\(entity.key)",
            object_id: "\(ups.nodeID)_\(entity.key)",
            state_topic: ups.stateTopic(topicPrefix),
            value_template: template,
            json_attributes_topic: entity.key == "alarm" ? ups.stateTopic(topicPrefix) : nil,
            json_attributes_template: entity.key == "alarm" ? "{{ {'alarms': value_json.alarms} | tojson }}" : nil,
            device_class: deviceClass, state_class: entity.stateClass, unit_of_measurement: unit, icon: entity.icon,
            availability: [.init(topic: "\(topicPrefix)/status"), .init(topic: ups.availabilityTopic(topicPrefix))],
            availability_mode: "all",
            device: .init(identifiers: [ups.nodeID], name: ups.name, model: ups.model, manufacturer: nil,
                          via_device: "wpexporter_\(MQTTUPS.identifier(topicPrefix))"),
            origin: .init(name: "wpexporter", sw_version: version))
        return encode(document)
    }

    /// The exporter itself as a device (the UPSs' `via_device`), with its status entity.
    package static func bridgeConfig(topicPrefix: String, version: String, chinese: Bool) -> [UInt8] {
        let node = "wpexporter_\(MQTTUPS.identifier(topicPrefix))"
        let document = BridgeConfig(name: chinese ? "连接状态" : "Connection", unique_id: "\(node)_connection", object_id: "\(node)_connection",
                                    state_topic: "\(topicPrefix)/status", payload_on: "online", payload_off: "offline",
                                    device_class: "connectivity",
                                    device: .init(identifiers: [node], name: "wpexporter", model: nil, manufacturer: nil, via_device: nil,
                                                  sw_version: version))
        return encode(document)
    }

    /// The discovery topic of the exporter's own entity.
    package static func bridgeConfigTopic(topicPrefix: String, prefix: String) -> String {
        "\(prefix)/binary_sensor/wpexporter_\(MQTTUPS.identifier(topicPrefix))/connection/config"
    }

    static func encode(_ value: some Encodable) -> [UInt8] { JSONBody.bytes(value) }

    // Home Assistant's discovery fields (its names).
    struct Availability: Encodable {
        var topic: String
    }

    struct DeviceInfo: Encodable {
        var identifiers: [String]
        var name: String
        var model: String?
        var manufacturer: String?
        var via_device: String?
        var sw_version: String?
    }

    struct Origin: Encodable {
        var name: String
        var sw_version: String
    }

    struct Config: Encodable {
        var name: String
        var unique_id: String
        var object_id: String
        var state_topic: String
        var value_template: String
        var json_attributes_topic: String?
        var json_attributes_template: String?
        var device_class: String?
        var state_class: String?
        var unit_of_measurement: String?
        var icon: String?
        var availability: [Availability]
        var availability_mode: String
        var device: DeviceInfo
        var origin: Origin
    }

    struct BridgeConfig: Encodable {
        var name: String
        var unique_id: String
        var object_id: String
        var state_topic: String
        var payload_on: String
        var payload_off: String
        var device_class: String
        var device: DeviceInfo
    }
}

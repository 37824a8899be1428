import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
import WPConfig
package import WPEnergy
package import WPFrontEnd
package import WPLogging
package import WPMQTT
import WPMetrics
import WPHTTPClient
package import WPWallClock

/// The MQTT front end of `mqtt.*` (docs/home-assistant.md): after each collection, each UPS's new reading
/// as one retained JSON state message, its availability (`online` while the reading is fresh),
/// and with `mqtt.discovery` the Home Assistant discovery of one device per UPS. A UPS that
/// leaves the fleet has its discovery removed. The client publishes on a thread of its own;
/// the subscriber only builds messages and queues them, so a broker that is away, slow or
/// refusing never delays collection, `/metrics`, NUT or SNMP.
package final class MQTTPublisher<C: Clock>: FrontEnd where C.Duration == Duration {
    package let name = "the MQTT publisher"

    /// What `/health` shows under `mqtt`.
    package struct Health: Encodable, Sendable {
        package var broker: String
        package var connected: Bool
        package var connections: Int
        package var failures: Int
        package var sent: Int
        package var dropped: Int
        package var queued: Int
        package var ups: Int
        package var lastError: String?

        enum CodingKeys: String, CodingKey {
            case broker, connected, connections, failures, sent, dropped, queued, ups, lastError = "last_error"
        }
    }

    /// What was published of one UPS.
    private struct Published {
        var ups: MQTTUPS
        /// The entities announced (their keys).
        var entities: Set<String> = []
        var readAt: C.Instant?
        var stateAt: C.Instant?
        var mode: String?
        var available: Bool?
        var state: MQTTState?
        /// The currency its cost entity was announced with.
        var currency: String?
    }

    private let settings: MQTTSettings
    private let version: String
    private let broker: String
    private let wallClock: WallClock
    private let client: MQTTClient
    /// The cost meter of `energy.tariffs`, when there is one.
    private let costs: @Sendable () -> EnergyCostMeter?
    /// The battery health meter, when there is one.
    private let batteryHealth: @Sendable () -> BatteryHealthMeter?
    private let published = Mutex<[String: Published]>([:])

    /// The publisher of `context.configuration`'s `mqtt.*`, or `nil` without `mqtt.url`.
    ///
    /// - Throws: ``FrontEndError/configuration(_:)`` for a broker URL that names none.
    package static func make(_ context: FrontEndContext<C>) throws(FrontEndError) -> MQTTPublisher? {
        let settings = context.configuration[section: MQTTSettings.self]
        guard let url = settings.url, !url.isEmpty else { return nil }
        let broker: (host: String, port: Int, tls: Bool)
        switch MQTTSettings.broker(url) {
        case .success(let parsed): broker = parsed
        case .failure(let error): throw .configuration("mqtt.url: \(error)")
        }
        let logger = context.logger.component("mqtt")
        var tls: MQTTClient.TLS?
        if broker.tls {
            let configured = MQTTClient.TLS(verification: settings.skipSSLVerify ? .skip : settings.caFile.map { .trust(caFile: $0) } ?? .system,
                                            certificateFile: settings.certFile, keyFile: settings.keyFile)
            // Made once here so that a certificate that cannot be used stops the start, naming
            // the keys; each connection makes its own again (renewed files are taken).
            do throws(HTTPClientError) {
                _ = try configured.context()
            } catch {
                let keys = settings.certFile == nil ? "mqtt.ca_file" : "mqtt.ca_file, mqtt.cert_file or mqtt.key_file"
                throw .configuration("\(keys): \(error.detail)")
            }
            if settings.skipSSLVerify {
                logger.warn("mqtt.skip_ssl_verify is true: the broker's TLS certificate is not checked, so anyone on the network "
                            + "path can pose as the broker and read the password; set mqtt.ca_file to its CA instead")
            }
            tls = configured
        }
        let frontEnds = context.frontEnds
        let publisher = MQTTPublisher(settings: settings, host: broker.host, port: broker.port, tls: tls, version: context.version,
                                      wallClock: context.wallClock, logger: logger,
                                      costs: { frontEnds().energyCostMeter }, batteryHealth: { frontEnds().batteryHealthMeter })
        do throws(MetricsError) {
            try publisher.register(context.registry)
        } catch {
            throw .metrics(error)
        }
        context.publication.subscribe { [weak publisher] state in publisher?.published(state) }
        return publisher
    }

    package init(settings: MQTTSettings, host: String, port: Int, tls: MQTTClient.TLS? = nil, version: String,
                 wallClock: WallClock, logger: WPLogger,
                 costs: @escaping @Sendable () -> EnergyCostMeter? = { nil },
                 batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil }) {
        self.batteryHealth = batteryHealth
        self.settings = settings
        self.costs = costs
        self.version = version
        self.wallClock = wallClock
        broker = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var configuration = MQTTClient.Configuration(host: host, port: port, clientID: settings.clientID,
                                                     username: settings.username, password: settings.password?.reveal())
        configuration.keepAlive = settings.keepAlive
        configuration.connectTimeout = settings.connectTimeout
        configuration.tls = tls
        configuration.queueLimit = settings.queueSize
        let qos = UInt8(clamping: settings.qos)
        let status = "\(settings.topicPrefix)/status"
        configuration.will = MQTTPacket.Message(topic: status, payload: Array("offline".utf8), qos: qos, retain: true)
        configuration.birth = MQTTPacket.Message(topic: status, payload: Array("online".utf8), qos: qos, retain: true)
        if settings.discovery { configuration.subscriptions = ["\(settings.discoveryPrefix)/status"] }
        let box = PublisherBox()
        client = MQTTClient(configuration: configuration, logger: logger,
                            onConnect: { box.publisher?.announceAll() },
                            onMessage: { message in
                                // Home Assistant started again: it asks for discovery by announcing itself.
                                if message.payload == Array("online".utf8) { box.publisher?.announceAll() }
                            })
        box.publisher = self
    }

    /// Lets the client's callbacks reach the publisher without a cycle at init.
    private final class PublisherBox: @unchecked Sendable {
        // Set once in init, before the client starts; read only after.
        weak var publisher: MQTTPublisher?
    }

    package var health: FrontEndHealth? {
        let status = client.status
        let count = published.withLock { $0.count }
        return FrontEndHealth(key: "mqtt", value: Health(broker: broker, connected: status.connected, connections: status.connections,
                                                         failures: status.failures, sent: status.sent, dropped: status.dropped,
                                                         queued: status.queued, ups: count, lastError: status.lastError))
    }

    /// The client's status now.
    package var status: MQTTClient.Status { client.status }

    /// The client's counters on `/metrics`, read at each scrape (docs/metrics.md).
    func register(_ registry: MetricRegistry) throws(MetricsError) {
        let client = client
        let metrics: [(String, String, MetricType, @Sendable (MQTTClient.Status) -> Int)] = [
            ("winpower_exporter_mqtt_connected", "1 while connected to the MQTT broker, 0 otherwise.", .gauge,
             { $0.connected ? 1 : 0 }),
            ("winpower_exporter_mqtt_connections_total", "Connections the MQTT broker accepted.", .counter, { $0.connections }),
            ("winpower_exporter_mqtt_connection_failures_total",
             "Connections to the MQTT broker that failed (refused, TLS, login) or were lost.", .counter, { $0.failures }),
            ("winpower_exporter_mqtt_messages_sent_total", "MQTT messages written to the broker (QoS 1: acknowledged).", .counter,
             { $0.sent }),
            ("winpower_exporter_mqtt_messages_dropped_total", "MQTT messages dropped from a full queue while the broker was away.",
             .counter, { $0.dropped }),
            ("winpower_exporter_mqtt_messages_queued", "MQTT messages waiting for the broker now.", .gauge, { $0.queued }),
        ]
        for (name, help, type, read) in metrics {
            if type == .gauge {
                try registry.gaugeFunc(name: name, help: help) { Double(read(client.status)) }
            } else {
                try registry.counterFunc(name: name, help: help) { Double(read(client.status)) }
            }
        }
    }

    /// Connects and publishes until cancelled; then `offline`, what is queued (2 s at most),
    /// and a clean disconnect.
    package func run() async throws {
        do {
            try client.start()
        } catch {
            throw FrontEndError.configuration("mqtt: cannot start the client's thread: \(error)")
        }
        await untilCancelled()
        await client.stop()
    }

    /// Queues the discovery and the last state of every UPS (a new broker session, or Home
    /// Assistant started again).
    private func announceAll() {
        let messages: [MQTTPacket.Message] = published.withLock { published in
            var messages: [MQTTPacket.Message] = []
            if settings.discovery {
                messages.append(message(HomeAssistant.bridgeConfigTopic(topicPrefix: settings.topicPrefix, prefix: settings.discoveryPrefix),
                                        HomeAssistant.bridgeConfig(topicPrefix: settings.topicPrefix, version: version, chinese: chinese)))
            }
            for key in published.keys.sorted() {
                guard let entry = published[key] else { continue }
                if settings.discovery {
                    for entity in HomeAssistant.entities where entry.entities.contains(entity.key) {
                        messages.append(config(entity, entry.ups, currency: entry.currency))
                    }
                }
                if let state = entry.state { messages.append(message(entry.ups.stateTopic(settings.topicPrefix), HomeAssistant.encode(state))) }
                if let available = entry.available {
                    messages.append(message(entry.ups.availabilityTopic(settings.topicPrefix), Array((available ? "online" : "offline").utf8)))
                }
            }
            return messages
        }
        client.publish(messages)
    }

    private var chinese: Bool { settings.language == "zh-CN" }

    private func message(_ topic: String, _ payload: [UInt8]) -> MQTTPacket.Message {
        MQTTPacket.Message(topic: topic, payload: payload, qos: UInt8(clamping: settings.qos), retain: true)
    }

    private func config(_ entity: HomeAssistant.Entity, _ ups: MQTTUPS, currency: String?) -> MQTTPacket.Message {
        message(HomeAssistant.configTopic(entity, of: ups, prefix: settings.discoveryPrefix),
                HomeAssistant.config(entity, of: ups, topicPrefix: settings.topicPrefix, chinese: chinese, version: version,
                                     currency: currency))
    }

    /// Each UPS's new reading, availability and discovery from `state`; the UPSs gone from a
    /// server that collected have theirs removed.
    package func published(_ state: FleetState<C>) {
        let now = wallClock.now.timeIntervalSince1970
        let meter = costs()
        let healthMeter = batteryHealth()
        let currency = meter?.schedule.currency
        let messages: [MQTTPacket.Message] = published.withLock { published in
            var messages: [MQTTPacket.Message] = []
            var seen: Set<String> = []
            var collected: Set<String> = []
            for server in state.servers {
                if server.health.lastFinished != nil, server.health.winPowerReachable, server.health.authenticated {
                    collected.insert(MQTTUPS.server(server.name))
                }
                for reading in server.devices.readings {
                    let device = reading.device
                    let ups = MQTTUPS(server: server.name, device: device)
                    let key = ups.server + "\u{1F}" + ups.device
                    seen.insert(key)
                    var entry = published[key] ?? Published(ups: ups)
                    let available = !server.isStale(reading.readAt, at: state.publishedAt)
                    if entry.available != available {
                        entry.available = available
                        messages.append(message(ups.availabilityTopic(settings.topicPrefix), Array((available ? "online" : "offline").utf8)))
                    }
                    if entry.readAt.map({ reading.readAt > $0 }) ?? true {
                        entry.readAt = reading.readAt
                        let age = reading.readAt.duration(to: state.publishedAt)
                        let time = Int64((now - Double(age.components.seconds)).rounded(.down))
                        let total = server.totals[device.id]
                        let cost = meter.flatMap { meter in
                            total.map { _ in meter.costs(server.energyKeyPrefix + device.id).reduce(0) { $0 + $1.amount } }
                        }
                        let health = healthMeter?.verdict(server.energyKeyPrefix + device.id, of: device)
                        let current = MQTTState(device, energyKWh: total.map { $0.joules / 3_600_000 }, cost: cost, health: health,
                                                time: time)
                        // Discovery first: an entity exists before its first value.
                        if settings.discovery {
                            let present = Set(HomeAssistant.entities.filter { $0.present(current) }.map(\.key))
                            let renamed = entry.ups != ups
                            let repriced = entry.currency != currency
                            entry.ups = ups
                            entry.currency = currency
                            for entity in HomeAssistant.entities where present.contains(entity.key)
                                && (renamed || !entry.entities.contains(entity.key) || (repriced && entity.key == "cost")) {
                                messages.append(config(entity, ups, currency: currency))
                            }
                            for entity in HomeAssistant.entities where entry.entities.contains(entity.key) && !present.contains(entity.key) {
                                messages.append(message(HomeAssistant.configTopic(entity, of: ups, prefix: settings.discoveryPrefix), []))
                            }
                            entry.entities = present
                        }
                        let due = entry.stateAt.map { $0.duration(to: reading.readAt) >= settings.minInterval } ?? true
                        if due || entry.mode != current.state {
                            entry.stateAt = reading.readAt
                            entry.mode = current.state
                            entry.state = current
                            messages.append(message(ups.stateTopic(settings.topicPrefix), HomeAssistant.encode(current)))
                        }
                    }
                    published[key] = entry
                }
            }
            // Gone: from a server that collected and lists it no more, or from a server no longer configured.
            let servers = Set(state.servers.map { MQTTUPS.server($0.name) })
            // Only the keys not seen are sorted (none in most publications), never the whole map.
            for key in published.keys.filter({ !seen.contains($0) }).sorted() {
                guard let entry = published[key],
                      collected.contains(entry.ups.server) || !servers.contains(entry.ups.server) else { continue }
                published[key] = nil
                for entity in HomeAssistant.entities where entry.entities.contains(entity.key) {
                    messages.append(message(HomeAssistant.configTopic(entity, of: entry.ups, prefix: settings.discoveryPrefix), []))
                }
                messages.append(message(entry.ups.stateTopic(settings.topicPrefix), []))
                messages.append(message(entry.ups.availabilityTopic(settings.topicPrefix), []))
            }
            return messages
        }
        client.publish(messages)
    }
}

extension FrontEndFactory {
    /// The MQTT publisher of `mqtt.*` (off without `mqtt.url`); made again when `mqtt.*`
    /// changes.
    package static var mqtt: FrontEndFactory {
        FrontEndFactory(MQTTSettings.self) { context throws(FrontEndError) in
            try MQTTPublisher<C>.make(context)
        }
    }
}

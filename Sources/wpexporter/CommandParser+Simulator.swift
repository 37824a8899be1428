import WPConfig
import WPExporter

extension CommandParser {
    static let simulatorFlags = ["--host", "--port", "--devices", "--page-size", "--token-lifetime",
                                 "--token-exp-ms", "--clock-skew", "--username", "--password", "--fault",
                                 "--servers", "--fault-server", "--outage-schedule", "--three-phase", "--extra-readings",
                                 "--areas", "--alarm-shapes", "--alias-bytes", "--alias", "--long-texts", "--frozen"]
    /// The flags that take no value (`--flag` is `--flag=true`).
    static let simulatorBooleans: Set<String> = ["--token-exp-ms", "--alarm-shapes", "--frozen"]

    /// Parses the flags of `wpexporter simulate`.
    static func parseSimulator(_ arguments: [String]) throws(UsageError) -> SimulatorOptions {
        var options = SimulatorOptions()
        func number(_ flag: String, _ value: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            guard let parsed = Int(value), range.contains(parsed) else {
                throw UsageError(command: "simulate",
                                 message: "\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(value)\"")
            }
            return parsed
        }
        func boolean(_ flag: String, _ value: String) throws(UsageError) -> Bool {
            guard let on = Bool(value) else {
                throw UsageError(command: "simulate", message: "\(flag) takes true or false, not \"\(value)\"")
            }
            return on
        }
        try walk(arguments, command: "simulate", isKnown: { simulatorFlags.contains($0) }, isBoolean: { simulatorBooleans.contains($0) },
                 allNames: simulatorFlags) { flag, value throws(UsageError) in
            switch flag {
            case "--host": options.host = value
            case "--port": options.port = try number(flag, value, 0...65535)
            case "--devices": options.devices = try number(flag, value, 0...100_000)
            case "--page-size": options.pageSize = try number(flag, value, 1...100_000)
            case "--token-lifetime":
                guard case .success(let lifetime) = DurationText.parse(value), lifetime > .zero else {
                    throw UsageError(command: "simulate", message: "--token-lifetime must be a positive duration such as 30m, not \"\(value)\"")
                }
                options.tokenLifetime = lifetime
            case "--token-exp-ms": options.tokenExpInMilliseconds = try boolean(flag, value)
            case "--clock-skew":
                let negative = value.hasPrefix("-")
                let magnitude = negative || value.hasPrefix("+") ? String(value.dropFirst()) : value
                guard case .success(let skew) = DurationText.parse(magnitude), skew <= .seconds(10 * 365 * 86_400) else {
                    throw UsageError(command: "simulate",
                                     message: "--clock-skew must be a duration such as -1h or 90s, not \"\(value)\"")
                }
                options.clockSkew = negative ? .zero - skew : skew
            case "--username": options.username = value
            case "--password": options.password = Secret(value)
            case "--servers": options.servers = try number(flag, value, 1...1000)
            case "--fault-server": options.serverFaults.append(value)
            case "--outage-schedule": options.outageSchedule.append(value)
            case "--three-phase": options.threePhaseDevices = try number(flag, value, 0...10_000)
            case "--extra-readings": options.extraReadings = try number(flag, value, 0...20_000)
            case "--areas": options.areas = try number(flag, value, 1...1000)
            case "--alias-bytes": options.aliasBytes = try number(flag, value, 0...50_000_000)
            case "--alias": options.alias = value
            case "--long-texts": options.longTexts = try number(flag, value, 0...65_536)
            case "--alarm-shapes": options.alarmShapes = try boolean(flag, value)
            case "--frozen": options.frozen = try boolean(flag, value)
            default: options.faults.append(value)
            }
        }
        return options
    }
}

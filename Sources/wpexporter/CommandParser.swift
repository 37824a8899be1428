import WPConfig
import WPExporter

/// Parses `wpexporter` arguments (without the program name) into a ``Command``.
///
/// GNU-style long flags: `--flag=value` and `--flag value`; booleans as `--flag` or
/// `--flag=false`; `-c PATH` (or `-c=PATH`) and `-h`; `--` ends the flags. Unknown commands
/// and flags are usage errors with a "did you mean" suggestion; single-dash long flags
/// (`-config`) are unknown flags too, never split into `-c onfig`.
enum CommandParser {
    static let commands = ["server", "demo", "simulate", "check-config", "healthcheck", "version", "help"]
    static let helpTopics = commands + ["configuration"]
    /// The most servers `demo --servers` simulates.
    static let maxDemoServers = 64

    /// - Throws: ``UsageError``.
    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else {
            throw UsageError(command: nil, message: "missing command; one of \(commands.joined(separator: ", "))")
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help": return .help(nil)
        case "--version": return .version(json: false)
        case "help":
            guard let topic = rest.first else { return .help(nil) }
            if rest.count == 1, topic == "-h" || topic == "--help" { return .help("help") }
            guard rest.count == 1, helpTopics.contains(topic) else {
                throw UsageError(command: "help", message: "unknown help topic \"\(rest.joined(separator: " "))\"; one of "
                                 + helpTopics.joined(separator: ", ") + Suggestion.hint(topic, helpTopics))
            }
            return .help(topic)
        case "server", "demo", "check-config", "healthcheck":
            if wantsHelp(rest) { return .help(first) }
            let options = try parseConfiguration(rest, command: first)
            switch first {
            case "server": return .server(options)
            case "demo": return .demo(options)
            case "healthcheck": return .healthcheck(options)
            default: return .checkConfig(options)
            }
        case "simulate":
            if wantsHelp(rest) { return .help(first) }
            return .simulate(try parseSimulator(rest))
        case "version":
            if wantsHelp(rest) { return .help(first) }
            return try parseVersion(rest)
        default:
            let kind = first.hasPrefix("-") ? "flag" : "command"
            throw UsageError(command: nil, message: "unknown \(kind) \"\(first)\"" + Suggestion.hint(first, commands))
        }
    }

    private static func wantsHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "-h" || argument == "--help" { return true }
        }
        return false
    }

    /// One `--name[=value]` or `-x` argument and the value it takes.
    private struct Token {
        var name: String
        var inlineValue: String?
    }

    /// Walks arguments, calling `handle` per flag with a closure that yields its value.
    static func walk(_ arguments: [String], command: String,
                             isKnown: (String) -> Bool, isBoolean: (String) -> Bool, allNames: [String],
                             handle: (String, String) throws(UsageError) -> Void) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                if index < arguments.count {
                    throw UsageError(command: command, message: "unexpected argument \"\(arguments[index])\"")
                }
                return
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                throw UsageError(command: command, message: "unexpected argument \"\(argument)\"")
            }
            var token = Token(name: argument, inlineValue: nil)
            if let equals = argument.firstIndex(of: "=") {
                token = Token(name: String(argument[..<equals]), inlineValue: String(argument[argument.index(after: equals)...]))
            }
            guard isKnown(token.name) else {
                throw UsageError(command: command, message: "unknown flag \(token.name)"
                                 + Suggestion.hint(token.name, allNames, quote: false))
            }
            let value: String
            if let inline = token.inlineValue {
                value = inline
            } else if isBoolean(token.name) {
                value = "true"
            } else {
                guard index < arguments.count else {
                    throw UsageError(command: command, message: "flag \(token.name) needs a value")
                }
                value = arguments[index]
                index += 1
            }
            try handle(token.name, value)
        }
    }

    private static func parseConfiguration(_ arguments: [String], command: String) throws(UsageError) -> ConfigurationOptions {
        var options = ConfigurationOptions()
        let own = ["-c", "--config"]
        let demoOwn = command == "demo" ? ["--servers"] : []
        try walk(arguments, command: command,
                 isKnown: { own.contains($0) || demoOwn.contains($0) || ConfigSchema.tool.key(forFlag: $0) != nil },
                 isBoolean: { ConfigSchema.tool.key(forFlag: $0)?.type == .boolean },
                 allNames: ["--config"] + demoOwn + ConfigSchema.tool.allFlags) { name, value throws(UsageError) in
            if demoOwn.contains(name) {
                guard let count = Int(value), (1...maxDemoServers).contains(count) else {
                    throw UsageError(command: command,
                                     message: "--servers must be a whole number from 1 to \(maxDemoServers), not \"\(value)\"")
                }
                options.demoServers = count
            } else if own.contains(name) {
                guard !value.isEmpty else { throw UsageError(command: command, message: "flag \(name) needs a path") }
                options.configPath = value
            } else {
                options.flags.append(ConfigurationInputs.Flag(name, value))
            }
        }
        return options
    }

    private static func parseVersion(_ arguments: [String]) throws(UsageError) -> Command {
        var json = false
        try walk(arguments, command: "version", isKnown: { $0 == "--format" }, isBoolean: { _ in false },
                 allNames: ["--format"]) { _, value throws(UsageError) in
            guard value == "text" || value == "json" else {
                throw UsageError(command: "version", message: "--format must be text or json, not \"\(value)\"")
            }
            json = value == "json"
        }
        return .version(json: json)
    }
}

extension ConfigSchema {
    /// The keys the command-line tool reads, checks and documents: the exporter's own and its
    /// front ends' sections.
    static let tool = Exporter<ContinuousClock>.configurationSchema()
}

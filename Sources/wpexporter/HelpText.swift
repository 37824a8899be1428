import WPConfig
import WPExporter

/// The help pages of `wpexporter`. Golden-tested byte for byte.
enum HelpText {
    /// The help for a command or topic; the overview for nil.
    static func page(_ topic: String?) -> String {
        switch topic {
        case "server": return server
        case "demo": return demo
        case "check-config": return checkConfig
        case "healthcheck": return healthcheck
        case "simulate": return simulate
        case "version": return version
        case "configuration": return configuration
        case "help": return "Usage: wpexporter help [command | configuration]\n\nShow help for a command (the same as `wpexporter COMMAND --help`), or every\nconfiguration key.\n"
        default: return overview
        }
    }

    static let overview = """
        wpexporter: Prometheus exporter for WinPower G2 UPS management servers

        Usage: wpexporter <command> [flags]

        Commands:
          server        Export metrics from a WinPower G2 server
          demo          Export metrics from the embedded WinPower simulator
          simulate      Run the WinPower G2 simulator on its own
          check-config  Validate the configuration and print every value with its source
          healthcheck   Ask the configured exporter's /-/healthy; exit 0 healthy, 1 not
          version       Print version, Swift version, platform, build date and git commit
          help          Show help for a command, or 'help configuration' for every key

        Run 'wpexporter <command> --help' for the flags of a command.
        Exit status: 0 success, 1 runtime failure, 64 usage error, 74 energy totals not
        saved on shutdown, 78 configuration error.

        """

    static let configurationFlags = """
        Flags:
          -c, --config PATH          Configuration file; without it the first existing of
                                     ./config.yaml, ./config/config.yaml,
                                     $HOME/.config/winpower-exporter/config.yaml,
                                     /etc/winpower-exporter/config.yaml
          --winpower.url URL         WinPower server URL (same as --winpower.base_url)
          --winpower.username NAME   WinPower user name
          --winpower.password TEXT   WinPower password (prefer --winpower.password_file PATH)
          --port PORT                HTTP port (same as --server.port; default 9090;
                                     0 for any free port)
          --log-level LEVEL          debug, info, warn or error (default info)
          --skip-ssl-verify[=BOOL]   Accept any TLS certificate from WinPower (default false)
          --data-dir PATH            Energy state directory (default ./data)
          --sync-write[=BOOL]        Write the state after every collection (default true)
          --web.config.file PATH     TLS and basic auth for the listener, in the Prometheus
                                     web configuration format (see docs/security.md)
          --push.url URL             Also push metrics to this Pushgateway, every
                                     --push.interval (default 15s)
          --web.enable-lifecycle     Serve POST /-/reload (SIGHUP reloads in any case)
          --SECTION.KEY VALUE        Any configuration key, e.g. --scheduler.collection_interval 10s;
                                     see 'wpexporter help configuration'
          -h, --help                 Show this help

        Values come from flags, then WINPOWER_EXPORTER_* environment variables, then the file,
        then defaults (the first that sets a key wins).

        """

    static let server = """
        Usage: wpexporter server [flags]

        Export metrics from a WinPower G2 server. Requires winpower.base_url, winpower.username
        and winpower.password (or winpower.password_file). SIGTERM or Ctrl-C stops it, saving
        energy; SIGHUP reloads the configuration (a broken file keeps the running one).

        """ + "\n" + configurationFlags

    static let demo = """
        Usage: wpexporter demo [flags]

        Export metrics from the embedded WinPower simulator (six UPSs: on mains, on battery,
        disconnected, with a fault, in a battery self-test, on bypass): no WinPower server or
        credentials needed. Prints the URLs to open and a sample of live values; stop it with
        Ctrl-C. The simulator replaces every winpower.* setting; every other key works as for
        'server', with the defaults below.

        Flags:
          -c, --config PATH          Configuration file (found as for 'server')
          --servers N                Simulated WinPower servers, 1 to 64 (default 1); with
                                     more, the last one is down, and /probe and /targets
                                     serve each server
          --port PORT                HTTP port (default 9090; any free port when it is
                                     taken; 0 for any free port)
          --server.host ADDRESS      Address to bind (default 127.0.0.1)
          --log-level LEVEL          debug, info, warn or error (default warn, to stderr)
          --data-dir PATH            Energy state directory (default a temporary directory,
                                     removed on exit)
          --web.config.file PATH     TLS and basic auth for the listener (see docs/security.md)
          --push.url URL             Also push metrics to this Pushgateway
          --SECTION.KEY VALUE        Any other configuration key, e.g.
                                     --scheduler.collection_interval 2s
          -h, --help                 Show this help

        Values come from flags, then WINPOWER_EXPORTER_* environment variables, then the file,
        then the defaults above.

        """

    static let checkConfig = """
        Usage: wpexporter check-config [flags]

        Load and validate the configuration exactly as 'server' does, then print every key with
        its value and source (default, file, env or flag); secrets are masked. Exits 0 when the
        configuration is valid and 78 with every problem when it is not.

        """ + "\n" + configurationFlags

    static let healthcheck = """
        Usage: wpexporter healthcheck [flags]

        Read the configuration as 'server' does (file, environment, flags; the WinPower keys
        are not checked) and GET /-/healthy of the exporter it describes: server.host (127.0.0.1
        or ::1 when it is all interfaces) and server.port, over https when the web configuration
        file sets TLS (the certificate is not verified). Prints one line and exits 0 when the
        answer is 200, or 401 because the web configuration requires basic authentication on
        /-/healthy; exits 1 with the reason otherwise (no answer within 4 s, another status, an
        invalid configuration, port 0). For a container HEALTHCHECK.

        """ + "\n" + configurationFlags

    static let simulate = """
        Usage: wpexporter simulate [flags]

        Run a WinPower G2 simulator that speaks the real protocol, for testing an exporter.
        A single server goes down on SIGUSR1 (connections refused, its port kept) and comes
        back on SIGUSR2 as a restarted server (its time and --outage-schedule from zero).

        Flags:
          --host ADDRESS             Address to bind (default 127.0.0.1)
          --port PORT                Port to bind, 0 for any free port (default 8081)
          --devices N                Number of simulated UPS devices (default 3)
          --page-size N              Devices per page of the device list (default 20)
          --token-lifetime DURATION  Lifetime of a login token (default 30m)
          --token-exp-ms             Write the token's exp claim in milliseconds, like newer
                                     WinPower builds (default: seconds, like older ones)
          --clock-skew DURATION      Offset of the server's clock in token claims, e.g. -1h
                                     for a clock an hour behind (default 0)
          --username NAME            Accepted user name (default admin)
          --password TEXT            Accepted password (default admin)
          --fault NAME               Inject a fault; repeat for several
          --servers N                Serve N independent WinPower servers (default 1), each
                                     with its own port (--port, --port+1, ...; any free ports
                                     with --port 0), devices and tokens; prints each base URL
          --fault-server I=FAULT     Make server I (from 0) down (connections refused), hang
                                     (connections never answered) or rejects-password (every
                                     login answers 401); repeat or separate with commas
          --outage-schedule LIST     Scripted mains failures: [DEVICE:]START+LENGTH in seconds
                                     since start, comma-separated (e.g. 2+4,10+4,1:18+8: device
                                     0 on battery at 2-6 s and 10-14 s, device 1 at 18-26 s);
                                     /ROLE after an entry scripts that role instead
                                     (1:30+20/batteryTest: a self-test; also disconnected,
                                     fault, bypass, standby, powerOn, normal); ~RUNTIME after
                                     the length: the battery's runtime from full charge in that
                                     window, seconds (0:10+60~600)
          --three-phase N            The first N devices are three-phase UPSs (default 0)
          --extra-readings N         Each device sends N numeric readings the exporter has no
                                     metric for, and one text reading (default 0)
          --areas N                  Spread the devices over N WinPower areas (default 1)
          --alarm-shapes             Send alarms as code strings, numbers (501) and objects
                                     with messages, not only as objects
          --alias-bytes N            Give the first device an alias of N bytes (a renamed
                                     UPS), to try the exporter's text bound (default 0: off)
          --alias TEXT               Give the first device the alias TEXT (markup, quotes:
                                     anything), to try how pages show it
          --long-texts N             Give every device an alias and a model of N bytes
                                     (Chinese and '#'), to try clients' line limits
          --frozen                   Serve every reading as it is at the start, for output
                                     that is the same on every run (golden tests)
          -h, --help                 Show this help

        """

    static let version = """
        Usage: wpexporter version [--format text|json]

        Print the version, Swift version, platform, build date and git commit.

        Flags:
          --format FORMAT            text (default) or json
          -h, --help                 Show this help

        """

    /// Every configuration key with its type, default, environment variables and flags.
    static var configuration: String {
        var out = "Configuration keys (flags > environment > file > defaults):\n"
        for key in ConfigSchema.tool.keys {
            let defaultText = key.defaultValue.map { "default \($0.formatted(as: key.type))" } ?? "no default"
            out += "\n\(key.name)  \(key.type.name), \(defaultText)\n"
            out += "    \(key.summary)\n"
            out += "    env  " + ([key.environmentVariable] + key.environmentAliases).joined(separator: ", ") + "\n"
            out += "    flag " + ([key.flag] + key.flagAliases).joined(separator: ", ") + "\n"
        }
        for list in ConfigSchema.tool.sections.flatMap(\.lists) {
            out += "\n\(list.name)  sequence, file only (no environment variables or flags)\n"
            out += "    \(list.summary)\n"
            out += "    each entry: " + list.entryKeyNames.joined(separator: ", ") + "\n"
        }
        out += """

            servers  sequence, file only (no environment variables or flags)
                Several WinPower servers: each entry has a name (1-64 of A-Z a-z 0-9 _ . -),
                any winpower key (those it leaves out are taken from winpower), labels,
                collection_interval and energy_from. See docs/configuration.md, "Many servers".

            """
        return out
    }
}

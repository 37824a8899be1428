import WPText
import WPRuntime
public import FoundationEssentials
import WPLogging

extension WinPowerSimulator {
    /// How the simulated server behaves at start. Faults can be switched later at run time.
    public struct Configuration: Sendable {
        /// The user name the login accepts.
        public var username = "admin"
        /// The password the login accepts.
        public var password = "admin"
        /// Number of simulated UPS devices (`--devices`).
        public var deviceCount = 3
        /// Largest page the server returns, whatever the client asks (the captured server: 20).
        public var pageSizeCap = 20
        /// Lifetime written into each token's claims (`exp − iat`, `expire_time_key −
        /// create_time_key`, `tokenExpiredMinutes` rounded up) and enforced by the server:
        /// 30 minutes, like the real server (`--token-lifetime`).
        public var tokenLifetime: Duration = .seconds(1800)
        /// Writes `exp` in milliseconds with a `{"typ":"JWT","alg":"HS512"}` header and an `nbf`
        /// claim, like newer server builds; older builds write `exp` in seconds and
        /// `{"alg":"HS512"}` (`--token-exp-ms`).
        public var tokenExpInMilliseconds = false
        /// How far the server's clock is off ours (`--clock-skew`, e.g. `-1h`): token claims are
        /// written in the server's time. Expiry is still enforced on the injected clock.
        public var clockSkew: Duration = .zero
        /// With ``Fault/earlyExpiry``, the server rejects tokens older than this although
        /// their `exp` claims more.
        public var earlyExpiryAge: Duration = .seconds(60)
        /// With ``Fault/slow``, each response is delayed this long (on the injected clock).
        public var slowDelay: Duration = .seconds(15)
        /// The wall-clock time at the simulator clock's origin; JWT `iat`/`exp` derive from it
        /// (shifted by ``clockSkew``).
        public var epoch = Date()
        /// A path prefix the API lives under (e.g. `/winpower`), empty by default.
        public var pathPrefix = ""
        /// Faults active from the start (`--fault`).
        public var faults: Set<Fault> = []
        /// The number of the first device: devices are ``SimulatedDevice/init(index:)`` from
        /// here on, so servers of a ``SimulatorFleet`` share no device id.
        public var firstDeviceIndex = 0
        /// Mixed into every token this server issues (0: the tokens of a lone simulator), so
        /// servers of a ``SimulatorFleet`` never issue the same token.
        public var tokenNamespace = 0
        /// Scripted mains failures (`--outage-schedule`): a device in a window reports battery
        /// mode, or the window's other role, whatever its own (a disconnected device stays
        /// disconnected).
        public var outageSchedule: [OutageWindow] = []
        /// How many of this server's devices, from the first, are three-phase UPSs
        /// (`--three-phase`): they send `…1`/`…2`/`…3` keys and phase counts of 3.
        public var threePhaseDevices = 0
        /// Numeric `realtime` members every device sends besides the captured ones
        /// (`--extra-readings`): `emdTemp`, `emdHumidity`, `batTemp`, `bypassVolt`, `bypassFreq`,
        /// `loadSegment1State`, then `reading7`, `reading8`, …; with any, also one text member.
        public var extraReadings = 0
        /// WinPower areas the devices are spread over (`--areas`): device `i` is in area
        /// `i % areas` (area 0 is the root); the list honours `areaId` and `includeSubArea`.
        public var areas = 1
        /// Every reading as at the simulation's start (`--frozen`): the power curves and the
        /// outage schedule stay at second 0, so every run serves the same values (tokens
        /// still expire on the clock).
        public var frozenReadings = false
        /// Active alarms in several shapes (`--alarm-shapes`): a plain code string for a fault,
        /// the number `501` (BatteryTestInProgress) and an object with a message and an id for a
        /// battery test, as well as the usual objects.
        public var alarmShapes = false
        /// When above 0, the first device's alias is this many UTF-8 bytes of `€` (three bytes
        /// each, `x` to fill up) instead of its usual one (`--alias-bytes`): a UPS renamed to
        /// something huge, for trying the exporter's text bound.
        public var aliasBytes = 0
        /// Every device's alias and model are texts of this many UTF-8 bytes when above 0
        /// (`--long-texts`): the alias `UPS <index> `, Chinese (pinyin makes it longer) and `#`
        /// (escaped on NUT's wire), the model `#`; for trying the protocols' line limits.
        public var longTexts = 0
        /// The first device's alias, when set (`--alias`): a UPS named with anything, markup and
        /// quotes included, for trying how the exporter's pages show it. `aliasBytes` wins.
        public var alias: String?

        /// Creates the defaults: `admin`/`admin`, 3 devices, 20 per page, 30-minute tokens, no
        /// fault.
        public init() {}
    }

    /// Injectable failures. `rawValue` is the name accepted by `--fault`.
    public enum Fault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The server cannot be reached: the handler throws ``SimulatorError/unreachable`` and a
        /// socket runner refuses or resets the connection.
        case unreachable
        /// Every response is delayed by ``Configuration/slowDelay``.
        case slow
        /// Every API request answers HTTP 500.
        case http500 = "http-500"
        /// Every API response body is not valid JSON.
        case malformedJSON = "malformed-json"
        /// Every API response body is cut in half.
        case truncatedBody = "truncated-body"
        /// The device list answers HTTP 401 to every token.
        case unauthorized
        /// The device list answers HTTP 200 with envelope code `401` to every token.
        case envelope401 = "envelope-401"
        /// Tokens are rejected after ``Configuration/earlyExpiryAge`` despite their `exp`.
        case earlyExpiry = "early-expiry"
        /// The first device object of each page lacks its `assetDevice.id` and has mistyped fields.
        case malformedDevice = "malformed-device"
        /// Every login is rejected, even with the right credentials.
        case wrongCredentials = "wrong-credentials"

        /// The fault's name, as `--fault` takes it.
        public var description: String { rawValue }

        /// Parses a comma-separated list of fault names (`slow,http-500`).
        ///
        /// - Throws: ``SimulatorError/unknownFault(_:)`` naming the bad entry and the valid names.
        public static func parseList(_ text: String) throws -> Set<Fault> {
            var faults: Set<Fault> = []
            for name in text.split(separator: ",").map({ $0.trimmingBlanks() }) where !name.isEmpty {
                guard let fault = Fault(rawValue: name) else { throw SimulatorError.unknownFault(name) }
                faults.insert(fault)
            }
            return faults
        }
    }

    /// How many requests the simulator has served, for assertions in tests.
    public struct Counters: Sendable, Equatable {
        /// Login requests received (accepted or not).
        public var loginAttempts = 0
        /// Logins that issued a token.
        public var logins = 0
        /// Device-list requests received.
        public var listCalls = 0
        /// Device-list requests rejected as unauthorized.
        public var unauthorized = 0

        /// Creates the counters at zero.
        public init() {}
    }
}

/// Errors of the simulator.
public enum SimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Thrown by the handler while ``WinPowerSimulator/Fault/unreachable`` is active.
    case unreachable
    /// A `--fault` name that does not exist.
    case unknownFault(String)
    /// An `--outage-schedule` entry that is not `[DEVICE:]START+LENGTH[~RUNTIME][/ROLE]`.
    case badOutageSchedule(String)

    /// What went wrong, naming the bad fault or schedule entry and what is expected.
    public var description: String {
        switch self {
        case .unreachable: "simulated WinPower is unreachable"
        case .unknownFault(let name):
            "unknown fault '\(name)'; known: \(WinPowerSimulator.Fault.allCases.map(\.rawValue).joined(separator: ", "))"
        case .badOutageSchedule(let entry):
            "outage window '\(entry)' is not [DEVICE:]START+LENGTH[~RUNTIME][/ROLE] in seconds (e.g. 2+4, 1:30+10, 0:10+60~600 or 1:30+10/batteryTest; "
                + "roles: \(SimulatedDevice.Role.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }
}

import WPRuntime

/// The `system` group of SNMPv2-MIB (RFC 3418, `1.3.6.1.2.1.1`): what a manager reads first
/// to identify the agent.
///
/// `sysORLastChange` and `sysORTable` are not served.
public struct SystemGroup: Sendable, Equatable {
    /// `system` (`1.3.6.1.2.1.1`).
    public static let system: OID = "1.3.6.1.2.1.1"
    public static let sysDescr = system.appending(1)
    public static let sysObjectID = system.appending(2)
    public static let sysUpTime = system.appending(3)
    public static let sysContact = system.appending(4)
    public static let sysName = system.appending(5)
    public static let sysLocation = system.appending(6)
    public static let sysServices = system.appending(7)

    /// The default `sysObjectID`: `upsMIB` (`1.3.6.1.2.1.33`). RFC 3418 asks for an identifier
    /// from the vendor's enterprise subtree (`1.3.6.1.4.1`); wpexporter has no enterprise
    /// number of its own, and net-snmp's (`8072`) would claim to be net-snmp. The UPS-MIB's
    /// module identity is a registered OID that says what this agent is: a UPS-MIB agent.
    public static let defaultObjectID: OID = "1.3.6.1.2.1.33"

    /// `sysServices` 72: an application-layer (64) and end-to-end (8) node, as RFC 3418
    /// computes it for a host offering application services.
    public static let defaultServices: Int32 = 72

    public var description: String
    public var objectID: OID
    /// `sysUpTime` in hundredths of a second (served live by ``SNMPMIBView/withLiveUpTime(since:clock:)``).
    public var upTime: UInt32
    public var contact: String
    public var name: String
    public var location: String
    public var services: Int32

    public init(description: String, objectID: OID = SystemGroup.defaultObjectID, upTime: UInt32 = 0, contact: String = "",
                name: String = "", location: String = "", services: Int32 = SystemGroup.defaultServices) {
        self.description = description
        self.objectID = objectID
        self.upTime = upTime
        self.contact = contact
        self.name = name
        self.location = location
        self.services = services
    }

    /// Adds the seven scalars to `builder` (DisplayStrings cut to their 255 bytes).
    public func add(to builder: inout MIBBuilder) {
        builder.scalar(Self.sysDescr, .displayString(description, maxBytes: 255))
        builder.scalar(Self.sysObjectID, .objectIdentifier(objectID))
        builder.scalar(Self.sysUpTime, .timeTicks(upTime))
        builder.scalar(Self.sysContact, .displayString(contact, maxBytes: 255))
        builder.scalar(Self.sysName, .displayString(name, maxBytes: 255))
        builder.scalar(Self.sysLocation, .displayString(location, maxBytes: 255))
        builder.scalar(Self.sysServices, .integer(services))
    }
}

extension SNMPValue {
    /// A DisplayString (RFC 2579: printable ASCII) of at most `maxBytes` bytes: `text` spelled
    /// in ASCII (`ASCIIText`: Chinese in pinyin, `机房 A` → `jifang A`; a character without an
    /// ASCII spelling, control and bidirectional formatting characters among them, as `?`), cut
    /// at `maxBytes`. Every text the agent serves or sends goes through here.
    public static func displayString(_ text: String, maxBytes: Int) -> SNMPValue {
        .octetString(Array(ASCIIText.transliterated(text).utf8.prefix(max(0, maxBytes))))
    }
}

/// A view whose `sysUpTime.0` is the time since `start` when read, over another view.
public struct LiveUpTimeView<Base: SNMPMIBView, C: Clock>: SNMPMIBView where C.Duration == Duration {
    public let base: Base
    public let start: C.Instant
    public let clock: C

    public func get(_ oid: OID) -> SNMPValue {
        let value = base.get(oid)
        return oid == Self.instance && !value.isException ? .timeTicks(ticks()) : value
    }

    public func next(after oid: OID) -> VarBind? {
        guard let found = base.next(after: oid) else { return nil }
        return found.oid == Self.instance ? VarBind(found.oid, .timeTicks(ticks())) : found
    }

    private static var instance: OID { SystemGroup.sysUpTime.appending(0) }

    /// Hundredths of a second since `start`, wrapping at 2³² as TimeTicks do.
    func ticks() -> UInt32 {
        let elapsed = start.duration(to: clock.now)
        let (seconds, attoseconds) = elapsed.components
        guard seconds >= 0 else { return 0 }
        let hundredths = UInt64(seconds) &* 100 &+ UInt64(max(0, attoseconds) / 10_000_000_000_000_000)
        return UInt32(truncatingIfNeeded: hundredths)
    }
}

/// Another view whose `sysName.0` (when it has one) is `name`: the agent's own name over a
/// UPS's view, which carries the UPS's name.
public struct SysNameView<Base: SNMPMIBView>: SNMPMIBView {
    public let base: Base
    public let name: SNMPValue

    public func get(_ oid: OID) -> SNMPValue {
        let value = base.get(oid)
        return oid == Self.instance && !value.isException ? name : value
    }

    public func next(after oid: OID) -> VarBind? {
        guard let found = base.next(after: oid) else { return nil }
        return found.oid == Self.instance ? VarBind(found.oid, name) : found
    }

    private static var instance: OID { SystemGroup.sysName.appending(0) }
}

extension SNMPMIBView {
    /// This view with `sysName.0` (when it has one) answered as `name` (cut to 255 bytes).
    public func withSysName(_ name: String) -> SysNameView<Self> {
        SysNameView(base: self, name: .displayString(name, maxBytes: 255))
    }

    /// This view with `sysUpTime.0` (when it has one) answered live: the hundredths of a second
    /// elapsed on `clock` since `start`.
    public func withLiveUpTime<C: Clock>(since start: C.Instant, clock: C) -> LiveUpTimeView<Self, C> where C.Duration == Duration {
        LiveUpTimeView(base: self, start: start, clock: clock)
    }
}

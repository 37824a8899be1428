import WPText
import WPRuntime

/// The `system` group of SNMPv2-MIB (RFC 3418, `1.3.6.1.2.1.1`): what a manager reads first
/// to identify the agent.
///
/// `sysORLastChange` and `sysORTable` are not served.
package struct SystemGroup: Sendable, Equatable {
    /// `system` (`1.3.6.1.2.1.1`).
    package static let system: OID = "1.3.6.1.2.1.1"
    package static let sysDescr = system.appending(1)
    package static let sysObjectID = system.appending(2)
    package static let sysUpTime = system.appending(3)
    package static let sysContact = system.appending(4)
    package static let sysName = system.appending(5)
    package static let sysLocation = system.appending(6)
    package static let sysServices = system.appending(7)

    /// The default `sysObjectID`: `upsMIB` (`1.3.6.1.2.1.33`). RFC 3418 asks for an identifier
    /// from the vendor's enterprise subtree (`1.3.6.1.4.1`); wpexporter has no enterprise
    /// number of its own, and net-snmp's (`8072`) would claim to be net-snmp. The UPS-MIB's
    /// module identity is a registered OID that says what this agent is: a UPS-MIB agent.
    package static let defaultObjectID: OID = "1.3.6.1.2.1.33"

    /// `sysServices` 72: an application-layer (64) and end-to-end (8) node, as RFC 3418
    /// computes it for a host offering application services.
    package static let defaultServices: Int32 = 72

    package var description: String
    package var objectID: OID
    /// `sysUpTime` in hundredths of a second (served live by ``SNMPMIBView/withLiveUpTime(since:clock:)``).
    package var upTime: UInt32
    package var contact: String
    package var name: String
    package var location: String
    package var services: Int32

    package init(description: String, objectID: OID = SystemGroup.defaultObjectID, upTime: UInt32 = 0, contact: String = "",
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
    package func add(to builder: inout MIBBuilder) {
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
    package static func displayString(_ text: String, maxBytes: Int) -> SNMPValue {
        .octetString(Array(ASCIIText.transliterated(text).utf8.prefix(max(0, maxBytes))))
    }
}

/// A view whose `sysUpTime.0` is the time since `start` when read, over another view.
package struct LiveUpTimeView<Base: SNMPMIBView, C: Clock>: SNMPMIBView where C.Duration == Duration {
    package let base: Base
    package let start: C.Instant
    package let clock: C

    package func get(_ oid: OID) -> SNMPValue {
        let value = base.get(oid)
        return oid == Self.instance && !value.isException ? .timeTicks(ticks()) : value
    }

    package func next(after oid: OID) -> VarBind? {
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
package struct SysNameView<Base: SNMPMIBView>: SNMPMIBView {
    package let base: Base
    package let name: SNMPValue

    package func get(_ oid: OID) -> SNMPValue {
        let value = base.get(oid)
        return oid == Self.instance && !value.isException ? name : value
    }

    package func next(after oid: OID) -> VarBind? {
        guard let found = base.next(after: oid) else { return nil }
        return found.oid == Self.instance ? VarBind(found.oid, name) : found
    }

    private static var instance: OID { SystemGroup.sysName.appending(0) }
}

extension SNMPMIBView {
    /// This view with `sysName.0` (when it has one) answered as `name` (cut to 255 bytes).
    package func withSysName(_ name: String) -> SysNameView<Self> {
        SysNameView(base: self, name: .displayString(name, maxBytes: 255))
    }

    /// This view with `sysUpTime.0` (when it has one) answered live: the hundredths of a second
    /// elapsed on `clock` since `start`.
    package func withLiveUpTime<C: Clock>(since start: C.Instant, clock: C) -> LiveUpTimeView<Self, C> where C.Duration == Duration {
        LiveUpTimeView(base: self, start: start, clock: clock)
    }
}

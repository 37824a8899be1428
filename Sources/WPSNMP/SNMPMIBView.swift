/// A read-only view of MIB object instances in lexicographic OID order: what the agent answers.
///
/// Contract: `get` and `next(after:)` are pure reads of one consistent set of instances, safe
/// from any thread; `next(after:)` returns the first instance strictly after `oid` in the order
/// of ``OID/<(_:_:)``, so repeated calls walk every instance once.
package protocol SNMPMIBView: Sendable {
    /// The value of the instance `oid`, or ``SNMPValue/noSuchInstance`` when `oid` lies under an
    /// object type the view has but is not one of its instances, ``SNMPValue/noSuchObject``
    /// otherwise.
    func get(_ oid: OID) -> SNMPValue

    /// The first instance after `oid`, or `nil` at the end of the view.
    func next(after oid: OID) -> VarBind?
}

/// A snapshot of instances in a sorted table: ``get(_:)`` and ``next(after:)`` are binary
/// searches, O(log n), so a walk of n instances costs O(n log n) in all.
///
/// ```swift
/// var builder = MIBBuilder()
/// SystemGroup(description: "wpexporter", name: "ups-gw").add(to: &builder)
/// let view = builder.build()
/// view.next(after: "1.3.6.1.2.1.1")  // sysDescr.0
/// ```
package struct MIBTable: SNMPMIBView {
    /// The instances, sorted by OID, no duplicates.
    package let instances: [VarBind]
    /// The object types (scalars and table columns), sorted; none is a prefix of another.
    let objects: [OID]

    init(instances: [VarBind], objects: [OID]) {
        self.instances = instances
        self.objects = objects
    }

    package func get(_ oid: OID) -> SNMPValue {
        let index = firstIndex(notBefore: oid, in: instances, by: \.oid)
        if index < instances.count, instances[index].oid == oid { return instances[index].value }
        // The object types are not nested, so only the greatest one not after `oid` can prefix it.
        let object = firstIndex(notBefore: oid, in: objects, by: \.self)
        if object < objects.count, objects[object] == oid { return .noSuchInstance }
        if object > 0, oid.isPrefixed(by: objects[object - 1]) { return .noSuchInstance }
        return .noSuchObject
    }

    package func next(after oid: OID) -> VarBind? {
        var index = firstIndex(notBefore: oid, in: instances, by: \.oid)
        if index < instances.count, instances[index].oid == oid { index += 1 }
        return index < instances.count ? instances[index] : nil
    }

    /// The number of instances.
    package var count: Int { instances.count }
}

/// The index of the first element whose key is not less than `oid` (`elements.count` if none).
func firstIndex<Element>(notBefore oid: OID, in elements: [Element], by key: (Element) -> OID) -> Int {
    var low = 0
    var high = elements.count
    while low < high {
        let middle = (low + high) / 2
        if key(elements[middle]) < oid { low = middle + 1 } else { high = middle }
    }
    return low
}

/// Collects object instances, then sorts them into a ``MIBTable``.
package struct MIBBuilder: Sendable {
    private var instances: [OID: SNMPValue] = [:]
    private var objects: Set<OID> = []

    package init() {}

    /// Adds the scalar `object` as its instance `object.0`.
    package mutating func scalar(_ object: OID, _ value: SNMPValue) {
        add(object, index: [0], value)
    }

    /// Adds the instance `object.index` of a table column (or a scalar with `index` `[0]`);
    /// a second value for the same instance replaces the first.
    package mutating func add(_ object: OID, index: [UInt32], _ value: SNMPValue) {
        objects.insert(object)
        instances[object.appending(index)] = value
    }

    /// The sorted view of every instance added.
    package func build() -> MIBTable {
        MIBTable(instances: instances.map { VarBind($0.key, $0.value) }.sorted { $0.oid < $1.oid },
                 objects: objects.sorted())
    }
}

/// The part of a view under one subtree (a community limited to the `system` group): other
/// instances do not exist for it.
package struct SubtreeView: SNMPMIBView {
    package let base: any SNMPMIBView
    package let subtree: OID

    package init(_ base: any SNMPMIBView, subtree: OID) {
        self.base = base
        self.subtree = subtree
    }

    package func get(_ oid: OID) -> SNMPValue {
        oid.isPrefixed(by: subtree) ? base.get(oid) : .noSuchObject
    }

    package func next(after oid: OID) -> VarBind? {
        // Before the subtree: its first instance; inside it: the next one still inside.
        let cursor = oid < subtree ? subtree : oid
        guard let found = base.next(after: cursor), found.oid.isPrefixed(by: subtree) else { return nil }
        return found
    }
}

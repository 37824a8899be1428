import WPCompression
import FoundationEssentials

/// The on-disk format of the energy state file (version 2): line-oriented UTF-8 text with a
/// CRC-32 of everything before the last line.
///
/// ```
/// wpexporter-energy-state v2
/// generation 42
/// saved-at-ms 1763780000000
/// legacy-imported 1
/// devices 2
/// d 5400000.125 0 ups-1
/// o transfers=2 battery-s=95.5 discharge-j=38200 hist=1,0,0,1,0,0,0,0,0 hist-sum=131 …
/// d 0 3 id%20with%20space
/// crc32 1a2b3c4d
/// ```
///
/// Each `d` line may be followed by one `o` line: that device's ``StoredOutageLedger``, as
/// `key=value` fields, only those not at their default (StateFileFormat+Ledger.swift lists
/// them); a device that never had an outage nor a self-test has none. `devices` counts the `d`
/// lines. Version 1 (written by releases before the ledger) is the same without `o` lines and is
/// still read: every total is kept, ledgers start empty; the next save writes version 2.
///
/// The records other components keep (``EnergyState/sections``, ``StateSections``) follow the
/// devices. Version 4 writes each as `s <section> <field> <field> …`, every word percent-encoded
/// as device ids are. Version 3 (its only section is ``version3Section``, records of three
/// fields: a device key, a name, a description) writes them as `n <field> <field> <field>`; a
/// state whose sections fit it is still written as version 3, and one without sections as
/// version 2, so releases that read those keep reading what this one writes.
///
/// Numbers are written with Swift's shortest round-trip representation, so decoding gives back
/// the exact `Double`. Device ids are percent-encoded outside printable ASCII (and `%`).
/// Decoding is a pure function that rejects anything unexpected with a reason.
enum StateFileFormat {
    static let magic = "wpexporter-energy-state v2"
    /// The first line of files written before the outage ledger existed (no `o` lines).
    static let magicV1 = "wpexporter-energy-state v1"
    /// The first line of files with `n` lines.
    static let magicV3 = "wpexporter-energy-state v3"
    /// The first line of files with `s` lines.
    static let magicV4 = "wpexporter-energy-state v4"
    /// The one section version 3 holds, as its `n` lines.
    package static let version3Section = "nut-names"

    /// The first line `sections` need: version 2 without any, 3 when they fit its `n` lines, 4
    /// otherwise.
    static func magic(for sections: [String: [[String]]]) -> String {
        if sections.isEmpty { return magic }
        let fitsVersion3 = sections.count == 1 && sections[version3Section]?.allSatisfy { $0.count == 3 && !$0[1].isEmpty } == true
        return fitsVersion3 ? magicV3 : magicV4
    }

    /// Encodes `state` into file bytes.
    static func encode(_ state: EnergyState) -> [UInt8] {
        var text = ""
        text.reserveCapacity(64 + state.devices.count * 48)
        let first = magic(for: state.sections)
        text += first + "\n"
        text += "generation \(state.generation)\n"
        let savedMillis = state.savedAt.map { clampedMillis($0) } ?? 0
        text += "saved-at-ms \(savedMillis)\n"
        text += "legacy-imported \(state.legacyFilesImported ? 1 : 0)\n"
        text += "devices \(state.devices.count)\n"
        for id in state.devices.keys.sorted() {
            guard let device = state.devices[id] else { continue }
            text += "d \(device.joules) \(device.gaps) \(escape(id))\n"
            if !device.ledger.isEmpty { appendLedgerLine(device.ledger, to: &text) }
        }
        for section in state.sections.keys.sorted() {
            for record in state.sections[section] ?? [] {
                text += first == magicV3 ? "n" : "s \(escape(section))"
                for field in record { text += " " + escape(field) }
                text += "\n"
            }
        }
        var bytes = Array(text.utf8)
        let crc = CRC32.checksum(bytes)
        bytes += Array("crc32 \(hex8(crc))\n".utf8)
        return bytes
    }

    /// Unix milliseconds of `date`, 0 when not representable (a wildly wrong wall clock).
    static func clampedMillis(_ date: Date) -> Int64 {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        return millis.isFinite && abs(millis) < 9e18 ? Int64(millis) : 0
    }

    /// Decodes file bytes.
    ///
    /// - Returns: the state, or the reason it is invalid.
    static func decode(_ bytes: [UInt8]) -> Result<EnergyState, FormatFailure> {
        guard !bytes.isEmpty else { return .failure("file is empty") }
        guard bytes.last == UInt8(ascii: "\n") else { return .failure("file is truncated (no final newline)") }
        // The checksum line is the last line.
        let body = bytes.dropLast()
        guard let lastNewline = body.lastIndex(of: UInt8(ascii: "\n")) else {
            return .failure("file has no checksum line")
        }
        let covered = bytes[..<(lastNewline + 1)]
        let checksumLine = String(decoding: body[(lastNewline + 1)...], as: UTF8.self)
        guard checksumLine.hasPrefix("crc32 "), let stored = UInt32(checksumLine.dropFirst(6), radix: 16),
              checksumLine.count == 14 else {
            return .failure("last line is not a checksum (file truncated?)")
        }
        let actual = CRC32.checksum(covered)
        guard actual == stored else {
            return .failure("checksum mismatch: stored \(hex8(stored)), computed \(hex8(actual))")
        }
        guard let text = String(validating: covered, as: UTF8.self) else {
            return .failure("file is not valid UTF-8")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()[...]
        let first = lines.popFirst()
        guard first == Substring(magic) || first == Substring(magicV1) || first == Substring(magicV3) || first == Substring(magicV4) else {
            return .failure("unknown format: first line must be '\(magic)' (or '\(magicV1)', '\(magicV3)', '\(magicV4)')")
        }
        let allowsLedger = first != Substring(magicV1)
        let sectionTag: Substring? = first == Substring(magicV3) ? "n " : first == Substring(magicV4) ? "s " : nil
        do throws(FormatFailure) {
            var state = EnergyState()
            state.generation = try header("generation", lines.popFirst()) { UInt64($0) }
            let millis = try header("saved-at-ms", lines.popFirst()) { Int64($0) }
            state.savedAt = millis > 0 ? Date(timeIntervalSince1970: Double(millis) / 1000) : nil
            let imported = try header("legacy-imported", lines.popFirst()) { Int($0) }
            guard imported == 0 || imported == 1 else { throw FormatFailure("legacy-imported must be 0 or 1") }
            state.legacyFilesImported = imported == 1
            let count = try header("devices", lines.popFirst()) { Int($0) }
            let deviceLines = lines.reduce(0) { count, line in
                count + ((allowsLedger && line.hasPrefix("o ")) || (sectionTag.map(line.hasPrefix) ?? false) ? 0 : 1)
            }
            guard count == deviceLines else {
                throw FormatFailure("header announces \(count) devices, file has \(deviceLines) device lines")
            }
            state.devices.reserveCapacity(count)
            var previous: String?
            for (offset, line) in lines.enumerated() {
                if let sectionTag, line.hasPrefix(sectionTag) {
                    let (section, record) = try sectionLine(line, version3: sectionTag == "n ", number: offset + 6)
                    state.sections[section, default: []].append(record)
                    previous = nil
                    continue
                }
                if allowsLedger, line.hasPrefix("o ") {
                    guard let id = previous, state.devices[id]?.ledger.isEmpty == true else {
                        throw FormatFailure("line \(offset + 6): an 'o' line must follow its device's 'd' line, once")
                    }
                    let ledger = try ledgerLine(line, number: offset + 6)
                    // An empty ledger is never written; reading one back as written keeps the
                    // "one 'o' line per device" rule checkable.
                    guard !ledger.isEmpty else { throw FormatFailure("line \(offset + 6): empty 'o' line") }
                    state.devices[id]?.ledger = ledger
                    continue
                }
                let (id, device) = try deviceLine(line, number: offset + 6)
                guard state.devices.updateValue(device, forKey: id) == nil else {
                    throw FormatFailure("line \(offset + 6): device '\(id)' appears twice")
                }
                previous = id
            }
            return .success(state)
        } catch {
            return .failure(error)
        }
    }

    /// Why a state file was rejected.
    struct FormatFailure: Error, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func header<T>(_ key: String, _ line: Substring?, _ parse: (Substring) -> T?) throws(FormatFailure) -> T {
        guard let line, line.hasPrefix(key + " "), let value = parse(line.dropFirst(key.count + 1)) else {
            throw FormatFailure("expected '\(key) <value>', found '\(line.map(String.init) ?? "end of file")'")
        }
        return value
    }

    private static func deviceLine(_ line: Substring, number: Int) throws(FormatFailure) -> (String, StoredDeviceEnergy) {
        let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "d" else {
            throw FormatFailure("line \(number): expected 'd <joules> <gaps> <device id>'")
        }
        guard let joules = Double(parts[1]), joules.isFinite, joules >= 0 else {
            throw FormatFailure("line \(number): energy '\(parts[1])' is not a finite number ≥ 0")
        }
        guard let gaps = Int(parts[2]), gaps >= 0 else {
            throw FormatFailure("line \(number): gap count '\(parts[2])' is not an integer ≥ 0")
        }
        guard let id = unescape(parts[3]) else {
            throw FormatFailure("line \(number): device id '\(parts[3])' has a bad %-escape")
        }
        // Range check: any count up to Int.max parses, but it is clamped to what the exporter
        // can count exactly and advance without overflow; the energy total is kept as is.
        return (id, StoredDeviceEnergy(joules: joules, gaps: StoredDeviceEnergy.clampedGaps(gaps)))
    }

    /// `s <section> <field> …` (version 4) or `n <key> <name> <description>` (version 3, the
    /// record of ``version3Section``).
    private static func sectionLine(_ line: Substring, version3: Bool, number: Int) throws(FormatFailure) -> (String, [String]) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        if version3 {
            guard parts.count == 4, let key = unescape(parts[1]), let name = unescape(parts[2]),
                  let description = unescape(parts[3]), !name.isEmpty else {
                throw FormatFailure("line \(number): expected 'n <key> <name> <description>' with an unempty name and good %-escapes")
            }
            return (version3Section, [key, name, description])
        }
        guard parts.count >= 2, let section = unescape(parts[1]), !section.isEmpty else {
            throw FormatFailure("line \(number): expected 's <section> <field> …'")
        }
        var record: [String] = []
        for part in parts.dropFirst(2) {
            guard let field = unescape(part) else { throw FormatFailure("line \(number): a field with a bad %-escape") }
            record.append(field)
        }
        return (section, record)
    }

    static func escape(_ id: String) -> String {
        let bytes = id.utf8
        if bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }) { return id }
        var out = ""
        for byte in bytes {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    static func unescape(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex8(_ value: UInt32) -> String {
        String(value, radix: 16).leftPadded(to: 8)
    }
}

extension Result where Failure == StateFileFormat.FormatFailure {
    static func failure(_ text: String) -> Self { .failure(StateFileFormat.FormatFailure(text)) }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

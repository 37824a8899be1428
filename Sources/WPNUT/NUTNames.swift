import WPText
import WPRuntime

/// NUT names for WinPower devices: what `upsc name@host` and `MONITOR name@host` use.
///
/// A configured name (by `device_id`) wins; otherwise the alias becomes a readable name: spelled
/// in ASCII first (`ASCIIText`: Chinese in pinyin, so `机房 A` is `jifang-a`), then ASCII
/// letters, digits, `_` and `.` kept, anything else (spaces, punctuation, characters without an
/// ASCII spelling) a single `-`, lower case, at most 32 characters, `ups` when nothing is left. Names stay unique: a
/// repeated name gets `-2`, `-3`, … in the order the devices are given (configured names are
/// taken first, so they never move).
package enum NUTNames {
    /// The longest derived name.
    package static let maximumLength = 32

    /// Whether `name` is usable as a NUT UPS name: 1 to 64 of `[A-Za-z0-9_.-]`, not starting
    /// with `-` or `.`.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64, first != UInt8(ascii: "-"), first != UInt8(ascii: ".")
        else { return false }
        return name.utf8.allSatisfy(isNameByte)
    }

    /// The readable name of an alias, before uniqueness (`Server Room #2` → `server-room-2`,
    /// `机房 A` → `jifang-a`).
    package static func derived(from alias: String?) -> String {
        var out: [UInt8] = []
        var pendingDash = false
        for scalar in ASCIIText.transliterated(alias ?? "", unknown: " ").unicodeScalars {
            if scalar.isASCII, isNameByte(UInt8(scalar.value)), scalar != "-" {
                if pendingDash, !out.isEmpty { out.append(UInt8(ascii: "-")) }
                pendingDash = false
                out.append(UInt8(scalar.value | (scalar.properties.isUppercase ? 0x20 : 0)))
            } else {
                pendingDash = true
            }
            if out.count >= maximumLength { break }
        }
        while let first = out.first, first == UInt8(ascii: ".") || first == UInt8(ascii: "_") { out.removeFirst() }
        while out.last == UInt8(ascii: "-") { out.removeLast() }
        return out.isEmpty ? "ups" : String(decoding: out, as: UTF8.self)
    }

    /// Unique names for `devices`, in order.
    ///
    /// - Parameters:
    ///   - devices: `(id, alias)` of every device served, in a stable order (server order, then
    ///     `device_id`).
    ///   - configured: names given by `device_id` (valid and unique: validation checks them).
    /// - Returns: the name of each device, by `device_id`.
    package static func assign(_ devices: [(id: String, alias: String?)], configured: [String: String] = [:]) -> [String: String] {
        var names: [String: String] = [:]
        var taken = Set(configured.values.map { $0.lowercased() })
        for device in devices {
            if let name = configured[device.id] {
                names[device.id] = name
                continue
            }
            let base = derived(from: device.alias)
            var name = base
            var suffix = 2
            while taken.contains(name.lowercased()) {
                name = "\(base)-\(suffix)"
                suffix += 1
            }
            taken.insert(name.lowercased())
            names[device.id] = name
        }
        return names
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

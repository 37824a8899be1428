/// The byte bound on a device's text fields (``DeviceListDecoder/maxTextBytes``).
extension DeviceListDecoder {
    /// Cuts every text field of `device` longer than ``maxTextBytes`` and counts the cuts in
    /// ``Device/textsTruncated``: a code or an asset field at the last whole character within
    /// the bound, an alarm name, message or id one character earlier followed by "…". The
    /// device id is checked before (a long one drops the device).
    func boundTexts(of device: inout Device) {
        var cuts = 0
        let limit = maxTextBytes
        func bound(_ text: inout String?) {
            guard let value = text, let cut = Self.truncated(value, toBytes: limit) else { return }
            text = cut
            cuts += 1
        }
        // Alarm texts are read by people (`/health`): cut ones end with "…" (3 bytes), within the bound.
        func boundProse(_ text: inout String?) {
            guard let value = text, value.utf8.count > limit else { return }
            var kept = Self.truncated(value, toBytes: limit - 3) ?? value
            while kept.hasSuffix("…") { kept.removeLast() }
            text = kept + "…"
            cuts += 1
        }
        bound(&device.asset.model)
        bound(&device.asset.alias)
        bound(&device.asset.comPort)
        bound(&device.asset.areaId)
        bound(&device.asset.firmwareVersion)
        bound(&device.asset.createTime)
        bound(&device.realtime.faultCode)
        if var alarms = device.activeAlarms {
            for index in alarms.codes.indices {
                var code: String? = alarms.codes[index]
                bound(&code)
                alarms.codes[index] = code ?? ""
            }
            for index in alarms.alarms.indices {
                bound(&alarms.alarms[index].code)
                boundProse(&alarms.alarms[index].name)
                boundProse(&alarms.alarms[index].message)
                boundProse(&alarms.alarms[index].id)
            }
            device.activeAlarms = alarms
        }
        device.textsTruncated = cuts
    }

    /// `text` cut to at most `limit` UTF-8 bytes at the start of a Unicode scalar (never inside
    /// one), or `nil` when it already fits.
    ///
    /// - Parameters:
    ///   - text: any text.
    ///   - limit: the most UTF-8 bytes kept (0 or more).
    /// - Returns: the longest prefix of whole scalars within `limit` bytes, or `nil` when
    ///   `text` is no longer than `limit` bytes.
    package static func truncated(_ text: String, toBytes limit: Int) -> String? {
        let utf8 = text.utf8
        guard utf8.count > max(0, limit) else { return nil }
        var end = utf8.index(utf8.startIndex, offsetBy: max(0, limit))
        // A UTF-8 continuation byte is 0b10xxxxxx: back up to the byte that starts a scalar.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 {
            end = utf8.index(before: end)
        }
        return String(decoding: utf8[utf8.startIndex..<end], as: UTF8.self)
    }
}

/// Decodes WinPower responses: the device list, login replies and JWT payloads.
///
/// A pure function of the bytes, tolerant per field: a value that is not what the schema
/// says becomes `nil` (never `0`), a device object without a usable `assetDevice.id` is
/// dropped and reported, unknown fields are ignored. Only a body that is not JSON, or not an
/// object, fails — with a ``ClientError`` of kind `decode` naming the byte offset (the body
/// itself is never quoted).
///
/// ```swift
/// let decoder = DeviceListDecoder()
/// let page = try decoder.decodeDeviceList(body, page: 1)
/// print(page.total ?? 0, page.devices.map(\.id))
/// ```
package struct DeviceListDecoder: Sendable {
    enum EnvelopeKey: String, CaseIterable, Sendable {
        case total, pageSize, currentPage, code, msg, message, data
    }

    enum LoginKey: String, CaseIterable, Sendable {
        case code, msg, message, data, token, deviceId
    }

    let envelopeKeys = KeyTable<EnvelopeKey>()
    let loginKeys = KeyTable<LoginKey>()
    let deviceKeys = KeyTable<DeviceKey>()
    let assetKeys = KeyTable<AssetKey>()
    let realtimeKeys = KeyTable<RealtimeKey>()
    let configKeys = KeyTable<ConfigKey>()
    let settingKeys = KeyTable<SettingKey>()
    let controlKeys = KeyTable<ControlKey>()
    let alarmKeys = KeyTable<AlarmKey>()
    let phaseStems = KeyTable<PhaseReadings.Quantity>()
    let claimKeys = KeyTable<ClaimKey>()

    /// Numeric members without a field kept per device in ``Device/extraReadings``; the
    /// rest are counted in ``Device/extraReadingsDropped``. The exporter caps them lower.
    package static let extraReadingLimit = 1_024
    /// The longest member name kept as an extra reading, in bytes.
    package static let longestExtraKey = 64
    /// Alarm entries whose details are kept per device (all are counted).
    package static let alarmDetailLimit = 64
    /// Alarm codes kept per device in ``ActiveAlarms/codes`` (all entries are counted).
    package static let alarmCodeLimit = 256
    /// The longest alarm name or message kept, in characters.
    package static let longestAlarmText = 256
    /// The default of ``maxTextBytes``.
    package static let defaultMaxTextBytes = 256
    /// The smallest ``maxTextBytes``: room for a device id (a 36-byte uuid) and more.
    package static let leastMaxTextBytes = 64

    /// The longest text field of a device kept, in UTF-8 bytes: the asset's strings (alias,
    /// model, serial port, area, firmware, creation time), the fault code and every alarm
    /// text. A longer one is cut at the last whole character within the bound and counted in
    /// ``Device/textsTruncated``; a longer device id drops the device instead (a cut id could
    /// merge two devices). Each text becomes a label value of dozens of series, so this bounds
    /// what a renamed UPS can make the exporter hold and serve.
    package let maxTextBytes: Int

    /// - Parameter maxTextBytes: see ``maxTextBytes``; at least ``leastMaxTextBytes``.
    package init(maxTextBytes: Int = DeviceListDecoder.defaultMaxTextBytes) {
        self.maxTextBytes = max(Self.leastMaxTextBytes, maxTextBytes)
    }

    /// Decodes one page of the device list.
    ///
    /// - Parameters:
    ///   - body: the response body.
    ///   - page: the 1-based page number, used in ``DroppedDevice`` reports.
    ///   - keepAtMost: entries decoded at most (usable devices and dropped ones together); the
    ///     entries after them are skipped without being decoded and counted in
    ///     ``DeviceListPage/skipped``.
    /// - Returns: the page; check ``DeviceListPage/isSuccess`` before using its devices.
    /// - Throws: ``ClientError`` of kind `decode` when the body is not a JSON object.
    package func decodeDeviceList(_ body: [UInt8], page: Int = 1, keepAtMost: Int = .max) throws(ClientError) -> DeviceListPage {
        do {
            return try body.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                let result = try decodeEnvelope(&scanner, page: page, keep: keepAtMost)
                try scanner.expectEnd()
                return result
            }
        } catch let error as JSONSyntaxError {
            throw Self.decodeError("device list response", error)
        } catch {
            throw ClientError(.decode, "device list response: \(error)")
        }
    }

    /// Decodes a login reply (also usable for any `{code, message|msg, data}` envelope).
    ///
    /// - Throws: ``ClientError`` of kind `decode` when the body is not a JSON object.
    package func decodeLogin(_ body: [UInt8]) throws(ClientError) -> LoginReply {
        do {
            return try body.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                var reply = LoginReply()
                try scanner.beginObject()
                var first = true
                while let key = try scanner.nextKey(first: &first) {
                    switch try loginKeys.lookup(key, in: scanner) {
                    case .code: reply.code = try scanner.readLooseString()
                    case .msg, .message: reply.message = try scanner.readLooseString() ?? reply.message
                    case .data where try scanner.peekKind() == .object:
                        try scanner.beginObject()
                        var firstData = true
                        while let dataKey = try scanner.nextKey(first: &firstData) {
                            switch try loginKeys.lookup(dataKey, in: scanner) {
                            case .token: reply.token = try scanner.readLooseString().flatMap { $0.isEmpty ? nil : $0 }
                            case .deviceId: reply.deviceId = try scanner.readLooseString()
                            default: try scanner.skipValue()
                            }
                        }
                    default: try scanner.skipValue()
                    }
                }
                try scanner.expectEnd()
                return reply
            }
        } catch let error as JSONSyntaxError {
            throw Self.decodeError("login response", error)
        } catch {
            throw ClientError(.decode, "login response: \(error)")
        }
    }

    private func decodeEnvelope(_ scanner: inout JSONScanner, page: Int, keep: Int) throws -> DeviceListPage {
        var result = DeviceListPage()
        guard try scanner.peekKind() == .object else { throw scanner.error("expected a JSON object") }
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            switch try envelopeKeys.lookup(key, in: scanner) {
            case .total: result.total = try scanner.readLooseInt()
            case .pageSize: result.pageSize = try scanner.readLooseInt()
            case .currentPage: result.currentPage = try scanner.readLooseInt()
            case .code: result.code = try scanner.readLooseString()
            case .msg, .message: result.message = try scanner.readLooseString() ?? result.message
            case .data where try scanner.peekKind() == .array:
                try decodeDevices(&scanner, page: page, keep: keep, into: &result)
            case .data, nil: try scanner.skipValue()
            }
        }
        return result
    }

    private func decodeDevices(_ scanner: inout JSONScanner, page: Int, keep: Int,
                               into result: inout DeviceListPage) throws {
        try scanner.beginArray()
        var first = true
        var index = 0
        while try scanner.nextElement(first: &first) {
            guard result.devices.count + result.dropped.count < keep else {
                try scanner.skipValue()
                result.skipped += 1
                index += 1
                continue
            }
            switch try decodeDevice(&scanner) {
            case .success(let device): result.devices.append(device)
            case .failure(let problem):
                result.dropped.append(DroppedDevice(page: page, index: index, id: problem.id, reason: problem.reason))
            }
            index += 1
        }
        result.entryCount = index
    }

    static func decodeError(_ what: String, _ error: JSONSyntaxError) -> ClientError {
        ClientError(.decode, "\(what) is not valid JSON: \(error.message) at byte \(error.offset)")
    }
}

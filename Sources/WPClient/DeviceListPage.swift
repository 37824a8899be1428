/// One decoded page of `GET /api/v1/deviceData/detail/list`.
///
/// The envelope fields are as sent (`nil` when absent or unparsable); whether `code` means
/// success is for the caller to judge (see ``isSuccess``).
package struct DeviceListPage: Sendable, Equatable {
    /// Devices on the server in total, as reported.
    package var total: Int?
    /// The page size the server actually used (it may cap the requested size).
    package var pageSize: Int?
    package var currentPage: Int?
    /// The envelope code: `"000000"` on success.
    package var code: String?
    /// `msg` or `message`.
    package var message: String?
    /// The usable devices of this page, in order.
    package var devices: [Device]
    /// Device objects that could not be used.
    package var dropped: [DroppedDevice]
    /// How many entries `data` held (usable or not); `0` when `data` was null or absent.
    package var entryCount: Int
    /// Entries after the first `keepAtMost` of
    /// ``DeviceListDecoder/decodeDeviceList(_:page:keepAtMost:)``: skipped, not decoded.
    package var skipped = 0

    package init(total: Int? = nil, pageSize: Int? = nil, currentPage: Int? = nil, code: String? = nil,
                message: String? = nil, devices: [Device] = [], dropped: [DroppedDevice] = [], entryCount: Int = 0) {
        self.total = total
        self.pageSize = pageSize
        self.currentPage = currentPage
        self.code = code
        self.message = message
        self.devices = devices
        self.dropped = dropped
        self.entryCount = entryCount
    }

    /// Whether the envelope code is the success code `000000`.
    package var isSuccess: Bool { code == "000000" }
}

/// The decoded body of `POST /api/v1/auth/login` (or any plain envelope).
package struct LoginReply: Sendable, Equatable {
    package var code: String?
    package var message: String?
    /// `data.token`, when present and non-empty.
    package var token: String?
    /// `data.deviceId`, when present.
    package var deviceId: String?

    package init(code: String? = nil, message: String? = nil, token: String? = nil, deviceId: String? = nil) {
        self.code = code
        self.message = message
        self.token = token
        self.deviceId = deviceId
    }
}

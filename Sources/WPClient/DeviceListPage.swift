/// One decoded page of `GET /api/v1/deviceData/detail/list`.
///
/// The envelope fields are as sent (`nil` when absent or unparsable); whether `code` means
/// success is for the caller to judge (see ``isSuccess``).
public struct DeviceListPage: Sendable, Equatable {
    /// Devices on the server in total, as reported.
    public var total: Int?
    /// The page size the server actually used (it may cap the requested size).
    public var pageSize: Int?
    public var currentPage: Int?
    /// The envelope code: `"000000"` on success.
    public var code: String?
    /// `msg` or `message`.
    public var message: String?
    /// The usable devices of this page, in order.
    public var devices: [Device]
    /// Device objects that could not be used.
    public var dropped: [DroppedDevice]
    /// How many entries `data` held (usable or not); `0` when `data` was null or absent.
    public var entryCount: Int
    /// Entries after the first `keepAtMost` of
    /// ``DeviceListDecoder/decodeDeviceList(_:page:keepAtMost:)``: skipped, not decoded.
    public var skipped = 0

    public init(total: Int? = nil, pageSize: Int? = nil, currentPage: Int? = nil, code: String? = nil,
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
    public var isSuccess: Bool { code == "000000" }
}

/// The decoded body of `POST /api/v1/auth/login` (or any plain envelope).
public struct LoginReply: Sendable, Equatable {
    public var code: String?
    public var message: String?
    /// `data.token`, when present and non-empty.
    public var token: String?
    /// `data.deviceId`, when present.
    public var deviceId: String?

    public init(code: String? = nil, message: String? = nil, token: String? = nil, deviceId: String? = nil) {
        self.code = code
        self.message = message
        self.token = token
        self.deviceId = deviceId
    }
}

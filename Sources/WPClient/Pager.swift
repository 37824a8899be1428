/// Decides which page to read next and collects devices across pages.
///
/// Reads until `total` entries have been listed, trusting the page size the server reports.
/// A server whose `total` is too high stops at the first short or empty page (incomplete); one
/// whose `total` is too low is read on while pages come back full; one that repeats pages
/// stops when a page brings nothing new. Two bounds hold whatever the server says: `maxPages`
/// pages and `maxDevices` devices (the entries past it are skipped undecoded, so a server
/// reporting a huge page size cannot make the client hold more); what they leave out is
/// counted in ``devicesDropped``.
struct Pager {
    let maxPages: Int
    let maxDevices: Int
    private(set) var devices: [Device] = []
    private(set) var dropped: [DroppedDevice] = []
    private(set) var reportedTotal = 0
    private(set) var entriesRead = 0
    private(set) var pagesRead = 0
    private(set) var isComplete = true
    private(set) var incompleteReason = ""
    /// What ended an incomplete read, without the counts (`max_devices`, `max_pages`,
    /// `total`, `repeated`); empty when complete. Logging keys on it.
    private(set) var incompleteKind = ""
    /// Devices left out by a bound: those listed past `maxDevices`, and those the server
    /// reported but no page was read for (its `total` minus the entries listed, when it sent one).
    private(set) var devicesDropped: [DeviceListBound: Int] = [:]
    /// Text fields cut, all kept devices together.
    private(set) var textsTruncated = 0
    private var seen: Set<String> = []
    private var finished = false

    init(maxPages: Int, maxDevices: Int = .max) {
        self.maxPages = max(1, maxPages)
        self.maxDevices = max(1, maxDevices)
    }

    /// The next 1-based page to request, or `nil` when done.
    var nextPage: Int? { finished ? nil : pagesRead + 1 }

    /// Entries the next page may still have decoded (its `keepAtMost`): dropped ones count too,
    /// so a page of millions of invalid entries cannot grow ``dropped`` past the bound either.
    var remainingDevices: Int { max(0, maxDevices - devices.count - dropped.count) }

    mutating func accept(_ page: DeviceListPage, page number: Int) {
        pagesRead = number
        reportedTotal = page.total ?? reportedTotal
        entriesRead += page.entryCount
        var added = 0
        for device in page.devices where seen.insert(device.id).inserted {
            devices.append(device)
            textsTruncated += device.textsTruncated
            added += 1
        }
        dropped.append(contentsOf: page.dropped)

        // Without a `total`, full pages keep being read until a short one (bounded below).
        let total = page.total ?? Int.max
        let serverPageSize = max(page.pageSize ?? page.entryCount, 1)
        let shortPage = page.entryCount < serverPageSize
        let listEnded = page.entryCount == 0 || shortPage || entriesRead >= total
        // Reported but never listed: only known when the server sent a total and more pages were due.
        let unlisted = listEnded ? 0 : page.total.map { max(0, $0 - entriesRead) } ?? 0
        if page.skipped > 0 {
            devicesDropped[.maxDevices, default: 0] += page.skipped + unlisted
            finish(complete: false, DeviceListBound.maxDevices.rawValue,
                   "kept the first \(maxDevices) devices (the device bound); \(page.skipped + unlisted) more listed or reported")
        } else if page.entryCount == 0 || shortPage {
            finish(complete: page.total == nil || entriesRead >= total, "total",
                   "server reported \(total) devices but listed \(entriesRead)")
        } else if entriesRead == total {
            finish(complete: true, "", "")
        } else if added == 0 && page.dropped.isEmpty {
            finish(complete: false, "repeated", "page \(number) repeated earlier devices")
        } else if number >= maxPages {
            if unlisted > 0 { devicesDropped[.maxPages, default: 0] += unlisted }
            finish(complete: false, DeviceListBound.maxPages.rawValue, "stopped at the page bound (\(maxPages) pages)"
                       + (page.total == nil ? "" : "; \(unlisted) reported devices not listed"))
        }
        // Otherwise more pages: entriesRead < total, or total proved too low and pages are full.
    }

    private mutating func finish(complete: Bool, _ kind: String, _ reason: String) {
        finished = true
        isComplete = complete
        incompleteKind = complete ? "" : kind
        incompleteReason = complete ? "" : reason
    }
}

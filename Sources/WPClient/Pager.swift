/// Decides which page to read next and collects devices across pages.
///
/// Reads until `total` entries have been listed, trusting the page size the server reports.
/// A server whose `total` is too high stops at the first short or empty page (incomplete); one
/// whose `total` is too low is read on while pages come back full; one that repeats pages
/// stops when a page brings nothing new; and `maxPages` bounds everything.
struct Pager {
    let maxPages: Int
    private(set) var devices: [Device] = []
    private(set) var dropped: [DroppedDevice] = []
    private(set) var reportedTotal = 0
    private(set) var entriesRead = 0
    private(set) var pagesRead = 0
    private(set) var isComplete = true
    private(set) var incompleteReason = ""
    private var seen: Set<String> = []
    private var finished = false

    init(maxPages: Int) {
        self.maxPages = max(1, maxPages)
    }

    /// The next 1-based page to request, or `nil` when done.
    var nextPage: Int? { finished ? nil : pagesRead + 1 }

    mutating func accept(_ page: DeviceListPage, page number: Int) {
        pagesRead = number
        reportedTotal = page.total ?? reportedTotal
        entriesRead += page.entryCount
        var added = 0
        for device in page.devices where seen.insert(device.id).inserted {
            devices.append(device)
            added += 1
        }
        dropped.append(contentsOf: page.dropped)

        // Without a `total`, full pages keep being read until a short one (bounded below).
        let total = page.total ?? Int.max
        let serverPageSize = max(page.pageSize ?? page.entryCount, 1)
        let shortPage = page.entryCount < serverPageSize
        if page.entryCount == 0 || shortPage {
            finish(complete: page.total == nil || entriesRead >= total,
                   "server reported \(total) devices but listed \(entriesRead)")
        } else if entriesRead == total {
            finish(complete: true, "")
        } else if added == 0 && page.dropped.isEmpty {
            finish(complete: false, "page \(number) repeated earlier devices")
        } else if number >= maxPages {
            finish(complete: false, "stopped at the page bound (\(maxPages) pages)")
        }
        // Otherwise more pages: entriesRead < total, or total proved too low and pages are full.
    }

    private mutating func finish(complete: Bool, _ reason: String) {
        finished = true
        isComplete = complete
        incompleteReason = complete ? "" : reason
    }
}

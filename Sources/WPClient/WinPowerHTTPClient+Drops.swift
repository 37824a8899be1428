import WPLogging

extension WinPowerHTTPClient {
    /// Logs each dropped device once, not at every collection: a warning when it is first
    /// dropped (or dropped for another reason), an info line when a readout no longer drops it.
    /// A device is known by its id, or by its page and position when it has none.
    func reportDrops(_ dropped: [DroppedDevice]) {
        var current: Set<String> = []
        for problem in dropped {
            let key = Self.dropKey(problem)
            guard current.insert(key).inserted, !reportedDrops.contains(key) else { continue }
            logger.warn("device dropped", ["page": .int(problem.page), "index": .int(problem.index),
                                           "device_id": .string(problem.id ?? ""), "reason": .string(problem.reason)])
        }
        let recovered = reportedDrops.subtracting(current).count
        if recovered > 0 {
            logger.info("dropped devices no longer dropped", ["devices": .int(recovered)])
        }
        reportedDrops = current
    }

    /// Logs an incomplete device list when it starts or its cause changes, not at every
    /// collection (the counts are in ``DeviceReadout/devicesDropped``), and once when a list
    /// is complete again.
    func reportIncompleteness(_ pager: Pager) {
        guard pager.incompleteKind != reportedIncompleteness else { return }
        if pager.isComplete {
            logger.info("device list complete again", ["listed": .int(pager.entriesRead), "pages": .int(pager.pagesRead)])
        } else {
            logger.warn("device list incomplete", ["reported_total": .int(pager.reportedTotal),
                                                   "listed": .int(pager.entriesRead), "pages": .int(pager.pagesRead),
                                                   "kept": .int(pager.devices.count),
                                                   "reason": .string(pager.incompleteReason)])
        }
        reportedIncompleteness = pager.incompleteKind
    }

    private static func dropKey(_ problem: DroppedDevice) -> String {
        let place = problem.id.map { "id \($0)" } ?? "page \(problem.page) index \(problem.index)"
        return place + "\u{0}" + problem.reason
    }
}

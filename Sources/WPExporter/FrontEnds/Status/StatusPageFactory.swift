import FoundationEssentials
import WPConfig
import WPEnergy
import WPFrontEnd
import WPHistory
import WPLogging
import WPRuntime
import WPStatusPage

extension FrontEndFactory {
    /// The status pages (`/status`, a page per UPS, their JSON, outage, history and event
    /// downloads) on the exporter's HTTP listener: always on, never made again by a reload (the
    /// memory of each UPS's day, month and outages is theirs). They show the energy costs of the
    /// cost counters the exporter has now (``EnergyCostCounters``), in the tariffs' time zone,
    /// else the system's; `/status/history.*` read `history.db` in the data directory (none:
    /// 404) with the `history.*` settings in effect at each request.
    static var statusPage: FrontEndFactory {
        FrontEndFactory(section: "status") { context throws(FrontEndError) in
            let logger = context.logger
            let systemZone = Exporter<C>.systemTimeZone(logger)
            let frontEnds = context.frontEnds
            let costs: @Sendable () -> StatusCosts = {
                guard let meter = frontEnds().energyCostMeter else {
                    return StatusCosts(timeZone: systemZone)
                }
                return StatusCosts(currency: meter.schedule.currency, since: meter.startedAt,
                                   timeZone: meter.schedule.timeZone, costs: { meter.costs($0) })
            }
            let configurationNow = context.configurationNow
            let history = context.dataDirectory.map { directory in
                StatusHistorySource(reader: HistoryReader(directory: directory), settings: { configurationNow().history })
            }
            return StatusPage(publication: context.publication, costs: costs, batteryHealth: { frontEnds().batteryHealthMeter },
                              wallClock: context.wallClock,
                              sections: context.sections, logger: logger, history: history)
        }
    }
}

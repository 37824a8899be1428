// parameters: logger: WPLogger
import WPExporter
import WPFrontEnd
import WPLogging

fileprivate struct JournalFrontEnd: FrontEnd {
    init(publication: any FleetPublishing<ContinuousClock>, logger: WPLogger) {}
    var name: String { "journal" }
    func run() async {}
}

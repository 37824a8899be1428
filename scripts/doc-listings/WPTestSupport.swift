// parameters: collector: WinPowerCollector<ContinuousClock>, id: String
import Testing
import WPClient
import WPCollector
import WPLogging
import WPServer
import WPSimulator
import WPTestSupport

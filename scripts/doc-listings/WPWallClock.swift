// parameters:
import FoundationEssentials
import WPRuntime
import WPWallClock

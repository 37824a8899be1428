// parameters:
import Testing
import WPTestThreads

// parameters: clock: ContinuousClock, request: WPHTTPRequest
import WPServer
import WPSimulator

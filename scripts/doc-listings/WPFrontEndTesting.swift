// parameters: device: Device
import WPClient
import WPFrontEnd
import WPFrontEndTesting
import WPNUTFrontEnd
import WPRuntime
import WPTestSupport

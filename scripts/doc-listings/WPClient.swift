// parameters: body: [UInt8], url: URL, pw: String, secret: String, logger: WPLogger, configuration: WinPowerHTTPClient.Configuration
import Foundation
import WPClient
import WPHTTPClient
import WPLogging

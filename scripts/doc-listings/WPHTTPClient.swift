// parameters: servers: [String]
import Foundation
import WPHTTPClient

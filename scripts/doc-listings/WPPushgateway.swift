// parameters: registry: MetricRegistry
import Foundation
import WPMetrics
import WPPushgateway

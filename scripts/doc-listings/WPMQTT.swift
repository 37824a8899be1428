// parameters: logger: WPLogger
import WPLogging
import WPMQTT

// parameters: clock: ContinuousClock, store: any EnergyStore, logger: WPLogger, devices: [Device]
import WPEnergy
import WPLogging
import WPStorage

fileprivate struct Device { var id = ""; var watts = 0.0; var connected = true }

// parameters: logger: WPLogger, updatedState: EnergyState, store: FileEnergyStore
import WPLogging
import WPStorage

// parameters: servers: [WinPowerCollector<ContinuousClock>], collector: WinPowerCollector<ContinuousClock>, perScrapeBytes: [UInt8], client: any WinPowerClient, meter: EnergyMeter<ContinuousClock>, logger: WPLogger
// parameters MergedExposition.swift: servers: [WinPowerCollector<ContinuousClock>], processWide: ExpositionChunks?
import Foundation
import WPClient
import WPCollector
import WPEnergy
import WPLogging
import WPWallClock

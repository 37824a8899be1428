// parameters: logger: WPLogger, latestView: SNMPMIBView, datagram: [UInt8], values: UPSMIBValues, clock: ContinuousClock, start: ContinuousClock.Instant, server: DatagramServer<SNMPAgent>, sender: SNMPNotificationSender, agentUptime: @escaping @Sendable () -> UInt32
// parameters SNMPNotificationSender.swift: logger: WPLogger, values: UPSMIBValues, clock: ContinuousClock, start: ContinuousClock.Instant, server: DatagramServer<SNMPAgent>, notifier: inout UPSNotifier, agentUptime: @escaping @Sendable () -> UInt32
import WPLogging
import WPServer
import WPSNMP

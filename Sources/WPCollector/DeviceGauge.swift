import WPClient

/// One per-device gauge family: its name, help, unit and how to read it from a ``Device``.
///
/// A reader returning `nil` omits the series for that device: missing readings are never
/// exported as 0.
struct DeviceGauge: Sendable {
    let name: String
    let help: String
    let unit: String?
    let read: @Sendable (Device) -> Double?
    /// Exported only for devices whose outage ledger saw a self-test (what the series is used
    /// with), so a fleet that never tested pays no series for it.
    let afterSelfTest: Bool

    init(_ name: String, _ help: String, unit: String? = nil, afterSelfTest: Bool = false,
         _ read: @escaping @Sendable (Device) -> Double?) {
        self.name = name
        self.help = help
        self.unit = unit
        self.afterSelfTest = afterSelfTest
        self.read = read
    }

    /// Every instantaneous per-device gauge, withdrawn when the device's reading goes stale.
    static let all: [DeviceGauge] = [
        DeviceGauge("winpower_device_connected", "1 when WinPower talks to the UPS, 0 when it does not.") {
            $0.connected.map { $0 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_load_percent", "Output load as a percentage of the UPS rating.") {
            $0.realtime.loadPercent
        },
        DeviceGauge("winpower_device_load_total_watts", "Total active output power in watts.", unit: "watts") {
            $0.realtime.loadTotalWatt
        },
        DeviceGauge("winpower_device_load_phase1_watts", "Active output power of phase 1 in watts.", unit: "watts") {
            $0.realtime.loadWatt1
        },
        DeviceGauge("winpower_device_load_total_va", "Total apparent output power in volt-amperes.") {
            $0.realtime.loadTotalVa
        },
        DeviceGauge("winpower_device_load_phase1_va", "Apparent output power of phase 1 in volt-amperes.") {
            $0.realtime.loadVa1
        },
        DeviceGauge("winpower_device_input_voltage", "Input voltage of phase 1 in volts.") { $0.realtime.inputVolt1 },
        DeviceGauge("winpower_device_output_voltage", "Output voltage of phase 1 in volts.") { $0.realtime.outputVolt1 },
        DeviceGauge("winpower_device_output_current", "Output current of phase 1 in amperes.") {
            $0.realtime.outputCurrent1
        },
        DeviceGauge("winpower_device_input_frequency", "Input frequency in hertz.") { $0.realtime.inputFreq },
        DeviceGauge("winpower_device_output_frequency", "Output frequency in hertz.") { $0.realtime.outputFreq },
        DeviceGauge("winpower_device_battery_charging", "1 while the battery charges, 0 otherwise.") {
            $0.realtime.isCharging.map { $0 == 1 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_battery_capacity", "Battery charge as a percentage.") { $0.realtime.batCapacity },
        DeviceGauge("winpower_device_battery_remain_seconds", "Estimated battery runtime in seconds.", unit: "seconds") {
            $0.realtime.batRemainTime
        },
        DeviceGauge("winpower_device_battery_voltage_volts", "Battery voltage in volts.", unit: "volts") {
            $0.realtime.batVoltP
        },
        DeviceGauge("winpower_device_ups_temperature", "UPS temperature in degrees Celsius.") {
            $0.realtime.upsTemperature
        },
        DeviceGauge("winpower_device_mode", "Raw operating mode code (0 power on, 1 standby, 2 bypass, 3 line, 4 battery, "
                        + "5 battery test, 6 fault; other codes exported as sent).") {
            $0.realtime.mode.map(Double.init)
        },
        DeviceGauge("winpower_device_status_code", "Raw device status code (1 normal, 2 alarm).") {
            $0.realtime.status.map(Double.init)
        },
        DeviceGauge("winpower_device_battery_status_code", "Raw battery status code (2 normal; others vendor-defined).") {
            $0.realtime.batteryStatus.map(Double.init)
        },
        DeviceGauge("winpower_device_test_status_code", "Raw self-test status code.") {
            $0.realtime.testStatus.map(Double.init)
        },
        DeviceGauge("winpower_device_auto_test_period_seconds",
                    "Interval between automatic battery self-tests the UPS is set to (autoTestPeriod), in seconds; "
                        + "for UPSes seen self-testing.",
                    unit: "seconds", afterSelfTest: true) {
            $0.setting.autoTestPeriod.flatMap { $0 > 0 ? $0 * 86_400 : nil }
        },
        DeviceGauge("winpower_device_on_battery",
                    "1 when the UPS runs on battery because mains failed (mode 4), 0 in another known mode "
                        + "(a battery test included).") {
            $0.isOnBattery.map { $0 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_battery_test_running",
                    "1 during a battery self-test (mode 5: on battery on purpose), 0 in another known mode.") {
            $0.isBatteryTestRunning.map { $0 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_on_bypass",
                    "1 when the load is on bypass (mode 2: mains without the inverter), 0 in another known mode.") {
            $0.isOnBypass.map { $0 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_alarm", "1 when the status is alarm or alarms are active, 0 otherwise.") {
            $0.hasAlarm.map { $0 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_fault",
                    "1 while the UPS reports a fault code or is in fault mode (mode 6), 0 when it reports neither.") {
            $0.hasFault.map { $0 ? 1 : 0 }
        },
        DeviceGauge("winpower_device_active_alarms", "Number of active alarms.") {
            $0.activeAlarms.map { Double($0.count) }
        },
        DeviceGauge("winpower_device_rated_apparent_power_va", "Rated apparent power in volt-amperes.") {
            $0.config.ratingVa
        },
        DeviceGauge("winpower_device_rated_voltage_volts", "Rated voltage in volts.", unit: "volts") {
            $0.config.ratingVolt
        },
        DeviceGauge("winpower_device_rated_frequency_hertz", "Rated frequency in hertz.", unit: "hertz") {
            $0.config.ratingFreq
        },
        DeviceGauge("winpower_device_rated_battery_voltage_volts", "Rated battery voltage in volts.", unit: "volts") {
            $0.config.ratingBatVolt
        },
    ]
}

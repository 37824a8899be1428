/// Each `realtime` member the simulated WinPower sends and the gauge the exporter exports it
/// as, for tests that compare `/metrics` with the simulator device by device.
package enum RealtimeMetricTable {
    package static let entries: [(field: String, metric: String)] = [
        ("inputVolt1", "winpower_device_input_voltage"), ("outputVolt1", "winpower_device_output_voltage"),
        ("outputCurrent1", "winpower_device_output_current"), ("inputFreq", "winpower_device_input_frequency"),
        ("outputFreq", "winpower_device_output_frequency"), ("loadPercent", "winpower_device_load_percent"),
        ("loadTotalWatt", "winpower_device_load_total_watts"), ("loadWatt1", "winpower_device_load_phase1_watts"),
        ("loadTotalVa", "winpower_device_load_total_va"), ("loadVa1", "winpower_device_load_phase1_va"),
        ("batCapacity", "winpower_device_battery_capacity"), ("batRemainTime", "winpower_device_battery_remain_seconds"),
        ("batVoltP", "winpower_device_battery_voltage_volts"), ("upsTemperature", "winpower_device_ups_temperature"),
        ("isCharging", "winpower_device_battery_charging"), ("mode", "winpower_device_mode"),
        ("status", "winpower_device_status_code"), ("batteryStatus", "winpower_device_battery_status_code"),
        ("testStatus", "winpower_device_test_status_code"),
    ]
}

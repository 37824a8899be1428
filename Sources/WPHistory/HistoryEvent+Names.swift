extension HistoryEvent.Kind {
    /// What the kind is called in English (`on battery`): the words the status pages and the
    /// notifications use.
    package var english: String {
        switch self {
        case .onBattery: "on battery"
        case .mainsBack: "mains back"
        case .lowBattery: "low battery"
        case .lowBatteryCleared: "battery no longer low"
        case .bypass: "on bypass"
        case .bypassEnded: "bypass ended"
        case .fault: "fault"
        case .faultCleared: "fault cleared"
        case .alarmRaised: "alarm raised"
        case .alarmCleared: "alarm cleared"
        case .selfTestStarted: "self-test started"
        case .selfTestFinished: "self-test finished"
        case .selfTestOverdue: "self-test overdue"
        case .selfTestOverdueCleared: "self-test no longer overdue"
        case .batteryHealthLow: "battery health low"
        case .batteryHealthRecovered: "battery health no longer low"
        case .disconnected: "disconnected"
        case .reconnected: "reconnected"
        case .stale: "reading stale"
        case .fresh: "reading fresh again"
        case .serverUnreachable: "server unreachable"
        case .loginRefused: "login refused"
        case .serverBack: "server back"
        case .exporterStarted: "exporter started"
        case .exporterStopped: "exporter stopped"
        case .reloaded: "configuration reloaded"
        case .configurationRefused: "configuration refused"
        }
    }

    /// What the kind is called in Chinese (`转电池供电`).
    package var chinese: String {
        switch self {
        case .onBattery: "转电池供电"
        case .mainsBack: "市电恢复"
        case .lowBattery: "电池电量低"
        case .lowBatteryCleared: "电池电量低解除"
        case .bypass: "转旁路"
        case .bypassEnded: "旁路结束"
        case .fault: "故障"
        case .faultCleared: "故障解除"
        case .alarmRaised: "告警产生"
        case .alarmCleared: "告警解除"
        case .selfTestStarted: "自检开始"
        case .selfTestFinished: "自检结束"
        case .selfTestOverdue: "自检逾期"
        case .selfTestOverdueCleared: "自检逾期解除"
        case .batteryHealthLow: "电池健康度低"
        case .batteryHealthRecovered: "电池健康度低解除"
        case .disconnected: "断开连接"
        case .reconnected: "重新连接"
        case .stale: "读数过期"
        case .fresh: "读数恢复"
        case .serverUnreachable: "服务器不可达"
        case .loginRefused: "登录被拒绝"
        case .serverBack: "服务器恢复"
        case .exporterStarted: "导出器启动"
        case .exporterStopped: "导出器停止"
        case .reloaded: "配置已重新加载"
        case .configurationRefused: "配置被拒绝"
        }
    }
}

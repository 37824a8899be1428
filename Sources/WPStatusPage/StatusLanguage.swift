import WPText
import WPClient
import WPEnergy
import WPLogging
import WPHistory
import WPRuntime

/// The languages of the status pages: English and Chinese, chosen by `?lang=` (the switch on
/// the page) or else `Accept-Language`; the Chinese words are those of docs/zh-CN.
package enum StatusLanguage: String, Sendable, CaseIterable {
    case en
    case zh

    /// `?lang=` when it names a language, else the `Accept-Language` range of highest quality
    /// that names one (`zh`, `zh-CN`, `zh-Hans`… are Chinese; `en-*` English), else English.
    /// Anything malformed is ignored, never refused.
    package static func negotiate(query: String?, acceptLanguage: String?) -> StatusLanguage {
        if let query, let language = StatusLanguage(tag: query) { return language }
        guard let header = acceptLanguage else { return .en }
        var best: (language: StatusLanguage, quality: Double)?
        // A header is short; past 64 ranges the rest is not read.
        for range in header.split(separator: ",", maxSplits: 64).prefix(64) {
            let parts = range.split(separator: ";")
            guard let tag = parts.first?.trimmingSpacesAndTabs(),
                  let language = StatusLanguage(tag: tag) else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpacesAndTabs()
                if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)), value.isFinite { quality = min(max(value, 0), 1) }
            }
            if quality > 0, quality > (best?.quality ?? 0) { best = (language, quality) }
        }
        return best?.language ?? .en
    }

    /// The language of a tag (`zh-CN` → `.zh`), `nil` for another.
    init?(tag: String) {
        let primary = tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
        switch primary {
        case "en": self = .en
        case "zh": self = .zh
        default: return nil
        }
    }

    /// The HTML `lang` attribute.
    package var htmlTag: String { self == .en ? "en" : "zh-CN" }

    package var text: StatusText { self == .en ? .english : .chinese }
}

/// Every word the status pages show, per language.
package struct StatusText: Sendable {
    var title: String
    var upsTitle: String
    var servers: String
    var server: String
    var ups: String
    var state: String
    var model: String
    var load: String
    var loadPercent: String
    var battery: String
    var runtime: String
    var inputVoltage: String
    var outputVoltage: String
    var energyToday: String
    var energyMonth: String
    var energy: String
    var cost: String
    var lastOutage: String
    var healthy: String
    var unhealthy: String
    var devices: String
    var lastSuccess: String
    var lastError: String
    var updated: String
    var never: String
    var inProgress: String
    var needsAttention: String
    var allNormal: String
    var charts: String
    var outages: String
    var outageStart: String
    var outageEnd: String
    var duration: String
    var lowestBattery: String
    var energyOnBattery: String
    var noOutages: String
    var unknownEnd: String
    var download: String
    var history: String
    var events: String
    var readings: String
    var back: String
    var energySince: String
    var noUPS: String
    var notFound: String
    var states: [UPSState: String]
    var ranges: [String: String]
    var rangeLabel: String
    var chartsTitle: String
    var timesIn: String
    var legend: String
    var runtimeMinutes: String
    var frequency: String
    var temperature: String
    var eventsTitle: String
    var last24h: String
    var loadShort: String
    var inOut: String
    var site: String
    var sites: String
    var noSite: String
    var onBatteryNow: String
    var attentionHeader: String
    var upsCount: String
    var latestEvents: String
    var allEvents: String
    var eventTime: String
    var eventKind: String
    var eventCode: String
    var eventDetail: String
    var noEvents: String
    var allKinds: String
    var kindGroups: [String: String]
    var kinds: [HistoryEvent.Kind: String]
    var attention: String
    var currently: String
    var alarm: String
    var selfTestRunning: String
    var testStatus: String
    var batteryInstalled: String
    var batteryReplaceBy: String
    var batteryDue: @Sendable (String) -> String
    var batteryOverdue: @Sendable (String) -> String
    var batteryAge: @Sendable (Double) -> String
    var reasons: [UPSState: String]
    var historyProblem: String
    var fromMemory: String
    var eventsShown: String
    /// The battery health and self-test words.
    var health = BatteryHealthText.english

    static let english = StatusText(
        title: "UPS status", upsTitle: "UPS", servers: "WinPower servers", server: "Server", ups: "UPS", state: "State", model: "Model",
        load: "Load (W)", loadPercent: "Load (%)", battery: "Battery (%)", runtime: "Runtime", inputVoltage: "Input (V)",
        outputVoltage: "Output (V)", energyToday: "Today (kWh)", energyMonth: "This month (kWh)", energy: "Energy (kWh)", cost: "Cost", lastOutage: "Last outage",
        healthy: "healthy", unhealthy: "unhealthy", devices: "UPSs", lastSuccess: "last success", lastError: "last error",
        updated: "Updated", never: "never", inProgress: "in progress", needsAttention: "need attention",
        allNormal: "All UPSs on mains.", charts: "Last 24 hours", outages: "Outages", outageStart: "Start",
        outageEnd: "End", duration: "Duration", lowestBattery: "Lowest battery (%)", energyOnBattery: "Energy on battery (Wh)",
        noOutages: "No outage seen.", unknownEnd: "unknown", download: "Download", history: "History", events: "events", readings: "Readings as /metrics has them",
        back: "All UPSs", energySince: "Costs counted since", noUPS: "No UPS read yet.", notFound: "No such UPS.",
        states: [.battery: "on battery", .fault: "fault", .disconnected: "disconnected", .stale: "stale", .bypass: "bypass",
                 .test: "battery test", .alarm: "alarm", .mains: "on mains", .unknown: "unknown"],
        ranges: ["24h": "24 h", "7d": "7 days", "30d": "30 days", "1y": "1 year"], rangeLabel: "Range",
        chartsTitle: "Charts", timesIn: "Times in", legend: "Line: average of each slot; band: its least to greatest; "
            + "shaded: on battery; ticks: events (hover for what).",
        runtimeMinutes: "Runtime (min)", frequency: "Input (Hz)", temperature: "Temperature (°C)",
        eventsTitle: "Events", last24h: "24 h", loadShort: "Load", inOut: "In / out (V)", site: "Site", sites: "Sites",
        noSite: "other", onBatteryNow: "On battery", attentionHeader: "Need attention", upsCount: "UPSs", latestEvents: "Latest events", allEvents: "All events",
        eventTime: "Time", eventKind: "Event", eventCode: "Code", eventDetail: "Detail", noEvents: "No event in this range.",
        allKinds: "All",
        kindGroups: ["power": "Power", "alarms": "Alarms and faults", "tests": "Self-tests", "connection": "Connection",
                     "exporter": "Exporter"],
        kinds: Dictionary(uniqueKeysWithValues: HistoryEvent.Kind.allCases.map { ($0, $0.english) }),
        attention: "Why it needs attention", currently: "What it is doing", alarm: "Alarm", selfTestRunning: "A battery self-test is running",
        testStatus: "WinPower testStatus",
        batteryInstalled: "Battery installed", batteryReplaceBy: "Replace battery by",
        batteryDue: { "The battery is due for replacement by " + $0 }, batteryOverdue: { "The battery is past its replacement day, " + $0 },
        batteryAge: { String(fixed: $0, fractionDigits: 1) + " years" },
        reasons: [.battery: "Mains failed: the battery carries the load", .fault: "WinPower reports a fault",
                  .disconnected: "WinPower has lost contact with this UPS",
                  .stale: "No fresh reading: the last one is older than the staleness window",
                  .bypass: "On bypass: mains without the inverter's protection"],
        historyProblem: "The history database did not answer", fromMemory: "Last 24 hours, from memory (history is off)",
        eventsShown: "the most recent shown")

    static let chinese = StatusText(
        title: "UPS 状态", upsTitle: "UPS", servers: "WinPower 服务器", server: "服务器", ups: "UPS", state: "状态", model: "型号",
        load: "负载 (W)", loadPercent: "负载 (%)", battery: "电池电量 (%)", runtime: "续航", inputVoltage: "输入电压 (V)",
        outputVoltage: "输出电压 (V)", energyToday: "今日电能 (kWh)", energyMonth: "本月电能 (kWh)", energy: "电能 (kWh)", cost: "电费", lastOutage: "上次停电",
        healthy: "正常", unhealthy: "异常", devices: "台 UPS", lastSuccess: "上次成功", lastError: "上次错误",
        updated: "更新于", never: "从未", inProgress: "进行中", needsAttention: "需要处理",
        allNormal: "所有 UPS 均由市电供电。", charts: "最近 24 小时", outages: "停电记录", outageStart: "开始",
        outageEnd: "结束", duration: "时长", lowestBattery: "最低电池电量 (%)", energyOnBattery: "电池供电电能 (Wh)",
        noOutages: "未见停电。", unknownEnd: "未知", download: "下载", history: "历史数据", events: "事件", readings: "/metrics 中的读数",
        back: "全部 UPS", energySince: "电费计数起始于", noUPS: "尚未读到 UPS。", notFound: "没有这台 UPS。",
        states: [.battery: "电池供电", .fault: "故障", .disconnected: "断开连接", .stale: "过期", .bypass: "旁路",
                 .test: "电池自检", .alarm: "告警", .mains: "市电供电", .unknown: "未知"],
        ranges: ["24h": "24 小时", "7d": "7 天", "30d": "30 天", "1y": "1 年"], rangeLabel: "时间范围",
        chartsTitle: "趋势图", timesIn: "时间为", legend: "线：每个时段的平均值；色带：时段内的最小值到最大值；"
            + "阴影：电池供电；竖线：事件（悬停查看）。",
        runtimeMinutes: "续航 (分钟)", frequency: "输入频率 (Hz)", temperature: "温度 (°C)",
        eventsTitle: "事件", last24h: "24 小时", loadShort: "负载", inOut: "输入 / 输出 (V)", site: "站点", sites: "站点",
        noSite: "其他", onBatteryNow: "电池供电", attentionHeader: "需要处理", upsCount: "UPS 数量", latestEvents: "最新事件", allEvents: "全部事件",
        eventTime: "时间", eventKind: "事件", eventCode: "代码", eventDetail: "详情", noEvents: "此时间范围内没有事件。",
        allKinds: "全部",
        kindGroups: ["power": "供电", "alarms": "告警与故障", "tests": "自检", "connection": "连接", "exporter": "导出器"],
        kinds: Dictionary(uniqueKeysWithValues: HistoryEvent.Kind.allCases.map { ($0, $0.chinese) }),
        attention: "需要处理的原因", currently: "当前状况", alarm: "告警", selfTestRunning: "电池自检进行中",
        testStatus: "WinPower testStatus",
        batteryInstalled: "电池安装日期", batteryReplaceBy: "电池更换期限",
        batteryDue: { "电池应在 " + $0 + " 前更换" }, batteryOverdue: { "电池已超过更换日期（" + $0 + "）" },
        batteryAge: { "已使用 " + String(fixed: $0, fractionDigits: 1) + " 年" },
        reasons: [.battery: "市电中断：由电池带载", .fault: "WinPower 报告故障",
                  .disconnected: "WinPower 与这台 UPS 失去联系",
                  .stale: "没有新读数：最后一次读数早于过期窗口",
                  .bypass: "旁路运行：市电未经逆变器保护"],
        historyProblem: "历史数据库没有应答", fromMemory: "最近 24 小时，来自内存（历史数据库未启用）",
        eventsShown: "仅显示最近的", health: .chinese)
}

/// The words of the UPS page's battery health and self-test parts (docs/battery.md).
struct BatteryHealthText: Sendable {
    var health: String
    var percent: @Sendable (_ percent: String, _ measurements: Int) -> String
    var notEnough: @Sendable (_ measurements: Int, _ needed: Int) -> String
    var low: @Sendable (_ percent: String, _ threshold: String) -> String
    var lastSelfTest: String
    var noSelfTestSince: @Sendable (String) -> String
    var overdue: @Sendable (String) -> String
    var measurements: String
    var about: String
    var end: String
    var kind: String
    var kinds: [BatteryDischarge.Kind: String]
    var chargeUsed: String
    var meanLoad: String
    var perTenPercent: String
    var predictedPerTenPercent: String
    var ratio: String
    var notes: [BatteryHealthVerdict.Note: String]
    /// A self-test's result, by WinPower's `testStatus` code as read (docs/battery.md).
    var results: [SelfTestResult: String]

    static let english = BatteryHealthText(
        health: "Battery health",
        percent: { "\($0) of its first measurement (\($1) measurements)" },
        notEnough: { "not enough data (\($0) of \($1) measurements)" },
        low: { "Battery health \($0): below \($1) of its first measurement" },
        lastSelfTest: "Last self-test", noSelfTestSince: { "none seen since " + $0 },
        overdue: { "No battery self-test since " + $0 },
        measurements: "Battery measurements",
        about: "Each outage or self-test long enough to tell: the runtime the battery gave per 10 % of charge at its load, "
            + "and its energy per percent of charge, corrected for load, against the first measurement's.",
        end: "End", kind: "Kind", kinds: [.outage: "outage", .selfTest: "self-test"], chargeUsed: "Charge used (%)",
        meanLoad: "Mean load (W)", perTenPercent: "Runtime per 10 %", predictedPerTenPercent: "WinPower predicted",
        ratio: "Health",
        notes: [.reference: "first measurement", .tooShort: "too short", .tooLittleCharge: "too little charge used",
                .noPower: "no power reported", .beforeInstallation: "before the battery's installation",
                .otherLoad: "load too far from the first's", .otherTemperature: "temperature too far from the first's"],
        results: [.passed: "passed", .warning: "passed with a warning", .error: "failed", .aborted: "aborted",
                  .inProgress: "in progress", .noneInitiated: "none initiated"])

    static let chinese = BatteryHealthText(
        health: "电池健康度",
        percent: { "为首次测量的 \($0)（共 \($1) 次测量）" },
        notEnough: { "数据不足（\($0) / \($1) 次测量）" },
        low: { "电池健康度 \($0)：低于首次测量的 \($1)" },
        lastSelfTest: "最近一次自检", noSelfTestSince: { "自 " + $0 + " 以来未见自检" },
        overdue: { "自 " + $0 + " 以来没有电池自检" },
        measurements: "电池测量",
        about: "每次足够长的停电或自检：电池在当时负载下每 10 % 电量提供的续航，以及经负载修正的每 1 % 电量的能量，与首次测量相比。",
        end: "结束", kind: "类型", kinds: [.outage: "停电", .selfTest: "自检"], chargeUsed: "消耗电量 (%)",
        meanLoad: "平均负载 (W)", perTenPercent: "每 10 % 续航", predictedPerTenPercent: "WinPower 预测",
        ratio: "健康度",
        notes: [.reference: "首次测量", .tooShort: "时间太短", .tooLittleCharge: "消耗电量太少",
                .noPower: "未报告功率", .beforeInstallation: "早于电池安装日期",
                .otherLoad: "负载与首次相差太大", .otherTemperature: "温度与首次相差太大"],
        results: [.passed: "通过", .warning: "通过但有警告", .error: "未通过", .aborted: "已中止",
                  .inProgress: "进行中", .noneInitiated: "未启动"])
}

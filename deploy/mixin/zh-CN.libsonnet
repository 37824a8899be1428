// Chinese (zh-CN) texts of the monitoring mixin: each alert's summary and description, and the
// dashboard's titles, descriptions and labels, keyed by the English text they replace.
// Expressions, alert names, labels, metric names and units stay as they are.
// scripts/check-mixin.sh fails when an alert or a dashboard text has no entry here.
{
  alerts: {
    WinPowerExporterDown: {
      summary: 'wpexporter {{ $labels.instance }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 已停止响应',
      description: 'Prometheus 已超过 1 分钟无法抓取 {{ $labels.instance }} 上的 wpexporter，该 WinPower 服务器下的 UPS 均处于无人监控状态。',
    },
    WinPowerExporterAbsent: {
      summary: '没有任何 wpexporter 抓取目标',
      description: 'Prometheus 的 wpexporter 任务下没有目标，请检查抓取配置或服务发现。',
    },
    WinPowerUnreachable: {
      summary: '{{ $labels.instance }} 后面的 WinPower 服务器{{ with $labels.server }} {{ . }}{{ end }}无法访问',
      description: '{{ $labels.instance }} 上的 wpexporter 已超过 2 分钟连不上 WinPower 服务器{{ with $labels.server }} {{ . }}{{ end }}。设备读数已撤下，累计电能计数器保留。',
    },
    WinPowerAuthFailing: {
      summary: 'wpexporter {{ $labels.instance }} 无法登录 WinPower{{ with $labels.server }} 服务器 {{ . }}{{ end }}',
      description: 'WinPower 认证失败已超过 2 分钟。请检查{{ with $labels.server }} servers 中 {{ . }} 一项的用户名和密码（文件）{{ else }} winpower.username 和密码（文件）{{ end }}。',
    },
    WinPowerCollectionsSkipped: {
      summary: 'wpexporter {{ $labels.instance }}{{ with $labels.server }}对服务器 {{ . }} {{ end }}跳过了采集',
      description: '过去 10 分钟内有 {{ $value | printf "%.0f" }} 次采集因上一次尚未完成而被跳过：WinPower 的响应慢于 scheduler.collection_interval。',
    },
    WinPowerCollectionSlow: {
      summary: '{{ $labels.instance }} 上{{ with $labels.server }}对服务器 {{ . }} {{ end }}的 WinPower 采集变慢',
      description: '过去 10 分钟内，90% 的采集耗时达 {{ $value | printf "%.1f" }} 秒，已接近 5 秒的采集间隔。',
    },
    WinPowerCollectionStale: {
      summary: 'wpexporter {{ $labels.instance }} 已 {{ $value | humanizeDuration }} 没有{{ with $labels.server }}从服务器 {{ . }} {{ end }}采集',
      description: '{{ $labels.instance }} 最近一次采集尝试结束于 {{ $value | humanizeDuration }} 之前，调度器可能卡住了。',
    },
    WinPowerEnergyPersistFailing: {
      summary: 'wpexporter {{ $labels.instance }} 无法保存累计电能',
      description: '15 分钟内保存电能状态失败 {{ $value | printf "%.0f" }} 次。累计值暂存在内存中，重启即丢失；请检查 storage.data_dir（空间、权限）。',
    },
    UPSOnBattery: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 正在使用电池供电',
      description: '{{ $labels.instance }} 上的 UPS {{ $labels.device_name }}（{{ $labels.device_id }}）已由电池供电超过 30 秒：市电已中断。',
    },
    UPSBatteryCapacityLow: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 电池电量仅剩 {{ $value | printf "%.0f" }}%',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的电池电量为 {{ $value | printf "%.0f" }}%，低于 30%。',
    },
    UPSRuntimeLow: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 电池续航仅剩 {{ $value | humanizeDuration }}',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的剩余电池续航为 {{ $value | humanizeDuration }}，低于 10 分钟。请关闭受保护的设备或恢复供电。',
    },
    UPSFault: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 报告故障',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）报告故障已超过 1 分钟，故障码见 winpower_device_fault_info。',
    },
    UPSFaultMode: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 处于故障模式',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）处于故障模式（WinPower mode 6）已超过 1 分钟，负载可能失去保护甚至断电。请检查 UPS 和 winpower_device_fault_info。',
    },
    UPSOnBypass: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 处于旁路',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）经旁路（WinPower mode 2）为负载供电已超过 2 分钟：市电不经逆变器直接供给负载，此时一旦停电负载就会断电。请检查是否过载或逆变器故障。',
    },
    UPSAlarm: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 有未解除的告警',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的告警已持续超过 2 分钟，详见 winpower_device_active_alarms 和 WinPower 控制台。',
    },
    UPSDisconnected: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 与 WinPower 断开连接',
      description: 'WinPower 与 UPS {{ $labels.device_name }}（{{ $labels.device_id }}）失去通信已超过 2 分钟，读数暂不可用。',
    },
    UPSLoadHigh: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 负载达 {{ $value | printf "%.0f" }}%',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的负载已连续 5 分钟高于 80%（{{ $value | printf "%.0f" }}%）。电池续航会很短，过载还会使 UPS 转入旁路。',
    },
    UPSTemperatureHigh: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 温度 {{ $value | printf "%.1f" }}°C',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的内部温度已连续 5 分钟高于 40°C（{{ $value | printf "%.1f" }}°C）。高温会缩短电池寿命。',
    },
    UPSInputVoltageOutOfRange: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 输入电压超出范围',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的输入电压偏离额定电压超过 10% 已持续 2 分钟（偏差 {{ $value | printf "%.1f" }} V）。',
    },
    UPSInputFrequencyOutOfRange: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 输入频率超出范围',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的输入频率偏离额定频率超过 1 Hz 已持续 2 分钟（偏差 {{ $value | printf "%.2f" }} Hz）。',
    },
    UPSEnergyCounterStalled: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 的电能计数器不再增长',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）上报的负载为正，但 winpower_device_energy_joules_total 已 15 分钟没有增长。请检查 winpower_device_energy_gaps_total 和导出器日志。',
    },
    UPSFrequentOutages: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 频繁停电',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）过去 24 小时内约 {{ $value | printf "%.0f" }} 次转入电池供电。请检查市电供应，每次切换都会损耗电池。',
    },
    UPSLongOutage: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 已由电池供电超过 15 分钟',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）已由电池供电 {{ $value | humanizeDuration }}。请在电池耗尽前安排关机。',
    },
    UPSBatteryTestOverdue: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 错过了电池自检',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）最近一次电池自检开始于 {{ $value | humanizeDuration }} 之前，已超过其自动自检周期加 2 天。请检查 UPS 的自检计划。',
    },
    UPSBatteryReplacementDue: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 的电池需要更换',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的电池将在 {{ $value | humanizeDuration }} 后达到配置的使用寿命（为负值表示已超过）。请在停电暴露电池老化之前更换，并设置新的安装日期。',
    },
    UPSBatteryHealthLow: {
      summary: 'UPS {{ $labels.device_name }}{{ with $labels.server }}（服务器 {{ . }}）{{ end }} 的电池正在衰退',
      description: 'UPS {{ $labels.device_name }}（{{ $labels.device_id }}）的电池最近一次测量在相同负载下每 1 % 电量提供的续航只有首次测量的 {{ $value | humanizePercentage }}。请做一次深度电池测试确认，并安排更换。',
    },
  },

  dashboard: {
    title: 'WinPower UPS（中文）',
    uid: 'wpexporter-ups-zh-cn',
    file: 'wpexporter.zh-CN.json',
    // Texts of `title`, `description`, `label`, `legendFormat` and value-mapping `text` fields.
    strings: {
      Exporter: '导出器',
      Server: 'WinPower 服务器',
      UPS: 'UPS',
      'Data source': '数据源',
      'WinPower servers of a multi-server exporter (its servers section). A single-server exporter\'s series have no server label: All (.*) matches them.':
        '多服务器导出器（配置了 servers）中的 WinPower 服务器。单服务器导出器的序列没有 server 标签，选择 All (.*) 即可匹配。',
      'Fleet overview': '总览',
      Devices: '设备',
      'UPS devices listed by WinPower.': 'WinPower 列出的 UPS 台数。',
      'On battery': '电池供电',
      'UPS running on battery because mains failed (mode 4); a battery self-test is counted apart.':
        '因市电中断而由电池供电的 UPS（mode 4）；电池自检单独统计。',
      'Battery test': '电池自检',
      'UPS in a battery self-test (mode 5): on battery on purpose, not an outage.':
        '正在电池自检的 UPS（mode 5）：主动切到电池，不算停电。',
      'On bypass': '旁路',
      'UPS feeding its load on bypass (mode 2): mains without the inverter, unprotected.':
        '经旁路为负载供电的 UPS（mode 2）：市电不经逆变器直供，负载不受保护。',
      Alarms: '告警',
      'UPS with an active alarm.': '有未解除告警的 UPS。',
      Faults: '故障',
      'UPS reporting a fault code. Includes fault mode (mode 6).': '报告故障码的 UPS，含故障模式（mode 6）。',
      Disconnected: '断开连接',
      'UPS WinPower has lost contact with.': 'WinPower 已失去通信的 UPS。',
      'Total power': '总功率',
      'Active power drawn through all UPS now.': '当前经全部 UPS 输出的有功功率。',
      'Every UPS with model, firmware, power, battery capacity and whether it is on battery.':
        '每台 UPS 的型号、固件、功率、电池电量，以及是否由电池供电。',
      Servers: 'WinPower 服务器',
      'Server status': '服务器状态',
      'One line per WinPower server (per exporter without a servers section): reachable, logged in, collecting, devices, age of the last collection and time left on the token.':
        '每台 WinPower 服务器一行（未配置 servers 时每个导出器一行）：能否访问、是否已登录、是否在采集、设备数、距最近一次采集的时间和 token 剩余时间。',
      'Collecting per server': '各服务器采集状态',
      'winpower_exporter_up per server: 1 while the last successful collection is within the staleness window.':
        '每台服务器的 winpower_exporter_up：最近一次成功采集在过期窗口内时为 1。',
      down: '停止',
      up: '正常',
      'Power and energy': '功率与电能',
      'Active power': '有功功率',
      'winpower_device_load_total_watts per UPS.': '每台 UPS 的 winpower_device_load_total_watts。',
      Load: '负载率',
      'Load in percent of the UPS rating; the UPSLoadHigh alert fires above 80%.': '负载占 UPS 额定容量的百分比；高于 80% 时 UPSLoadHigh 告警触发。',
      'Energy per hour': '每小时电能',
      'kWh per hour from the joules counter: increase(winpower_device_energy_joules_total[1h]) / 3.6e6.':
        '由焦耳计数器算出的每小时 kWh：increase(winpower_device_energy_joules_total[1h]) / 3.6e6。',
      'Energy per day': '每日电能',
      'kWh per day: increase(winpower_device_energy_joules_total[1d]) / 3.6e6. Choose a range of several days.':
        '每日 kWh：increase(winpower_device_energy_joules_total[1d]) / 3.6e6。请选择数天的时间范围。',
      'Energy in the selected range': '所选时间范围内的电能',
      'kWh drawn through each UPS over the dashboard\'s time range.': '面板时间范围内经每台 UPS 输出的 kWh。',
      'Cumulative energy': '累计电能',
      'Lifetime total in kWh (survives exporter restarts; imported from the previous exporter\'s files on first start).':
        '以 kWh 计的累计总量（导出器重启后保留；首次启动时从 Go 版导出器的文件导入）。',
      Battery: '电池',
      'Battery capacity': '电池电量',
      'Runtime remaining': '剩余续航',
      'Battery voltage': '电池电压',
      Electrical: '电气参数',
      Voltages: '电压',
      '{{device_name}} input': '{{device_name}} 输入',
      '{{device_name}} output': '{{device_name}} 输出',
      Frequencies: '频率',
      'Output current': '输出电流',
      'UPS temperature': 'UPS 温度',
      'Apparent power': '视在功率',
      'Status history': '状态历史',
      mains: '市电',
      battery: '电池',
      'Connected to WinPower': '与 WinPower 的连接',
      disconnected: '断开',
      connected: '已连接',
      Alarm: '告警',
      ok: '正常',
      alarm: '告警',
      Fault: '故障',
      fault: '故障',
      'Raw status codes': '原始状态码',
      'The raw WinPower codes, omitted while unknown.': 'WinPower 的原始代码，未知时省略。',
      '{{device_name}} mode': '{{device_name}} 工作模式',
      '{{device_name}} status': '{{device_name}} 状态',
      '{{device_name}} battery status': '{{device_name}} 电池状态',
      'Operating mode': '工作模式',
      'WinPower operating mode per UPS (winpower_device_mode; unknown codes show as their number).':
        '每台 UPS 的 WinPower 工作模式（winpower_device_mode；未知代码显示为数字）。',
      'power on': '开机',
      standby: '待机',
      bypass: '旁路',
      line: '市电',
      'battery test': '电池自检',
      'Exporter health': '导出器健康状况',
      'Scrape up / WinPower connection / auth': '抓取 / WinPower 连接 / 认证',
      '{{instance}} up': '{{instance}} 抓取正常',
      '{{instance}} {{server}} WinPower reachable': '{{instance}} {{server}} WinPower 可访问',
      '{{instance}} {{server}} authenticated': '{{instance}} {{server}} 已认证',
      'Collection duration': '采集耗时',
      'Errors and skipped collections': '错误与跳过的采集',
      'Per 5 minutes.': '每 5 分钟。',
      '{{instance}} {{server}} skipped': '{{instance}} {{server}} 跳过',
      '{{instance}} {{server}} state save failures': '{{instance}} {{server}} 状态保存失败',
      '{{instance}} {{server}} energy gaps': '{{instance}} {{server}} 电能间隔',
      'Time since last collection': '距最近一次采集',
      'Token expiry': 'Token 剩余时间',
      'Exporter memory and CPU': '导出器内存与 CPU',
      '{{instance}} CPU (cores)': '{{instance}} CPU（核）',
      Outages: '停电',
      'Outages per day': '每日停电次数',
      'Transfers to battery (mode 4) in each day, from winpower_device_battery_transfers_total: outages shorter than a scrape included, kept across exporter restarts. Self-tests are not counted.':
        '每天转入电池供电（mode 4）的次数，来自 winpower_device_battery_transfers_total：短于一次抓取间隔的停电也计入，导出器重启后保留。不含电池自检。',
      'Time on battery': '电池供电时长',
      'Seconds on battery per hour (winpower_device_on_battery_seconds_total): 3600 means the whole hour on battery.':
        '每小时由电池供电的秒数（winpower_device_on_battery_seconds_total）：3600 表示整小时都在用电池。',
      'Energy delivered on battery': '电池供电期间的输出电能',
      'Energy the battery delivered per hour while mains was out (winpower_device_battery_discharge_joules_total), in watt-hours.':
        '市电中断期间电池每小时输出的电能（winpower_device_battery_discharge_joules_total），单位瓦时。',
      'Outage durations': '停电时长分布',
      'Outages finished in the selected range by duration bucket (winpower_device_outage_duration_seconds, persisted: histogram_quantile works over months). Outages whose end the exporter did not observe are not in it.':
        '所选时间范围内结束的停电按时长分桶（winpower_device_outage_duration_seconds，已持久化：histogram_quantile 可跨数月计算）。导出器未观察到结束的停电不计入。',
      'Last outage': '最近一次停电',
      'Per UPS: when the last outage began and ended, how long it lasted and the battery runtime WinPower reported at its last on-battery reading (how close it came). An end the exporter did not observe is empty.':
        '每台 UPS 最近一次停电的开始和结束时间、持续时长，以及停电期间最后一次读数时 WinPower 报告的剩余续航（离耗尽还有多远）。导出器未观察到的结束时间留空。',
      start: '开始',
      end: '结束',
      duration: '时长',
      'runtime left': '剩余续航',
      // Table columns (renameByName).
      'Power (W)': '功率 (W)',
      'Battery (%)': '电量 (%)',
      Name: '名称',
      Type: '类型',
      Up: '抓取',
      Reachable: '可访问',
      'Logged in': '已登录',
      'Last collection (s ago)': '距最近采集 (秒)',
      'Token left': 'Token 剩余',
    },
    // Texts kept as they are: labels, metric names and figures only.
    unchanged: [
      'All', 'ID', '{{device_name}}', '{{server}} {{instance}}', '{{instance}} {{server}}',
      '{{instance}} {{server}} p50', '{{instance}} {{server}} p90', '{{instance}} {{server}} API {{endpoint}} p90',
      '{{instance}} {{server}} {{error_type}}', '{{instance}} RSS', '{{device_name}} ({{device_id}})', '≤ {{le}} s',
    ],
  },
}

/// Checks of the `servers` entries: names, their own values, what they inherit from
/// `winpower`, and the `energy_from` rule.
extension LoadState {
    mutating func validateServers() {
        guard !serverDrafts.isEmpty else { return }
        var names: [String: ServerDraft] = [:]
        for draft in serverDrafts where !draft.isMalformed {
            guard let (name, source) = draft.name else {
                problem(draft.path("name"), draft.source, "is required; every entry of servers needs a unique name")
                continue
            }
            if let reason = ServerDraft.nameProblem(name) {
                problem(draft.path("name"), source, "\(name.debugDescription) \(reason)")
            } else if let first = names[name] {
                problem(draft.path("name"), source,
                        "\(name.debugDescription) is already the name of \(first.path) (\(first.name?.source.location ?? "")); names must be unique")
            } else {
                names[name] = draft
            }
        }
        for index in serverDrafts.indices where !serverDrafts[index].isMalformed {
            var draft = serverDrafts[index]
            resolve(&draft)
            serverDrafts[index] = draft
            validateOwnValues(serverDrafts[index])
            validateResolved(serverDrafts[index])
            validateDeviceLabels(serverDrafts[index])
        }
        validateEnergyFrom(names: Set(names.keys))
    }

    /// Fills `resolved`: the entry's own values, then `winpower`'s for the keys it leaves out.
    /// `password` and `password_file` go together: an entry setting either inherits neither.
    private mutating func resolve(_ draft: inout ServerDraft) {
        let passwordKeys = ["winpower.password", "winpower.password_file"]
        let ownPassword = passwordKeys.contains { draft.isOwn($0) }
        for key in ConfigKey.all where key.section == "winpower" {
            if let own = draft.own[key.name] {
                draft.resolved[key.name] = own
            } else if !(ownPassword && passwordKeys.contains(key.name)), let inherited = settings[key.name] {
                draft.resolved[key.name] = inherited
            }
        }
        guard inputs.purpose == .server, let file = draft.own["winpower.password_file"],
              case .string(let path) = file.value, draft.own["winpower.password"] == nil else { return }
        switch readPassword(path) {
        case .success(let password): draft.resolved["winpower.password"] = password
        case .failure(let reason): problem(draft.path("password_file"), file.source, reason.reason)
        }
    }

    /// The checks `winpower` gets, applied to the values the entry sets itself (inherited
    /// values were checked, and reported, as `winpower.*`).
    private mutating func validateOwnValues(_ draft: ServerDraft) {
        for (name, setting) in draft.own.sorted(by: { $0.key < $1.key }) {
            let shown = draft.path(String(name.dropFirst("winpower.".count)))
            switch setting.value {
            case .duration(let value):
                if let reason = Self.durationProblem(name, value) { problem(shown, setting.source, reason) }
            case .string(let text) where name == "winpower.base_url":
                if let reason = Self.urlProblem(text) {
                    problem(shown, setting.source, "\"\(URLRedaction.redact(text))\" \(reason)")
                }
            case .string(let text) where name == "winpower.password":
                if let reason = Self.passwordProblem(text) { problem(shown, setting.source, reason) }
            case .string(let text) where name == "winpower.user_agent":
                if let reason = Self.userAgentProblem(text) { problem(shown, setting.source, "\(text.debugDescription) \(reason)") }
            case .string(let text) where name == "winpower.area_id":
                if let reason = Self.areaIdProblem(text) { problem(shown, setting.source, "\(text.debugDescription) \(reason)") }
            case .string(let path) where name == "winpower.ca_file":
                if case .failure(let error) = inputs.files.read(path) {
                    problem(shown, setting.source, "\"\(path)\" " + Self.describe(error))
                }
            default: break
            }
        }
        if let password = draft.own["winpower.password"], let file = draft.own["winpower.password_file"] {
            problem(draft.path("password"), password.source,
                    "cannot be combined with \(draft.path("password_file")) (\(file.source)); set only one")
        }
        if let interval = draft.collectionInterval, case .duration(let value) = interval.value {
            if let reason = Self.durationProblem("scheduler.collection_interval", value) {
                problem(draft.path("collection_interval"), interval.source, reason)
            } else if let (gap, gapSource) = duration("energy.max_gap"),
                      let reason = Self.maxGapProblem(gap: gap, interval: value, intervalName: draft.path("collection_interval")) {
                problem("energy.max_gap", gapSource, reason)
            }
        }
    }

    /// Checks across keys that may mix own and inherited values, and the required keys.
    private mutating func validateResolved(_ draft: ServerDraft) {
        if draft.isOwn("winpower.api_timeout") || draft.isOwn("winpower.timeout"),
           case .duration(let api)? = draft.value("winpower.api_timeout"),
           case .duration(let total)? = draft.value("winpower.timeout"),
           Self.durationProblem("winpower.timeout", total) == nil,
           let reason = Self.apiTimeoutProblem(api: api, total: total, totalName: draft.path("timeout")),
           let source = draft.own["winpower.api_timeout"]?.source ?? draft.own["winpower.timeout"]?.source {
            problem(draft.path("api_timeout"), source, reason)
        }
        guard inputs.purpose == .server else { return }
        for key in ["base_url", "username", "password"] {
            if key == "password", draft.isOwn("winpower.password_file") { continue }
            guard case .string(let value)? = draft.value("winpower." + key), !value.isEmpty else {
                let also = key == "password" ? " (or password_file)" : ""
                problem(draft.path(key), draft.source,
                        "is required\(also); set it in the entry or, for every entry, as winpower.\(key)")
                continue
            }
        }
    }

    /// `energy_from`: a valid name, unique across entries, and not another entry's own name.
    private mutating func validateEnergyFrom(names: Set<String>) {
        var claimed: [String: ServerDraft] = [:]
        for draft in serverDrafts {
            guard let (from, source) = draft.energyFrom else { continue }
            let shown = draft.path("energy_from")
            if let reason = ServerDraft.nameProblem(from) {
                problem(shown, source, "\(from.debugDescription) \(reason)")
            } else if let first = claimed[from] {
                problem(shown, source, "\(from.debugDescription) is already continued by \(first.path) "
                        + "(\(first.energyFrom?.source.location ?? "")); each stored total goes to one entry")
            } else if from != draft.name?.text, names.contains(from) {
                problem(shown, source, "\(from.debugDescription) is the name of another entry, whose totals are its own; "
                        + "energy_from names a server that no longer exists under that name")
            } else {
                claimed[from] = draft
            }
        }
    }

    /// A device's static label may not repeat one of the entry's own: a series cannot carry a
    /// label twice.
    private mutating func validateDeviceLabels(_ draft: ServerDraft) {
        guard let devices = draft.devices ?? winPowerDevices else { return }
        let entryLabels = Dictionary(draft.labels.map { ($0.label.name, $0.source) }, uniquingKeysWith: { first, _ in first })
        for label in devices.labels {
            guard let entrySource = entryLabels[label.name] else { continue }
            problem(label.shown, label.source,
                    "\(label.name.debugDescription) is also a label of \(draft.path) (\(draft.path("labels." + label.name)), "
                    + "\(entrySource.location)); a series cannot carry a label twice")
        }
    }

    /// The validated entries, in file order.
    func serverEntries() -> [ServerEntry] {
        serverDrafts.map { draft in
            var collectionInterval: Duration?
            if case .duration(let value)? = draft.collectionInterval?.value { collectionInterval = value }
            var winPower = winPower { draft.value($0) }
            winPower.devices = (draft.devices ?? winPowerDevices)?.selection ?? DeviceSelection()
            return ServerEntry(name: draft.name?.text ?? "", winPower: winPower,
                               labels: draft.labels.map(\.label), collectionInterval: collectionInterval,
                               energyFrom: draft.energyFrom?.text)
        }
    }
}

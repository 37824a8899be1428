// wpbench — release-mode benchmarks for wpexporter. See docs/performance.md.
//
//   swift run -c release wpbench            # every scenario
//   swift run -c release wpbench NAME...    # scenarios whose name starts with NAME
//   swift run -c release wpbench --list
//   wpbench --child NAME ARGS...            # helper processes for tests

import Foundation

let scenarios: [Scenario] = MetricsBench.scenarios + ServerBench.scenarios + ClientBench.scenarios + ServersBench.scenarios
    + EnergyBench.scenarios + CollectorBench.scenarios + LoggingBench.scenarios + HTTPClientBench.scenarios
    + HTTPClientHungBench.scenarios
    + RuntimeBench.scenarios + SNMPBench.scenarios

let arguments = Array(CommandLine.arguments.dropFirst())
// `wpbench --child NAME ARGS...` runs a helper process used by tests (e.g. the storage crash
// test kills one with SIGKILL); see ChildProcesses.swift.
if arguments.first == "--child" {
    exit(await ChildProcesses.run(Array(arguments.dropFirst())))
}
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: wpbench [--list] [SCENARIO-PREFIX...]")
    exit(0)
}
if arguments.contains("--list") {
    for scenario in scenarios { print("\(scenario.name)\t\(scenario.summary)") }
    exit(0)
}
let selected = arguments.isEmpty ? scenarios : scenarios.filter { s in arguments.contains { s.name.hasPrefix($0) } }
if selected.isEmpty {
    FileHandle.standardError.write(Data("wpbench: no scenario matches \(arguments.joined(separator: " ")); try --list\n".utf8))
    exit(64)
}
for scenario in selected {
    print("== \(scenario.name): \(scenario.summary)")
    do {
        try await scenario.run()
    } catch {
        print("   failed: \(error)")
        exit(1)
    }
}

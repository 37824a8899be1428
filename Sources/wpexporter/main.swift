// wpexporter: the only place that reads process state (arguments, environment, files,
// standard streams, signals). Everything else is in CommandLineTool and RuntimeCommands and is
// tested without a process.
import Foundation
import WPConfig

let output = TerminalOutput(standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
                            standardError: { FileHandle.standardError.write(Data($0.utf8)) })
let controls = ProcessControls(waitForStop: { onRepeat in
    let watcher = SignalWatcher()
    watcher.onRepeat { _ in onRepeat() }
    await watcher.first()
}, exit: { status in exit(status) })
let commands = RuntimeCommands(output: output, controls: controls)
let tool = CommandLineTool(environment: ProcessInfo.processInfo.environment, files: .system,
                           output: output, hooks: commands.hooks)
exit(await tool.run(Array(CommandLine.arguments.dropFirst())))

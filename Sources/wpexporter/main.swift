// wpexporter: the only place that reads process state (arguments, environment, files,
// standard streams, signals). Everything else is in CommandLineTool and RuntimeCommands and is
// tested without a process.
import Foundation
import WPConfig

let output = TerminalOutput(standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
                            standardError: { FileHandle.standardError.write(Data($0.utf8)) })
let controls = ProcessControls(watchStopSignals: {
    let watcher = SignalWatcher()
    return { onRepeat in
        // The handler holds the watcher on purpose: its signal sources must outlive this call
        // so that a second signal during the graceful shutdown still reaches `onRepeat`.
        watcher.onRepeat { _ in withExtendedLifetime(watcher) { onRepeat() } }
        await watcher.first()
    }
}, exit: { status in exit(status) })
MemoryTrim.limitArenas()
let commands = RuntimeCommands(output: output, controls: controls)
let tool = CommandLineTool(environment: ProcessInfo.processInfo.environment, files: .system,
                           output: output, hooks: commands.hooks)
exit(await tool.run(Array(CommandLine.arguments.dropFirst())))

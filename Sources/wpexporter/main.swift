// wpexporter: the only place that reads process state (arguments, environment, files,
// standard streams). Everything else is in CommandLineTool and is tested without a process.
import Foundation
import WPConfig

let notWired: @Sendable (String) -> RuntimeFailure = { command in
    RuntimeFailure(message: "wpexporter \(command): not available in this build yet (the runtime is not wired in)")
}
let hooks = RunHooks(server: { _ in throw notWired("server") },
                     demo: { _ in throw notWired("demo") },
                     simulate: { _ in throw notWired("simulate") })
let output = TerminalOutput(standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
                            standardError: { FileHandle.standardError.write(Data($0.utf8)) })
let tool = CommandLineTool(environment: ProcessInfo.processInfo.environment, files: .system,
                           output: output, hooks: hooks)
exit(await tool.run(Array(CommandLine.arguments.dropFirst())))

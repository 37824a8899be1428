// wpexporter: the only place that reads process state (arguments, environment, files,
// standard streams, signals). Everything else is in CommandLineTool and RuntimeCommands and is
// tested without a process.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPConfig
import WPExporter
import WPLogging

// Standard output and error are written from threads of their own (WPLogging's StreamWriter,
// shared with the log sinks on the same descriptors, so their order is kept): a terminal
// paused with Ctrl-S or a log reader that stopped never blocks a task. Every exit waits a
// little for what is queued.
let standardOutput = StreamWriter.shared(fileDescriptor: STDOUT_FILENO, name: "stdout")
let standardError = StreamWriter.shared(fileDescriptor: STDERR_FILENO, name: "stderr")
/// Exits with `status` once the queued output is written, waiting at most `timeout` for a
/// reader that is not reading.
func exitFlushingOutput(_ status: Int32, timeout: Duration) -> Never {
    StreamWriter.flushShared(timeout: timeout)
    exit(status)
}
let output = TerminalOutput(standardOutput: { standardOutput.write(Array($0.utf8)) },
                            standardError: { standardError.write(Array($0.utf8)) },
                            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
/// One watcher for the whole process, made by the first command that waits for signals: a
/// command that starts the exporter twice (the demo after a port fallback) must not release
/// the first watcher, whose signal sources hold the signals' disposition.
let sharedWatcher = Mutex<SignalWatcher?>(nil)
/// Kept for the life of the process once `server` starts watching SIGHUP.
let sharedHangupWatcher = Mutex<HangupWatcher?>(nil)
let controls = ProcessControls(watchStopSignals: {
    let watcher = sharedWatcher.withLock { shared in
        if let shared { return shared }
        let made = SignalWatcher()
        shared = made
        return made
    }
    return { onRepeat in
        watcher.onRepeat { _ in onRepeat() }
        await watcher.first()
    }
}, exit: { status in exitFlushingOutput(status, timeout: .milliseconds(500)) }, watchReloadSignals: {
    let watcher = HangupWatcher()
    sharedHangupWatcher.withLock { $0 = watcher }
    return watcher.requests
})
MemoryTrim.configure()
let commands = RuntimeCommands(output: output, controls: controls)
let tool = CommandLineTool(environment: ProcessInfo.processInfo.environment, files: .system,
                           output: output, hooks: commands.hooks)
exitFlushingOutput(await tool.run(Array(CommandLine.arguments.dropFirst())), timeout: .seconds(1))

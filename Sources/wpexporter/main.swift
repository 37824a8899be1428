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

/// Writes all of `text` to `fd`, retrying on `EINTR` and partial writes; a closed or full
/// stream loses the text (there is nowhere left to report that).
@Sendable func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

let output = TerminalOutput(standardOutput: { writeAll(STDOUT_FILENO, $0) },
                            standardError: { writeAll(STDERR_FILENO, $0) },
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
}, exit: { status in exit(status) }, watchReloadSignals: {
    let watcher = HangupWatcher()
    sharedHangupWatcher.withLock { $0 = watcher }
    return watcher.requests
})
MemoryTrim.configure()
let commands = RuntimeCommands(output: output, controls: controls)
let tool = CommandLineTool(environment: ProcessInfo.processInfo.environment, files: .system,
                           output: output, hooks: commands.hooks)
exit(await tool.run(Array(CommandLine.arguments.dropFirst())))

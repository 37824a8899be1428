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
import WPProcess

// Standard output and error are written from threads of their own (WPProcess'
// StandardStreams): a terminal paused with Ctrl-S or a log reader that stopped never blocks a
// task. Every exit waits a little for what is queued, never longer.
let output = TerminalOutput(standardOutput: { StandardStreams.writeOutput($0) },
                            standardError: { StandardStreams.writeError($0) },
                            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
/// One termination watcher for the whole process, made by the first command that waits for
/// signals: a command that starts the exporter twice (the demo after a port fallback) must not
/// give the signals back between the two.
let sharedTermination = Mutex<GracefulTermination?>(nil)
/// Kept for the life of the process once `server` starts watching SIGHUP.
let sharedHangups = Mutex<SignalRequests?>(nil)
/// Kept for the life of the process once `simulate` starts watching SIGUSR1 and SIGUSR2.
let sharedSimulatorSignals = Mutex<SignalSubscription?>(nil)
let controls = ProcessControls(watchStopSignals: {
    let termination = sharedTermination.withLock { shared in
        if let shared { return shared }
        let made = GracefulTermination()
        shared = made
        return made
    }
    return { onRepeat in
        termination.onRepeat { _ in onRepeat() }
        await termination.first()
    }
}, exit: { status in StandardStreams.exit(status, flushingWithin: .milliseconds(500)) }, watchReloadSignals: {
    let hangups = SignalRequests([SIGHUP])
    sharedHangups.withLock { $0 = hangups }
    return hangups.requests
}, watchSimulatorSignals: {
    let (switches, continuation) = AsyncStream.makeStream(of: Bool.self)
    let subscription = SignalSubscription([SIGUSR1, SIGUSR2]) { continuation.yield($0 == SIGUSR1) }
    sharedSimulatorSignals.withLock { $0 = subscription }
    return switches
})
MemoryTrim.configure()
let commands = RuntimeCommands(output: output, controls: controls)
let tool = CommandLineTool(environment: ProcessInfo.processInfo.environment, files: .system,
                           output: output, hooks: commands.hooks)
StandardStreams.exit(await tool.run(Array(CommandLine.arguments.dropFirst())), flushingWithin: .seconds(1))

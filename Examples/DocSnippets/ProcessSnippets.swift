// The examples of the GracefulTermination, SignalRequests and StandardStreams doc comments
// and of docs/scheduler.md ("Process policy").
import WPProcess

final class SnippetStateStore: Sendable {
    func persist(timeout: Duration) {}
}

func terminateGracefully(store: SnippetStateStore) async {
    let termination = GracefulTermination()
    termination.onRepeat { _ in
        store.persist(timeout: .milliseconds(500))
        StandardStreams.exit(1, flushingWithin: .milliseconds(500))
    }
    await termination.first()      // then stop gracefully
}

func reloadOnHangup(reload: @Sendable () async -> Void) async {
    let hangups = SignalRequests()
    for await _ in hangups.requests { await reload() }
}

func writeAndExit() -> Never {
    StandardStreams.writeOutput("ready\n")
    StandardStreams.exit(0, flushingWithin: .seconds(1))
}

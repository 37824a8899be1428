#!/usr/bin/env python3
"""The DocC catalogs of the library products (Sources/MODULE/MODULE.docc), from one source of
truth: each catalog's landing article is written here (what the module is for, its guides and
its essential symbols), and its guides are the library guides under docs/, copied in with their
links to other pages of docs/ turned into plain text naming the page (DocC resolves no links to
files outside the catalog).

    scripts/sync-docc.py           # writes the catalogs
    scripts/sync-docc.py --check   # fails, naming the file, when a catalog is not what docs/ makes (CI: gate)

Edit docs/*.md (or the landing texts below), never a catalog's copy.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# module → (summary, overview, [(article name, docs page)], [essential symbols])
CATALOGS = {
    "WPMetrics": ("A Prometheus client library: metrics, labelled vectors, a registry, the text and OpenMetrics formats.",
                  "Counters, gauges, histograms and summaries, each alone or as a vector by labels, registered in a `MetricRegistry` and rendered in the Prometheus text format 0.0.4 or OpenMetrics 1.0. No dependency beyond the toolchain.",
                  [("MetricsLibrary", "metrics-library.md"), ("Embedding", "embedding.md")],
                  ["MetricRegistry", "WPCounter", "WPGauge", "WPHistogram", "Summary", "Collector", "ExpositionFormat"]),
    "WPPushgateway": ("Pushes a WPMetrics registry to a Prometheus Pushgateway, with retries.",
                      "For batch jobs that end before Prometheus scrapes them: `PushgatewayClient` sends a registry's families (replace or add), retrying with backoff, and deletes its group when asked.",
                      [], ["PushgatewayClient", "PushError"]),
    "WPServer": ("An HTTP/1.1 server on POSIX sockets: a router, limits, gzip, TLS and basic authentication.",
                 "One epoll loop serves every connection; handlers run on Swift's pool. `WPHTTPServer` listens, `WPRouter` routes, `WPTLSConfiguration` and `BasicAuthHandler` secure it; `LineServer` and `DatagramServer` bring the same hardening to line and datagram protocols. Its companion module WPServerMetrics counts and times requests in a WPMetrics registry. Linux only.",
                 [("HTTPServer", "http-server.md")],
                 ["WPHTTPServer", "WPRouter", "WPHTTPRequest", "WPHTTPResponse", "HTTPHandler", "ServerError"]),
    "WPServerMetrics": ("WPServer's requests counted and timed in a WPMetrics registry, and the `/metrics` handler.",
                        "A module of the WPServer product: `MetricsHandler` serves a registry with the format negotiated, `RequestMetrics` observes every request.",
                        [], ["MetricsHandler", "RequestMetrics"]),
    "WPLogging": ("Structured logging: levels, fields, JSON and console encoders, sinks with rotation, redaction.",
                  "A `WPLogger` writes `LogRecord`s through a `LogSink` (the standard streams, a rotating file, several at once); a `Redactor` masks secrets before anything is encoded. It imports no Foundation.",
                  [("Logging", "logging.md")], ["WPLogger", "LogLevel", "LogSink", "Redactor", "StreamSink", "RotatingFileSink"]),
    "WPConfig": ("The exporter's configuration: built in code or loaded from YAML, the environment and flags, validated with precise messages.",
                 "`ExporterConfiguration` holds every key of the configuration file; `ConfigurationLoader` reads a file, the environment and flags with their precedence; `problems()` checks a configuration built in code against the file's rules, each problem naming its key.",
                 [], ["ExporterConfiguration", "ConfigurationLoader", "ConfigurationError", "ServerEntry", "Secret"]),
    "WPScheduler": ("Fixed-rate work: ticks that never overlap, skipped ticks counted, cancellation.",
                    "`TickScheduler` runs a job every interval on a clock you choose; a run that overruns makes the next ticks skip, never pile up.",
                    [("Scheduler", "scheduler.md")], ["TickScheduler", "Tick"]),
    "WPProcess": ("Process policy: termination signals, reload requests, the standard streams at exit.",
                  "`runUntilTerminated` and `GracefulTermination` stop a service on SIGTERM or SIGINT; `SignalRequests` turns SIGHUP into reload requests; `StandardStreams` flushes the standard streams within a bound at exit.",
                  [("Process", "process.md")], ["TerminationSignals", "GracefulTermination", "SignalRequests", "StandardStreams"]),
    "WPRuntime": ("The runtime every product shares: named threads, the condition lock, deadlines, a manual clock.",
                  "One of each primitive: `NamedThread` starts a thread, `WPConditionLock` waits with a `Deadline`, `WorkerQueue` runs blocking jobs on bounded threads, and `ManualClock` is a clock a test moves.",
                  [], ["NamedThread", "WPConditionLock", "Deadline", "WorkerQueue", "ManualClock"]),
    "WPWallClock": ("The time of day the libraries read: the system's, fixed, or following a test's manual clock.",
                    "`WallClock` is one value passed down from the exporter's options to every part that reads the time of day (the client's token expiry, the store's file names, the journals and pages); a test fixes it or makes it follow a `ManualClock`.",
                    [], ["WallClock"]),
    "WPClient": ("The WinPower G2 client: login, token lifetime, every page of the device list, tolerant decoding.",
                 "`WinPowerHTTPClient` logs in, keeps its token fresh, reads every page of the device list and decodes it tolerantly into `Device` values; `ClientError` says what went wrong, never with a secret.",
                 [("WinPowerG2Client", "winpower-client.md")], ["WinPowerClient", "WinPowerHTTPClient", "Device", "DeviceReadout", "ClientError"]),
    "WPStorage": ("Durable energy state: a crash-safe file store, its lock, the import of the Go exporter's files.",
                  "`EnergyStore` is the contract; `FileEnergyStore` writes one state file atomically (temporary file, fsync, rename, directory fsync), keeps the previous generation and recovers from damage; `InMemoryEnergyStore` keeps nothing across processes.",
                  [("Storage", "storage.md")], ["EnergyStore", "FileEnergyStore", "InMemoryEnergyStore", "EnergyState", "StorageError"]),
    "WPEnergy": ("Power → energy: trapezoidal integration per device, gaps never bridged, the outage ledger.",
                 "`EnergyMeter` integrates every device's active power into energy with an `EnergyIntegrator` each and saves the totals through an `EnergyStore`; `OutageLedger` records when devices ran on battery.",
                 [], ["EnergyMeter", "EnergyIntegrator", "EnergySample", "EnergyConfiguration", "OutageLedger"]),
    "WPCollector": ("One collection: WinPower client → energy → a metrics snapshot rendered once.",
                    "`WinPowerCollector` reads every device through a `WinPowerClient`, integrates energy with an `EnergyMeter`, and renders a `MetricsSnapshot` that every scrape serves until the next collection.",
                    [], ["WinPowerCollector", "CollectorConfiguration", "MetricsSnapshot", "DeviceFilter"]),
    "WPFrontEnd": ("The front-end seam: what the fleet publishes after each collection, and how a front end is made, run and replaced.",
                   "A front end (the NUT server, the SNMP agent, the push loop, or a service's own) is a `FrontEnd` made by a `FrontEndFactory` from a `FrontEndContext`, and reads the `FleetState` each collection publishes through a `FleetPublishing`. An embedder adds one with `Exporter.Options.frontEnds`.",
                   [("AddingAFrontEnd", "front-ends.md")],
                   ["FrontEnd", "FrontEndFactory", "FrontEndContext", "FleetState", "FleetPublishing", "FrontEndError"]),
    "WPExporter": ("The whole WinPower exporter as a library: one or many servers, energy, reloads, the HTTP endpoints, NUT and SNMP.",
                   "`Exporter` is what the `wpexporter` binary runs: built from an `ExporterConfiguration`, it serves its endpoints on its own listener (`run`) or inside your service (`router`, `register(in:)`).",
                   [("EmbeddingTheExporter", "embedding-exporter.md")], ["Exporter", "ExporterError", "WebSecurity"]),
    "WPExporterTesting": ("Tests of a service that embeds the exporter: a simulated WinPower in process, a manual clock, energy in memory.",
                          "`ExporterTestHarness` runs an `Exporter` against WPSimulator's simulated WinPower on a manual clock; `LoopbackClient` asks a service listening on this host. The simulator is the product's companion module, WPSimulator.",
                          [], ["ExporterTestHarness", "LoopbackClient", "LoopbackResponse"]),
    "WPSimulator": ("A faithful fake WinPower G2 server with fault injection, for tests and demos.",
                    "A module of the WPExporterTesting product. `WinPowerSimulator` answers the WinPower G2 API in process; `SimulatorServer` serves it on a socket; faults switch at run time.",
                    [("Simulator", "simulator.md")], ["WinPowerSimulator", "SimulatorServer", "SimulatorFleet"]),
}

LINK = re.compile(r"\[([^\]]+)\]\((?!https?:)([^)#]*\.md|\.\./[^)]*|[^)]*/)(#[^)]*)?\)")


def guide(page: str) -> str:
    """A docs/ page as a catalog article: links to other files become their text and the page."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    def plain(match: re.Match) -> str:
        label, target = match.group(1), match.group(2)
        name = target if "/" in target else f"docs/{target}"
        return label if label.strip("`") in (target, name) else f"{label} ({name.lstrip('./')})"
    title, _, body = LINK.sub(plain, text).partition("\n")
    return f"{title}\n\n<!-- Generated by scripts/sync-docc.py from docs/{page}: edit that page, not this copy. -->\n{body}"


def landing(module: str) -> str:
    summary, overview, guides, symbols = CATALOGS[module]
    lines = [f"# ``{module}``", "", summary, "", "## Overview", "", overview, "",
             "<!-- Generated by scripts/sync-docc.py: edit it there. -->", "", "## Topics", ""]
    if guides:
        lines += ["### Guides", ""] + [f"- <doc:{name}>" for name, _ in guides] + [""]
    lines += ["### Essentials", ""] + [f"- ``{symbol}``" for symbol in symbols] + [""]
    return "\n".join(lines)


def expected() -> dict[Path, str]:
    files = {}
    for module, (_, _, guides, _) in CATALOGS.items():
        catalog = ROOT / "Sources" / module / f"{module}.docc"
        files[catalog / f"{module}.md"] = landing(module)
        for name, page in guides:
            files[catalog / f"{name}.md"] = guide(page)
    return files


def main() -> int:
    check = sys.argv[1:] == ["--check"]
    files = expected()
    stale = []
    for path, text in files.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if check:
            stale.append(path.relative_to(ROOT))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    # Files in a catalog that nothing generates (a guide removed from the list).
    for catalog in sorted((ROOT / "Sources").glob("*/*.docc")):
        for path in sorted(catalog.glob("*.md")):
            if path not in files:
                if check:
                    stale.append(path.relative_to(ROOT))
                else:
                    path.unlink()
    if stale:
        for path in stale:
            print(f"sync-docc: {path} is not what docs/ and scripts/sync-docc.py make: run scripts/sync-docc.py", file=sys.stderr)
        return 1
    print(f"sync-docc: {'ok' if check else 'written'} ({len(CATALOGS)} catalogs, {len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

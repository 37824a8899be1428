#!/usr/bin/env bash
# WPMetrics' registry path against swift-prometheus 2.4.1 (Benchmarks/RegistryVersusSwiftPrometheus):
# builds the benchmark package in release mode and runs it. Arguments go to the benchmark
# (--runs N, --only PREFIX, --help). Figures and how to read them: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
package=Benchmarks/RegistryVersusSwiftPrometheus
swift build -c release --package-path "$package"
"$package/.build/release/RegistryVersusSwiftPrometheus" "$@"

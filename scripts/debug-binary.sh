#!/usr/bin/env bash
# Builds the wpexporter debug binary (incrementally) and prints its path; for the check scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product wpexporter >/dev/null
echo "$(swift build --show-bin-path)/wpexporter"

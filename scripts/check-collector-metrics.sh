#!/usr/bin/env bash
# Runs `promtool check metrics` on the collector's golden exposition (a snapshot rendered from
# a fixed readout; the WPCollector tests keep it equal to real output). The only finding
# allowed is the seed name docs/metrics.md lists.
set -euo pipefail
cd "$(dirname "$0")/.."

golden=Tests/WPCollectorTests/Golden/collector.txt
expected='winpower_exporter_device_count non-histogram and non-summary metrics should not have "_count" suffix'
actual="$(promtool check metrics < "$golden" 2>&1 || true)"
if [ "$actual" != "$expected" ]; then
    echo "promtool check metrics on $golden:" >&2
    echo "$actual" >&2
    echo "expected only: $expected" >&2
    exit 1
fi
echo "promtool: only the documented seed name is flagged"

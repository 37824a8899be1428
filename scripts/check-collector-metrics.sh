#!/usr/bin/env bash
# Runs `promtool check metrics` on the collector's golden expositions (snapshots rendered from
# fixed readouts; the WPCollector tests keep them equal to real output): collector.txt, a
# single-phase fleet, and collector-readings.txt, with every family that appears only when
# needed (three-phase UPSs, passed-through readings, dropped readings, refused battery readings). The only finding
# allowed is the seed name docs/metrics.md lists.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ci/tools.sh static   # promtool

expected='winpower_exporter_device_count non-histogram and non-summary metrics should not have "_count" suffix'
for golden in Tests/WPCollectorTests/Golden/collector.txt Tests/WPCollectorTests/Golden/collector-readings.txt; do
    actual="$(promtool check metrics < "$golden" 2>&1 || true)"
    if [ "$actual" != "$expected" ]; then
        echo "promtool check metrics on $golden:" >&2
        echo "$actual" >&2
        echo "expected only: $expected" >&2
        exit 1
    fi
done
echo "promtool: only the documented seed name is flagged (both goldens)"

# The strict parsers of Python's prometheus-client (installed by
# IntegrationTests/tests_01_exposition/test_03_reference_tools.sh, which CI runs first) must
# accept both goldens.
if python3 -c 'import prometheus_client' >/dev/null 2>&1; then
    python3 - <<'PYTHON'
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
from prometheus_client.parser import text_string_to_metric_families as text
for name in ("collector", "collector-readings"):
    with open(f"Tests/WPCollectorTests/Golden/{name}.openmetrics.txt", encoding="utf-8") as body:
        families = list(openmetrics(body.read()))
    with open(f"Tests/WPCollectorTests/Golden/{name}.txt", encoding="utf-8") as body:
        assert len(list(text(body.read()))) == len(families)
    print(f"prometheus-client: both formats of {name} parse ({len(families)} families)")
PYTHON
else
    echo "note: python3 prometheus-client missing; parser check skipped"
fi

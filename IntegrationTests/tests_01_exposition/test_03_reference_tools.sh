#!/usr/bin/env bash
# Checks WPMetrics' exposition against the reference tools:
#   - promtool check metrics (Debian's prometheus package) must report zero problems,
#   - the strict text and OpenMetrics parsers of Python's prometheus-client must accept it,
#   - a push round trip through a real prometheus-pushgateway on a free loopback port.
# The sample covers every metric type, escaping case and special value; it is rendered by
# `wpbench --child exposition-sample` and the InstrumentedService example, both built here with
# `swift build` (a no-op after CI's debug build; minutes from a clean checkout), not
# WPEXPORTER_BIN. Installs missing tools quietly (apt-get, pip). A few seconds once built.
#
#   IntegrationTests/tests_01_exposition/test_03_reference_tools.sh
set -euo pipefail
binary_needed=no
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
say() { printf '%s\n' "$name: $*"; }

scripts/ci/tools.sh tests prometheus   # promtool, prometheus-pushgateway, curl, python3, prometheus-client

swift build --product wpbench >/dev/null
swift build --product InstrumentedService >/dev/null
bench="$(swift build --show-bin-path)/wpbench"
example="$(swift build --show-bin-path)/InstrumentedService"

"$bench" --child exposition-sample text >"$work/sample.txt"
"$bench" --child exposition-sample openmetrics >"$work/sample.om.txt"
# The example service adds the process collector's live /proc values.
"$example" 2>/dev/null >"$work/example.txt"
"$example" --accept 'application/openmetrics-text;version=1.0.0' 2>/dev/null >"$work/example.om.txt"
cp Tests/WPMetricsTests/Golden/every-type.txt "$work/golden.txt"
cp Tests/WPMetricsTests/Golden/every-type.om.txt "$work/golden.om.txt"
say "rendered $(wc -l <"$work/sample.txt") text lines and $(wc -l <"$work/sample.om.txt") OpenMetrics lines"

for file in sample.txt golden.txt example.txt; do
    if ! problems="$(promtool check metrics <"$work/$file" 2>&1)" || [ -n "$problems" ]; then
        fail "promtool reports problems in $file:
$problems"
    fi
done
say "promtool check metrics: zero problems"

python3 - "$work" "$name" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families as parse_text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

work, name = sys.argv[1], sys.argv[2]
for file, parse in (("sample.txt", parse_text), ("golden.txt", parse_text), ("example.txt", parse_text),
                    ("sample.om.txt", parse_openmetrics), ("golden.om.txt", parse_openmetrics),
                    ("example.om.txt", parse_openmetrics)):
    with open(f"{work}/{file}", encoding="utf-8") as handle:
        families = list(parse(handle.read()))
    types = sorted({family.type for family in families})
    if len(families) < 10:
        sys.exit(f"{file}: only {len(families)} families parsed")
    print(f"{name}: {file}: {len(families)} families parsed strictly ({', '.join(types)})")
PY

start_listening "$work/gateway.log" /-/ready prometheus-pushgateway
gateway="http://127.0.0.1:$listener_port"

"$bench" --child exposition-sample push "$gateway" check_exposition
curl -fsS "$gateway/metrics" >"$work/gateway-metrics.txt"
expected='sample_requests_total{instance="check/exposition",job="check_exposition"} 1027'
grep -qF "$expected" "$work/gateway-metrics.txt" || fail "pushed series missing from the gateway's /metrics"
grep -qF 'sample_special_values{case="tiny",instance="check/exposition",job="check_exposition"} 1.5e-07' \
    "$work/gateway-metrics.txt" || fail "pushed special value missing from the gateway's /metrics"
say "pushgateway round trip: pushed series visible on $gateway/metrics"

"$bench" --child exposition-sample delete "$gateway" check_exposition
curl -fsS "$gateway/metrics" >"$work/gateway-metrics.txt"
if grep -qF 'job="check_exposition"' "$work/gateway-metrics.txt"; then
    fail "group still present after DELETE"
fi
say "pushgateway delete: group removed"
say "OK"

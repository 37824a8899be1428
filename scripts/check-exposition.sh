#!/usr/bin/env bash
# Checks WPMetrics' exposition against the reference tools:
#   - promtool check metrics (Debian's prometheus package) must report zero problems,
#   - the strict text and OpenMetrics parsers of Python's prometheus-client must accept it,
#   - a push round trip through a real prometheus-pushgateway on a free loopback port.
# The sample covers every metric type, escaping case and special value; it is rendered by
# `wpbench --child exposition-sample` from the debug build (`swift test` already built it).
# Installs missing tools quietly (apt-get, pip); safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '%s\n' "check-exposition: $*"; }
fail() { printf '%s\n' "check-exposition: FAILED: $*" >&2; exit 1; }

scripts/ci/tools.sh tests prometheus   # promtool, prometheus-pushgateway, curl, python3, prometheus-client

swift build --product wpbench >/dev/null
swift build --product InstrumentedService >/dev/null
bench="$(swift build --show-bin-path)/wpbench"
example="$(swift build --show-bin-path)/InstrumentedService"
work="$(mktemp -d)"
gateway_pid=""
cleanup() {
    if [ -n "$gateway_pid" ]; then kill "$gateway_pid" 2>/dev/null || true; wait "$gateway_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

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

python3 - "$work" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families as parse_text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

work = sys.argv[1]
for name, parse in (("sample.txt", parse_text), ("golden.txt", parse_text), ("example.txt", parse_text),
                    ("sample.om.txt", parse_openmetrics), ("golden.om.txt", parse_openmetrics),
                    ("example.om.txt", parse_openmetrics)):
    with open(f"{work}/{name}", encoding="utf-8") as handle:
        families = list(parse(handle.read()))
    types = sorted({family.type for family in families})
    if len(families) < 10:
        sys.exit(f"{name}: only {len(families)} families parsed")
    print(f"check-exposition: {name}: {len(families)} families parsed strictly ({', '.join(types)})")
PY

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
prometheus-pushgateway --web.listen-address="127.0.0.1:$port" >"$work/gateway.log" 2>&1 &
gateway_pid=$!
gateway="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    curl -fsS "$gateway/-/ready" >/dev/null 2>&1 && break
    kill -0 "$gateway_pid" 2>/dev/null || fail "pushgateway exited: $(cat "$work/gateway.log")"
    sleep 0.1
done
curl -fsS "$gateway/-/ready" >/dev/null || fail "pushgateway not ready on $gateway"

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

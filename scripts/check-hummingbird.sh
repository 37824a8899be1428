#!/usr/bin/env bash
# Builds scripts/hummingbird-service — a Hummingbird 2.28.1 service serving a WPMetrics registry
# on a Hummingbird route, Hummingbird's own request metrics routed into it by WPMetricsBridge —
# against a tag of this repository and the published integrations, as scripts/check-consumer.sh
# does (bare clone of HEAD tagged with CHANGELOG.md's version, integrations published by
# scripts/export-integrations.sh, all in a temporary directory, CI=true). Then runs it on
# loopback with port 0, scrapes /metrics in both formats and stops it with SIGTERM.
#
# Not run by CI: Hummingbird's first build (SwiftNIO, swift-nio-ssl, swift-nio-http2…) takes
# minutes; docs/embedding.md gives the command and the last measured run. Set
# CHECK_HUMMINGBIRD_SCRATCH to a directory to keep the build between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

version=$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)
if [ -z "$version" ]; then
    echo "check-hummingbird: no '## [x.y.z]' release heading in CHANGELOG.md" >&2
    exit 1
fi

work=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
git clone --quiet --bare "$root" "$work/wpexporter.git"
git -C "$work/wpexporter.git" tag "$version" HEAD
scripts/export-integrations.sh "file://$work/wpexporter.git" "$version" "$work/integrations" >/dev/null
cp -R scripts/hummingbird-service "$work/service"

export CI=true WPEXPORTER_GIT_URL="file://$work/wpexporter.git" WPEXPORTER_VERSION="$version" \
    WPEXPORTER_INTEGRATIONS="$work/integrations"
echo "check-hummingbird: building beside Hummingbird 2.28.1 (wpexporter $version as a tagged dependency)"
started=$(date +%s)
scratch=${CHECK_HUMMINGBIRD_SCRATCH:-$work/build}
(cd "$work/service" && swift build --scratch-path "$scratch")
echo "check-hummingbird: built in $(( $(date +%s) - started )) s"
binary="$scratch/debug/HummingbirdService"

mkfifo "$work/out"
"$binary" --port 0 >"$work/out" 2>"$work/err" &
pid=$!
exec 3<"$work/out"
line=
if ! IFS= read -r -t 120 line <&3 || [[ $line != "listening on 127.0.0.1:"* ]]; then
    echo "check-hummingbird: the service did not report its port within 120 s (got '$line')" >&2
    cat "$work/err" >&2
    exit 1
fi
port=${line##*:}
base="http://127.0.0.1:$port"
echo "check-hummingbird: listening on port $port"

fail() { echo "check-hummingbird: $1" >&2; exit 1; }
[ "$(curl -sS --max-time 30 -X POST "$base/order")" = ok ] || fail "POST /order did not answer ok"
text=$(curl -sS --max-time 30 "$base/metrics")
openmetrics=$(curl -sS --max-time 30 -H 'Accept: application/openmetrics-text; version=1.0.0' "$base/metrics")
expect() {  # expect NAME TEXT LINE-PREFIX
    grep -qF -- "$3" <<<"$2" || { printf '%s\n' "$2" >&2; fail "$1 lacks: $3"; }
}
expect "the text format" "$text" "shop_orders_total 1"
expect "the text format" "$text" '# TYPE hb_requests_total counter'
expect "the text format" "$text" 'hb_requests_total{http_request_method="POST",http_response_status_code="200",http_route="/order"} 1'
expect "the text format" "$text" '# TYPE http_server_request_duration_seconds histogram'
expect "OpenMetrics" "$openmetrics" '# UNIT http_server_request_duration_seconds seconds'
expect "OpenMetrics" "$openmetrics" '# EOF'

kill -TERM "$pid"
status=0
for _ in $(seq 1 600); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
    fail "the service was still running 60 s after SIGTERM"
fi
wait "$pid" || status=$?
pid=
[ "$status" = 0 ] || { cat "$work/err" >&2; fail "the service exited with status $status after SIGTERM"; }
echo "check-hummingbird: ok (scraped in both formats, stopped by SIGTERM)"

#!/usr/bin/env bash
# Every gzip body /metrics sends decodes whole with clients that read only the first gzip
# member: curl's --compressed (7.88 stops after one member) and a zlib decoder that reports any
# bytes left over (Python), for a single WinPower server and for two (`servers:`, the merged
# exposition). Against `wpexporter simulate`, loopback and free ports only; a few seconds.
#
#   IntegrationTests/tests_01_exposition/test_02_gzip_clients.sh
#
# The gzip and the plain body of two scrapes differ only in the per-scrape families
# (`process_*`, the request and connection counters); everything else must be byte for byte the same.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests   # curl, python3

failed=0
# check LABEL BASE: compares the decoded gzip body with the plain one, both ways of decoding.
check() {
    local label=$1 base=$2
    curl -sf --compressed "$base/metrics" >"$work/compressed.txt"
    curl -sf -H 'Accept-Encoding: gzip' "$base/metrics" >"$work/raw.gz"
    curl -sf "$base/metrics" >"$work/plain.txt"
    local per_scrape='^(# (HELP|TYPE) )?(process_|winpower_exporter_requests_total|winpower_exporter_http_connections_)'
    if ! diff <(grep -Ev "$per_scrape" "$work/compressed.txt") <(grep -Ev "$per_scrape" "$work/plain.txt") >"$work/diff.txt"; then
        echo "$name: $label: curl --compressed differs from the plain body:" >&2
        head -20 "$work/diff.txt" >&2
        failed=1
    fi
    if ! python3 - "$work/raw.gz" "$work/plain.txt" <<'PY'; then
import sys, zlib
data = open(sys.argv[1], "rb").read()
decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
body = decoder.decompress(data)
if not decoder.eof or decoder.unused_data:
    sys.exit(f"{len(decoder.unused_data)} bytes after the first gzip member")
families = lambda text: sorted(l for l in text.splitlines() if l.startswith(b"# TYPE "))
if families(body) != families(open(sys.argv[2], "rb").read()):
    sys.exit("the first member lacks families of the plain body")
PY
        echo "$name: $label: the gzip body is not one complete member" >&2
        failed=1
    fi
    echo "$name: $label: curl --compressed $(wc -c <"$work/compressed.txt") bytes, plain $(wc -c <"$work/plain.txt") bytes," \
        "$(grep -c '^# TYPE ' "$work/compressed.txt") families each; gzip $(wc -c <"$work/raw.gz") bytes, one member"
}

start_fleet 2 50
sim_port=${fleet_ports[0]}
start_exporter "$work/single.log"
check "one server" "$base"
stop_exporter

printf 'servers:\n  - name: a\n    base_url: http://127.0.0.1:%s\n  - name: b\n    base_url: http://127.0.0.1:%s\n' \
    "${fleet_ports[0]}" "${fleet_ports[1]}" >"$work/servers.yml"
start_exporter "$work/servers.log" --config "$work/servers.yml" --data-dir "$work/data-servers"
check "two servers" "$base"
exit "$failed"

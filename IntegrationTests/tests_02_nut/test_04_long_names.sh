#!/usr/bin/env bash
# Long names against NUT's own clients (in CI): twelve UPSs whose alias and model are each
# 256 bytes (`winpower.max_text_bytes`' default; Chinese that pinyin makes longer, `#` that
# escaping doubles) make `LIST UPS` lines past the 511 bytes libupsclient reads: `upsc -l`
# then stopped listing in silence (7 of 12, exit status 0). Now `upsc -l` lists all twelve,
# every reply line of `LIST UPS` and `LIST VAR` fits, the descriptions end in `...`, and PyNUT
# and aionut read the same list; the first UPS listed answers reads (Home Assistant's set-up
# reads it first) although the simulator's first UPS is disconnected (with the simulator's order,
# `ERR DATA-STALE` ended that set-up). A few seconds.
#
#   IntegrationTests/tests_02_nut/test_04_long_names.sh
#
# Installs nut-client and python3-nut (Debian) and aionut (PyPI) when missing.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh nut   # upsc, PyNUT, aionut

start_simulator 12 --long-texts 256 --outage-schedule 0:0+3600/disconnected
start_exporter "$work/exporter.log" --nut.listen 127.0.0.1:0
nut_port=$(listening_port "$work/exporter.log")
[ -n "$nut_port" ] || fail "no NUT listener"
nut="127.0.0.1:$nut_port"
wait_for 30 grep -q '^winpower_device_info{' <(curl -sf "$base/metrics") || fail "no device on /metrics"
devices=$(curl -sf "$base/metrics" | grep -c '^winpower_device_info{')

mapfile -t names < <(upsc -l "$nut" 2>/dev/null)
echo "$name: upsc -l $nut: ${#names[@]} UPSs of $devices: ${names[*]%%-[a-z]*}"
[ "${#names[@]}" = "$devices" ] || fail "upsc -l lists ${#names[@]} UPSs, /metrics $devices devices"
mapfile -t described < <(upsc -L "$nut" 2>/dev/null)
[ "${#described[@]}" = "$devices" ] || fail "upsc -L lists ${#described[@]} UPSs"
[[ "${described[0]}" == *"..." ]] || fail "the first description is not cut with '...': ${described[0]}"

# Every reply line within 511 bytes, its newline included (UPSCLI_NETBUF_LEN 512).
raw=$(printf 'LIST UPS\nLIST VAR %s\nGET UPSDESC %s\nLOGOUT\n' "${names[0]}" "${names[0]}" \
    | timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$nut_port; cat >&3; cat <&3")
longest=$(awk '{ if (length($0) + 1 > max) max = length($0) + 1 } END { print max }' <<<"$raw")
[ "$longest" -le 511 ] || fail "a reply line of $longest bytes"
grep -q '^VAR .* device.model ".*\.\.\."$' <<<"$raw" || fail "device.model is not cut: $(grep device.model <<<"$raw")"
echo "$name: longest reply line $longest bytes (newline included)"

# PyNUT and aionut (Home Assistant's set-up: the list, then the first UPS's variables).
/usr/bin/python3 - "$nut_port" "$devices" <<'PY'
import sys
import PyNUT
port, devices = int(sys.argv[1]), int(sys.argv[2])
listed = PyNUT.PyNUTClient(host="127.0.0.1", port=port).GetUPSList()
assert len(listed) == devices, f"PyNUT lists {len(listed)} of {devices}"
print("test_04_long_names: PyNUT lists", len(listed), "UPSs")
PY
python3 - "$nut_port" "$devices" <<'PY'
import asyncio, sys
from aionut import AIONUTClient
port, devices = int(sys.argv[1]), int(sys.argv[2])
async def main():
    client = AIONUTClient(host="127.0.0.1", port=port)
    try:
        listed = await client.list_ups()
        assert len(listed) == devices, f"aionut lists {len(listed)} of {devices}"
        first = next(iter(listed))
        assert not first.startswith("ups-0-"), f"the disconnected UPS 0 (ups-0-...) is listed first: {first}"
        variables = await client.list_vars(first)
        assert "ups.status" in variables, variables
        print("test_04_long_names: aionut lists", len(listed), "UPSs; the first,", first, "reads", variables["ups.status"])
    finally:
        client.disconnect()
asyncio.run(main())
PY

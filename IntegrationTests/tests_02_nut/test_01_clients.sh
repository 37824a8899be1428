#!/usr/bin/env bash
# Real NUT clients against the exporter's NUT server (in CI): `upsc -l` lists every UPS of a
# simulated WinPower, `upsc NAME@host:port` reads each, and the values equal /metrics; PyNUT
# (Debian's python3-nut) and aionut (PyPI) read the same; PyNUT, pynut2 and aionut (PyPI) list
# the commands and writable variables of a UPS (none); a wrong password is refused and never
# logged. A few seconds.
#
#   IntegrationTests/tests_02_nut/test_01_clients.sh
#
# Installs nut-client and python3-nut (Debian), aionut and pynut2 (PyPI) when missing.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh nut   # upsc, PyNUT, aionut, pynut2

start_simulator 6
printf 'users:\n  monuser:\n    password: s3cret-nut\n    upsmon: primary\n' >"$work/nut-users.yml"
start_exporter "$work/exporter.log" --nut.listen 127.0.0.1:0 --nut.users_file "$work/nut-users.yml"
nut_port=$(listening_port "$work/exporter.log")
[ -n "$nut_port" ] || fail "no NUT listener"
nut="127.0.0.1:$nut_port"
metrics=$(curl -sf "$base/metrics")

mapfile -t names < <(upsc -l "$nut" 2>/dev/null)
echo "$name: upsc -l $nut: ${#names[@]} UPSs (${names[*]})"
devices=$(grep -c '^winpower_device_info{' <<<"$metrics")
[ "${#names[@]}" = "$devices" ] || fail "upsc lists ${#names[@]} UPSs, /metrics $devices devices"
# The simulator's fifth alias, 机房 UPS 3, is named and described in pinyin (docs/nut.md).
described=$(upsc -L "$nut" 2>/dev/null | grep '^jifang-ups-3: ' || true)
[[ "$described" == "jifang-ups-3: jifang UPS 3 "* ]] || fail "upsc -L names no jifang-ups-3 'jifang UPS 3 …': '$described'"
echo "$name: upsc -L: $described"

# reading FAMILY ID METRICS: the device's sample of FAMILY in METRICS (empty when it has none).
reading() { grep "^$1{device_id=\"$2\"" <<<"$3" | awk '{print $NF}' | head -1 || true; }
compared=("battery.charge winpower_device_battery_capacity" "input.voltage winpower_device_input_voltage"
          "ups.realpower winpower_device_load_total_watts" "ups.load winpower_device_load_percent"
          "output.frequency winpower_device_output_frequency")
checked=0
for ups in "${names[@]}"; do
    # The NUT server answers from the latest collection, and a collection comes every second:
    # upsc is read between two reads of /metrics, and compared only when both show the same
    # readings (one collection throughout); otherwise read again (at most 20 times).
    consistent=0
    for _ in $(seq 20); do
        before=$(curl -sf "$base/metrics")
        if ! vars=$(upsc "$ups@$nut" 2>&1); then
            # A disconnected device is stale: upsc says so, /metrics shows it disconnected.
            grep -q 'Data stale' <<<"$vars" || fail "upsc $ups: $vars"
            continue 2
        fi
        after=$(curl -sf "$base/metrics")
        id=$(awk -F': ' '$1 == "ups.id" {print $2}' <<<"$vars")
        consistent=1
        for pair in "${compared[@]}"; do
            family=${pair#* }
            [ "$(reading "$family" "$id" "$before")" = "$(reading "$family" "$id" "$after")" ] || { consistent=0; break; }
        done
        [ "$consistent" = 0 ] || break
    done
    [ "$consistent" = 1 ] || fail "$ups: a collection came between every read of /metrics and upsc (20 tries)"
    for pair in "${compared[@]}"; do
        read -r var family <<<"$pair"
        nut_value=$(awk -F': ' -v v="$var" '$1 == v {print $2}' <<<"$vars")
        metric_value=$(reading "$family" "$id" "$before")
        if [ -n "$metric_value" ] && [ "$(awk -v a="$nut_value" -v b="$metric_value" 'BEGIN {print (a + 0 == b + 0)}')" != 1 ]; then
            fail "$ups $var = '$nut_value', /metrics $family = '$metric_value'"
        fi
    done
    status=$(awk -F': ' '$1 == "ups.status" {print $2}' <<<"$vars")
    echo "$name: upsc $ups: ups.status $status, battery.charge $(awk -F': ' '$1 == "battery.charge" {print $2}' <<<"$vars")"
    checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || fail "no UPS could be read"

# PyNUT, the python3-nut client: the same names and values.
/usr/bin/python3 - "$nut_port" "${names[0]}" <<'PY'
import sys
import PyNUT
port, first = int(sys.argv[1]), sys.argv[2]
client = PyNUT.PyNUTClient(host="127.0.0.1", port=port, login="monuser", password="s3cret-nut")
listed = client.GetUPSList()
print("test_01_clients: PyNUT lists", len(listed), "UPSs")
for name in listed:
    name = name.decode() if isinstance(name, bytes) else name
    try:
        variables = client.GetUPSVars(name)
    except Exception as error:  # a stale UPS
        if "stale" not in str(error).lower():
            raise
        continue
    assert b"ups.status" in variables or "ups.status" in variables, variables
PY

# aionut (PyPI; the library Home Assistant's NUT integration uses): every readable UPS gives the
# same steady values as upsc (ups.id, ups.status, battery.charge, device.model).
python3 - "$nut_port" >"$work/aionut.txt" <<'PY'
import asyncio, sys
from aionut import AIONUTClient, NUTError

async def main(port):
    client = AIONUTClient(host="127.0.0.1", port=port, username="monuser", password="s3cret-nut")
    try:
        for name in sorted(await client.list_ups()):
            try:
                variables = await client.list_vars(name)
            except NUTError:  # a stale UPS: ERR DATA-STALE
                continue
            for key in ("ups.id", "ups.status", "battery.charge", "device.model"):
                print(name, key, variables.get(key, "-"))
    finally:
        client.disconnect()

asyncio.run(main(int(sys.argv[1])))
PY
aionut_checked=0
while read -r ups key value; do
    upsc_value=$(upsc "$ups@$nut" "$key" 2>/dev/null || echo -)
    [ "$upsc_value" = "$value" ] || fail "aionut $ups $key = '$value', upsc '$upsc_value'"
    aionut_checked=$((aionut_checked + 1))
done <"$work/aionut.txt"
[ "$aionut_checked" -ge 4 ] || { cat "$work/aionut.txt" >&2; fail "aionut read nothing"; }
echo "$name: aionut reads $((aionut_checked / 4)) UPSs with the values upsc reads"

# LIST CMD and LIST RW of a UPS without instant commands or writable variables: the bridge
# answers as upsd does for such a UPS, `BEGIN LIST CMD ups` then `END LIST CMD ups` with no line
# between. Each client lists both where it can and gets nothing, without an error of its own
# making. Two clients' parsers assume one line at least (as against upsd): PyNUT's
# GetUPSCommands makes one entry b"" of the empty list and asks its description as
# `GET CMDDESC ups b''` (Python 3 formats the bytes), which upsd and the bridge answer
# "Description unavailable"; pynut2's list_commands gives "" => "" (its `GET CMDDESC ups ` is
# refused), and its list_rw_vars raises ValueError while unpacking the empty line. Those
# outcomes are checked exactly, so an ERR or a stray line would fail here. aionut has no LIST
# RW call.
empty_ups=""
for ups in "${names[@]}"; do
    if upsc "$ups@$nut" ups.status >/dev/null 2>&1; then empty_ups=$ups; break; fi
done
[ -n "$empty_ups" ] || fail "no readable UPS to list commands of"
raw=$(printf 'LIST CMD %s\nLIST RW %s\nLOGOUT\n' "$empty_ups" "$empty_ups" | timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$nut_port; cat >&3; cat <&3")
expected=$(printf 'BEGIN LIST CMD %s\nEND LIST CMD %s\nBEGIN LIST RW %s\nEND LIST RW %s\nOK Goodbye' "$empty_ups" "$empty_ups" "$empty_ups" "$empty_ups")
[ "$raw" = "$expected" ] || fail "LIST CMD/RW $empty_ups answered: $raw"
/usr/bin/python3 - "$nut_port" "$empty_ups" <<'PY'
import sys
import PyNUT
port, ups = int(sys.argv[1]), sys.argv[2]
client = PyNUT.PyNUTClient(host="127.0.0.1", port=port, login="monuser", password="s3cret-nut")
commands = client.GetUPSCommands(ups)
assert commands == {b"": b"Description unavailable"}, f"PyNUT GetUPSCommands: {commands!r}"
rw = client.GetRWVars(ups)
assert rw == {}, f"PyNUT GetRWVars: {rw!r}"
assert client.GetUPSVars(ups), "the connection still answers after both lists"
print("test_01_clients: PyNUT lists no command and no writable variable of", ups)
PY
python3 - "$nut_port" "$empty_ups" <<'PY'
import asyncio, sys
from aionut import AIONUTClient
from pynut2.nut2 import PyNUTClient

port, ups = int(sys.argv[1]), sys.argv[2]
client = PyNUTClient(host="127.0.0.1", port=port, login="monuser", password="s3cret-nut")
commands = client.list_commands(ups)
assert commands == {"": ""}, f"pynut2 list_commands: {commands!r}"
try:
    rw = client.list_rw_vars(ups)
except ValueError:
    pass  # its parser unpacks the empty line, for upsd's empty answer as for this one
else:
    raise SystemExit(f"pynut2 list_rw_vars: {rw!r}, expected its ValueError on an empty list")
assert client.list_vars(ups).get("ups.status"), "the connection still answers after both lists"

async def main():
    aio = AIONUTClient(host="127.0.0.1", port=port, username="monuser", password="s3cret-nut")
    try:
        commands = await aio.list_commands(ups)
        assert commands == set(), f"aionut list_commands: {commands!r}"
        assert (await aio.list_vars(ups)).get("ups.status"), "the connection still answers after the list"
    finally:
        aio.disconnect()

asyncio.run(main())
print("test_01_clients: pynut2 and aionut list no command of", ups)
PY

# A wrong password is refused; no NUT password reaches the log.
reply=$(printf 'USERNAME monuser\nPASSWORD wrong\nLOGIN %s\nLOGOUT\n' "${names[0]}" | timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$nut_port; cat >&3; cat <&3")
grep -q 'ERR ACCESS-DENIED' <<<"$reply" || fail "a wrong password was not refused: $reply"
if grep -q -e 's3cret-nut' -e 'wrong' "$work/exporter.log"; then fail "a NUT password is in the log"; fi
echo "$name: upsc, PyNUT and aionut read $checked UPSs; values equal /metrics; PyNUT, pynut2 and aionut list commands and writable variables"

#!/usr/bin/env bash
# Runs the exporter under the system call filter of deploy/systemd/wpexporter.service, without
# systemd: the unit's SystemCallFilter= lines are read in order and interpreted as systemd does
# (the first non-empty line decides allow-list or deny-list mode, an allow list starts from
# @default, later lines add or remove names in order, an empty value resets), groups are
# expanded with `systemd-analyze syscall-filter`, and a small libseccomp program
# (scripts/seccomp/seccomp-exec.c) applies the result with the unit's action: kill the process
# (systemd's default) or the errno of SystemCallErrorNumber=.
#
# Under that filter: `version`, `check-config` and `server` (against `wpexporter simulate`,
# which runs outside the filter) must succeed; the server must serve /metrics with the
# simulated devices, reload on SIGHUP and exit 0 on SIGTERM; then again over TLS, with
# `healthcheck` (https, libcurl) against it. Each command runs a second time
# with the kill action whatever SystemCallErrorNumber= says, so a call the filter denies is
# found even when the unit would only make it fail.
#
# Binary: WPEXPORTER_BIN, default .build/debug/wpexporter. Needs systemd-analyze (Debian
# `systemd`; systemd need not be running), cc and libseccomp-dev, curl, openssl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ci/tools.sh tests seccomp   # systemd-analyze, libseccomp-dev, cc, curl, openssl, python3
unit="${WPEXPORTER_UNIT:-deploy/systemd/wpexporter.service}"
bin="${WPEXPORTER_BIN:-.build/debug/wpexporter}"
[[ -x "$bin" ]] || { echo "FAIL: $bin is not built (swift build first, or set WPEXPORTER_BIN)"; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

work="$(mktemp -d)"
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

cc -O1 -Wall -Werror -o "$work/seccomp-exec" scripts/seccomp/seccomp-exec.c -lseccomp

# The unit's filter: mode, action and the list of names, as systemd builds them.
systemd-analyze syscall-filter --no-pager >"$work/groups.txt" 2>"$work/groups.err" \
    || fail "systemd-analyze syscall-filter: $(cat "$work/groups.err")"
python3 - "$unit" "$work/groups.txt" "$work/filter.txt" >"$work/filter.env" <<'PY'
import errno, re, sys

unit_path, groups_path, out_path = sys.argv[1:]
groups, current = {}, None
for line in open(groups_path, encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("@"):
        current = line.strip()
        groups[current] = []
    elif not line.strip():
        current = None
    elif current and not line.strip().startswith("#"):
        groups[current].append(line.strip())

def expand(name, seen=()):
    if not name.startswith("@"):
        return {name}
    if name not in groups:
        sys.exit(f"{unit_path}: unknown system call group {name} (not in systemd-analyze syscall-filter)")
    result = set()
    for member in groups[name]:
        if member not in seen:
            result |= expand(member, seen + (name,))
    return result

mode, names, action = None, set(), "kill"
for number, raw in enumerate(open(unit_path, encoding="utf-8"), 1):
    line = raw.strip()
    key, _, value = line.partition("=")
    if key == "SystemCallErrorNumber":
        value = value.strip()
        if value == "kill":
            action = "kill"
        elif value.isdigit():
            action = f"errno:{value}"
        elif hasattr(errno, value):
            action = f"errno:{getattr(errno, value)}"
        else:
            sys.exit(f"{unit_path}:{number}: SystemCallErrorNumber={value} is not an errno name")
        continue
    if key != "SystemCallFilter":
        continue
    value = value.strip()
    if not value:
        mode, names = None, set()
        continue
    invert = value.startswith("~")
    if invert:
        value = value[1:]
    if mode is None:
        mode = "deny" if invert else "allow"
        names = expand("@default") if mode == "allow" else set()
    for word in value.split():
        if ":" in word:
            sys.exit(f"{unit_path}:{number}: per-call errno ({word}) is not interpreted by this check")
        if invert == (mode == "allow"):
            names -= expand(word)
        else:
            names |= expand(word)
if mode is None:
    sys.exit(f"{unit_path}: no SystemCallFilter= line")
with open(out_path, "w", encoding="utf-8") as out:
    out.write("\n".join(sorted(names)) + "\n")
print(f"mode={mode}")
print(f"action={action}")
print(f"count={len(names)}")
PY
mode="$(sed -n 's/^mode=//p' "$work/filter.env")"
action="$(sed -n 's/^action=//p' "$work/filter.env")"
echo "filter of $unit: $mode list of $(sed -n 's/^count=//p' "$work/filter.env") system calls, action $action"
for name in setpriority execve; do
    if grep -qx "$name" "$work/filter.txt"; then state=listed; else state="not listed"; fi
    echo "  $name: $state"
done

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
wait_http() {  # wait_http URL SECONDS PID: polls until URL answers (any status); 2 when PID exited
    local url=$1 limit=$2 pid=$3 start=$SECONDS
    while ((SECONDS - start < limit)); do
        curl -s --max-time 2 -o /dev/null "$url" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 2
        sleep 0.2
    done
    return 1
}
describe() {  # describe STATUS: "status N" plus the signal for 128+N
    local status=$1
    if ((status > 128)); then echo "status $status (signal $(kill -l $((status - 128)) 2>/dev/null || echo $((status - 128))))"; else echo "status $status"; fi
}

simulator_port="$(free_port)"
"$bin" simulate --host 127.0.0.1 --port "$simulator_port" --devices 2 >"$work/simulator.log" 2>&1 &
pids+=("$!")
wait_http "http://127.0.0.1:$simulator_port/" 60 "$!" || fail "the simulator did not start: $(cat "$work/simulator.log")"
printf 'admin\n' >"$work/password"
cat >"$work/config.yaml" <<YAML
winpower:
  base_url: http://127.0.0.1:$simulator_port
  username: admin
  password_file: $work/password
scheduler:
  collection_interval: 1s
YAML

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
    -keyout "$work/tls.key" -out "$work/tls.crt" >/dev/null 2>&1 || fail "openssl could not make a test certificate"

for run_action in "$action" kill; do
    if [[ $run_action == kill && $action == kill && ${done_kill:-} ]]; then continue; fi
    [[ $run_action == kill ]] && done_kill=1
    echo "== under the unit's filter, action $run_action"
    sandbox=("$work/seccomp-exec" "$mode" "$run_action" "$work/filter.txt" --)
    data="$work/data-$run_action"
    mkdir -p "$data"
    common=(--config "$work/config.yaml" --storage.data_dir "$data")

    status=0
    "${sandbox[@]}" "$bin" version >"$work/version.txt" 2>&1 || status=$?
    if ((status != 0)) || [[ ! -s "$work/version.txt" ]]; then fail "wpexporter version: $(describe $status), output: $(cat "$work/version.txt")"; fi
    echo "ok: version ($(head -n 1 "$work/version.txt"))"

    port="$(free_port)"
    status=0
    "${sandbox[@]}" "$bin" check-config "${common[@]}" --server.host 127.0.0.1 --server.port "$port" >"$work/check.txt" 2>&1 || status=$?
    if ((status != 0)) || ! grep -q 'winpower.base_url' "$work/check.txt"; then fail "wpexporter check-config: $(describe $status), output: $(cat "$work/check.txt")"; fi
    echo "ok: check-config"

    "${sandbox[@]}" "$bin" server "${common[@]}" --server.host 127.0.0.1 --server.port "$port" >"$work/server.log" 2>&1 &
    server=$!
    pids+=("$server")
    status=0
    wait_http "http://127.0.0.1:$port/-/ready" 60 "$server" || status=$?
    if ((status != 0)); then
        wait "$server" 2>/dev/null && code=0 || code=$?
        fail "wpexporter server did not become ready ($(describe "$code")): $(tail -n 20 "$work/server.log")"
    fi
    start=$SECONDS
    until curl -fsS --max-time 2 "http://127.0.0.1:$port/metrics" 2>/dev/null | grep -q '^winpower_device_connected{.*} 1'; do
        kill -0 "$server" 2>/dev/null || fail "wpexporter server died: $(tail -n 20 "$work/server.log")"
        ((SECONDS - start < 60)) || fail "no connected device on /metrics after 60s"
        sleep 0.5
    done
    echo "ok: server serves the simulated devices"
    kill -HUP "$server"
    start=$SECONDS
    until grep -q 'configuration reloaded' "$work/server.log"; do
        kill -0 "$server" 2>/dev/null || fail "wpexporter server died on SIGHUP: $(tail -n 20 "$work/server.log")"
        ((SECONDS - start < 30)) || fail "no reload logged 30s after SIGHUP"
        sleep 0.2
    done
    curl -fsS --max-time 5 -o /dev/null "http://127.0.0.1:$port/metrics" || fail "/metrics after reload"
    echo "ok: reload on SIGHUP"
    kill -TERM "$server"
    status=0
    wait "$server" || status=$?
    ((status == 0)) || fail "wpexporter server on SIGTERM: $(describe $status): $(tail -n 20 "$work/server.log")"
    echo "ok: server exits 0 on SIGTERM"

    # The same over TLS (the listener's TLS library and, for `healthcheck`, libcurl).
    tls_port="$(free_port)"
    printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$work/tls.crt" "$work/tls.key" >"$work/web.yml"
    tls=(--server.host 127.0.0.1 --server.port "$tls_port" --server.web_config_file "$work/web.yml")
    "${sandbox[@]}" "$bin" server "${common[@]}" "${tls[@]}" >"$work/server-tls.log" 2>&1 &
    server=$!
    pids+=("$server")
    start=$SECONDS
    until curl -ksf --max-time 2 "https://127.0.0.1:$tls_port/metrics" 2>/dev/null | grep -q '^winpower_device_connected{.*} 1'; do
        kill -0 "$server" 2>/dev/null || fail "wpexporter server over TLS died: $(tail -n 20 "$work/server-tls.log")"
        ((SECONDS - start < 60)) || fail "no connected device on https /metrics after 60s"
        sleep 0.5
    done
    echo "ok: server over TLS serves the simulated devices"
    status=0
    "${sandbox[@]}" "$bin" healthcheck "${common[@]}" "${tls[@]}" >"$work/health.txt" 2>&1 || status=$?
    if ((status != 0)) || ! grep -q "^healthy: https://" "$work/health.txt"; then
        fail "wpexporter healthcheck over TLS: $(describe $status): $(cat "$work/health.txt")"
    fi
    echo "ok: healthcheck over TLS"
    kill -TERM "$server"
    status=0
    wait "$server" || status=$?
    ((status == 0)) || fail "wpexporter server over TLS on SIGTERM: $(describe $status): $(tail -n 20 "$work/server-tls.log")"
    echo "ok: server over TLS exits 0 on SIGTERM"
done
echo "seccomp: the exporter runs under the unit's system call filter"

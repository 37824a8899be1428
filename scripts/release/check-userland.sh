#!/usr/bin/env bash
# Runs a release binary on an older distribution's userland, as an operator there would:
# inside ROOT (a Debian bullseye root from scripts/release/roots.sh: glibc 2.31, OpenSSL 1.1.1,
# libcurl 4 built on it, no OpenSSL 3), the binary
#   1. prints `version` (its commit is HEAD's when COMMIT is given);
#   2. serves `demo`: /metrics scraped, every device there;
#   3. logs in to WinPower over HTTPS (the built-in simulator behind scripts/release/tls-front.py,
#      its certificate checked against winpower.ca_file, through the root's libcurl), serves
#      /metrics over its own TLS listener (--web.config.file, through the root's OpenSSL 1.1,
#      which its log names) to curl, and answers an SNMPv3 authPriv get (SHA-256, AES-128) of
#      snmpget.
# ARCH arm64 runs the binary with qemu-aarch64-static (Debian qemu-user-static) inside the root.
# The clients (curl, snmpget, openssl, python3) are this host's; all traffic is on 127.0.0.1.
#
# Usage: scripts/release/check-userland.sh ARCH BINARY ROOT [COMMIT]
# Root is needed (chroot, and mounts in a private mount namespace that vanish with it).
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=$1 binary=$(readlink -f "$2") root=$(readlink -f "$3") commit=${4:-}
name="check-userland[$arch]"
fail() { echo "FAIL $name: $*" >&2; exit 1; }
[[ -x "$binary" ]] || fail "$binary is not an executable"
[[ -x "$root/bin/sh" ]] || fail "$root is not a root file system"
if [[ -z "${WPEXPORTER_USERLAND_INNER:-}" ]]; then
    exec env WPEXPORTER_USERLAND_INNER=1 unshare --mount --propagation private "$0" "$@"
fi

for tool in curl snmpget openssl python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed on this host"
done
inside="/tmp/wpexporter-check.$$"   # the work folder as the binary sees it
work="$root$inside"
mkdir -p "$work/net-snmp"
export SNMP_PERSISTENT_DIR="$work/net-snmp" SNMPCONFPATH="$work/net-snmp"
jobs_to_stop=()
cleanup() {
    local status=$?
    for pid in "${jobs_to_stop[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [[ $status != 0 ]]; then
        for log in "$work"/*.log; do [[ -f "$log" ]] && { echo "--- $log"; tail -n 30 "$log"; }; done
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
install -m 0755 "$binary" "$work/wpexporter"
run=(chroot "$root")
case "$arch" in
    amd64) ;;
    arm64)
        qemu="$(command -v qemu-aarch64-static)" || fail "qemu-aarch64-static is not installed (Debian qemu-user-static)"
        install -m 0755 "$qemu" "$work/qemu-aarch64-static"
        run=(chroot "$root" "$inside/qemu-aarch64-static") ;;
    *) fail "unknown architecture $arch" ;;
esac
glibc="$(find "$root"/lib/*-linux-gnu -maxdepth 1 -name 'libc-*.so' -printf '%f\n' 2>/dev/null | sed 's/^libc-\(.*\)\.so$/glibc \1/' | head -n 1)"
ssl="$(find "$root"/usr/lib/*-linux-gnu -maxdepth 1 -name 'libssl.so.*' -printf '%f ' 2>/dev/null)"
echo "$name: root $root: $glibc; $ssl"
[[ -z "$(ls "$root"/usr/lib/*-linux-gnu/libssl.so.3 2>/dev/null)" ]] || fail "the root has OpenSSL 3; this check is for a host with OpenSSL 1.1 only"

wait_for() {  # wait_for FILE PATTERN: until FILE has a line matching PATTERN (30 s)
    for _ in $(seq 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1 after 30 s"
}

# 1. version
printed="$("${run[@]}" "$inside/wpexporter" version --format json)" || fail "version failed"
echo "$name: version: $printed"
if [[ -n "$commit" ]]; then
    [[ "$printed" == *"\"git_commit\":\"$commit\""* ]] || fail "the binary's commit is not $commit"
fi

# 2. demo
"${run[@]}" "$inside/wpexporter" demo --port 0 --data-dir "$inside/demo-data" >"$work/demo.log" 2>&1 &
demo=$!
jobs_to_stop+=("$demo")
wait_for "$work/demo.log" '^ *metrics: *http://127\.0\.0\.1:[0-9]*/metrics$'
url="$(sed -n 's/^ *metrics: *\(http:\/\/127\.0\.0\.1:[0-9]*\/metrics\)$/\1/p' "$work/demo.log" | head -n 1)"
devices=0
for _ in $(seq 300); do
    devices="$(curl -fsS --max-time 5 "$url" 2>/dev/null | grep -c '^winpower_device_connected{' || true)"
    [[ "$devices" -ge 6 ]] && break
    sleep 0.1
done
[[ "$devices" -ge 6 ]] || fail "demo's /metrics has $devices devices, not 6"
kill -TERM "$demo"
wait "$demo" || fail "demo did not exit 0 on SIGTERM"
echo "$name: demo served $url with $devices devices and stopped cleanly"

# 3. HTTPS to WinPower, the TLS listener, SNMPv3
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
chmod 0644 "$work/tls.key"
"${run[@]}" "$inside/wpexporter" simulate --port 0 --devices 2 >"$work/simulator.log" 2>&1 &
jobs_to_stop+=($!)
wait_for "$work/simulator.log" '127\.0\.0\.1:[0-9]'
backend="$(grep -o '127\.0\.0\.1:[0-9]*' "$work/simulator.log" | head -n 1 | cut -d: -f2)"
python3 scripts/release/tls-front.py "$work/tls.crt" "$work/tls.key" "$backend" >"$work/front.log" 2>&1 &
jobs_to_stop+=($!)
wait_for "$work/front.log" '^port [0-9]'
front="$(sed -n 's/^port //p' "$work/front.log")"
printf 'tls_server_config:\n  cert_file: %s/tls.crt\n  key_file: %s/tls.key\n' "$inside" "$inside" >"$work/web.yml"
printf 'users:\n  reader:\n    auth_password: auth-pass-123\n    priv_password: priv-pass-456\n' >"$work/snmp-users.yml"
chmod 0600 "$work/snmp-users.yml"
"${run[@]}" "$inside/wpexporter" server --winpower.url "https://127.0.0.1:$front" --winpower.ca_file "$inside/tls.crt" \
    --winpower.username admin --winpower.password admin --server.host 127.0.0.1 --port 0 \
    --data-dir "$inside/data" --scheduler.collection_interval 1s --web.config.file "$inside/web.yml" \
    --snmp.listen 127.0.0.1:0 --snmp.users_file "$inside/snmp-users.yml" --logging.level debug \
    >"$work/exporter.log" 2>&1 &
jobs_to_stop+=($!)
wait_for "$work/exporter.log" 'exporter listening'
port="$(grep 'exporter listening' "$work/exporter.log" | grep -o '127\.0\.0\.1:[0-9]*' | head -n 1 | cut -d: -f2)"
connected=0
for _ in $(seq 300); do
    connected="$(curl -fsS --max-time 5 --cacert "$work/tls.crt" "https://127.0.0.1:$port/metrics" 2>/dev/null \
        | grep -c '^winpower_device_connected{.*} 1$' || true)"
    [[ "$connected" -ge 2 ]] && break
    sleep 0.1
done
[[ "$connected" -ge 2 ]] || fail "https://127.0.0.1:$port/metrics shows $connected connected devices, not 2"
grep -q 'tls library loaded.*OpenSSL 1\.1' "$work/exporter.log" || fail "the exporter's log does not name OpenSSL 1.1 as its TLS library"
echo "$name: logged in to WinPower over HTTPS (CA checked); curl read /metrics over the TLS listener (OpenSSL 1.1): $connected devices connected"
agent="$(grep -i 'datagram server listening\|snmp.*listening' "$work/exporter.log" | grep -o '127\.0\.0\.1:[0-9]*' | head -n 1)"
[[ -n "$agent" ]] || fail "the exporter did not log the SNMP agent's address"
model="$(snmpget -m '' -Oqv -t 5 -r 1 -v 3 -l authPriv -u reader -a SHA-256 -A auth-pass-123 -x AES -X priv-pass-456 \
    "$agent" 1.3.6.1.2.1.33.1.1.2.0)" || fail "snmpget -v3 authPriv failed against $agent"
[[ -n "$model" ]] || fail "snmpget -v3 authPriv returned an empty upsIdentModel"
echo "$name: snmpget -v3 authPriv (SHA-256, AES-128) read upsIdentModel.0 = $model from $agent"
echo "$name: passed"

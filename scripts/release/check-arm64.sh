#!/usr/bin/env bash
# Checks an aarch64 release binary (scripts/release/build-arm64.sh) for what a release promises:
#   1. its dynamic symbols need glibc 2.28 at most (`objdump -T`), and no GLIBCXX_ or CXXABI_
#      version (libstdc++ is linked in), and no library but glibc's and zlib (ZLIB_1.2.11 at most);
#   2. on Debian bullseye arm64 (glibc 2.31, through qemu-aarch64-static with the bullseye root
#      of scripts/release/toolchain.sh as its library root) `wpexporter version` runs, and
#      `wpexporter demo --port 0` serves /metrics on 127.0.0.1 with winpower_device_connected
#      series (fetched with the root's own curl). All traffic stays on the loopback interface.
# Each failure says what failed; the status is 1 on any.
#
# Usage: scripts/release/check-arm64.sh BINARY
#   WPEXPORTER_CACHE     the toolchain cache (default /var/cache/wpexporter-build)
#   WPEXPORTER_MAX_GLIBC the highest glibc version allowed (default 2.28)
# Needs root (for the chroot's curl), binutils, qemu-user-static, python3, and the bullseye-arm64
# root (`scripts/release/toolchain.sh bullseye-arm64`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"

binary="${1:?usage: scripts/release/check-arm64.sh BINARY}"
[[ -f "$binary" ]] || die "$binary does not exist"
binary="$(cd "$(dirname "$binary")" && pwd -P)/$(basename "$binary")"
max_glibc="${WPEXPORTER_MAX_GLIBC:-2.28}"
max_zlib="${WPEXPORTER_MAX_ZLIB:-1.2.11}"   # bullseye's zlib1g
root="$cache/roots/bullseye-arm64"
[[ -f "$root/.wpexporter-root" ]] || die "no bullseye arm64 root: run scripts/release/toolchain.sh bullseye-arm64"
failures=0
fail() { echo "check-arm64.sh: FAILED: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# --- 1. what the binary needs ----------------------------------------------------------------
file -b "$binary" | grep -q 'ARM aarch64' || fail "$binary is not an aarch64 ELF file: $(file -b "$binary")"
symbols="$(objdump -T "$binary")" || die "objdump -T $binary failed"
highest="$(grep -o 'GLIBC_[0-9][0-9.]*' <<<"$symbols" | sed 's/GLIBC_//' | sort -V | tail -n 1)"
if [[ -z "$highest" ]]; then
    fail "objdump -T shows no GLIBC_ versions (not a dynamically linked glibc binary?)"
elif [[ "$(printf '%s\n%s\n' "$highest" "$max_glibc" | sort -V | tail -n 1)" != "$max_glibc" ]]; then
    fail "needs GLIBC_$highest, more than $max_glibc; the symbols above $max_glibc:"
    awk -v max="$max_glibc" '
        match($0, /GLIBC_[0-9][0-9.]*/) {
            version = substr($0, RSTART + 6, RLENGTH - 6)
            split(version, a, "."); split(max, b, ".")
            if (a[1] > b[1] || (a[1] == b[1] && a[2] + 0 > b[2] + 0)) print "    " $NF " (GLIBC_" version ")"
        }' <<<"$symbols" >&2
else
    ok "highest glibc version needed: GLIBC_$highest (at most $max_glibc)"
fi
if grep -E 'GLIBCXX_|CXXABI_' <<<"$symbols" >&2; then
    fail "needs the libstdc++ versions above (libstdc++ must be linked in)"
else
    ok "no GLIBCXX_ or CXXABI_ version needed"
fi
needed="$(objdump -p "$binary" | awk '$1 == "NEEDED" {print $2}' | tr '\n' ' ')"
unexpected=""
for library in $needed; do
    case "$library" in
        libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|libz.so.1|ld-linux-*) ;;
        *) unexpected="$unexpected $library" ;;
    esac
done
if [[ -n "$unexpected" ]]; then
    fail "needs$unexpected; a release needs only glibc's libraries and zlib (needed: $needed)"
else
    ok "needed libraries: $needed"
fi
# zlib stays shared (scripts/release/linker/clang): its versions must be bullseye's too.
zlib="$(grep -o 'ZLIB_[0-9][0-9.]*' <<<"$symbols" | sed 's/ZLIB_//' | sort -V | tail -n 1 || true)"
if [[ -n "$zlib" && "$(printf '%s\n%s\n' "$zlib" "$max_zlib" | sort -V | tail -n 1)" != "$max_zlib" ]]; then
    fail "needs ZLIB_$zlib, more than bullseye's $max_zlib"
else
    ok "highest zlib version needed: ZLIB_${zlib:-none} (at most $max_zlib)"
fi

# --- 2. running on bullseye arm64 -------------------------------------------------------------
qemu=(qemu-aarch64-static -L "$root")
if version="$("${qemu[@]}" "$binary" version 2>&1)"; then
    ok "version on bullseye arm64: $(head -n 1 <<<"$version")"
else
    fail "wpexporter version failed on bullseye arm64: $version"
fi
if json="$("${qemu[@]}" "$binary" version --format json 2>&1)" && python3 -c 'import json, sys; json.loads(sys.argv[1])' "$json"; then
    ok "version --format json: $json"
else
    fail "wpexporter version --format json failed or printed no JSON: $json"
fi

work="$(mktemp -d)"
demo_pid=""
cleanup() {
    if [[ -n "$demo_pid" ]] && kill -0 "$demo_pid" 2>/dev/null; then
        kill -TERM "$demo_pid" 2>/dev/null || true
        wait "$demo_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/data"
"${qemu[@]}" "$binary" demo --port 0 --data-dir "$work/data" >"$work/demo.out" 2>"$work/demo.err" &
demo_pid=$!
url=""
for _ in $(seq 1 120); do   # up to 60 s: the first collection under emulation takes a while
    url="$(grep -oE 'http://127\.0\.0\.1:[0-9]+/metrics' "$work/demo.out" | head -n 1 || true)"
    [[ -n "$url" ]] && break
    kill -0 "$demo_pid" 2>/dev/null || break
    sleep 0.5
done
if [[ -z "$url" ]]; then
    fail "wpexporter demo printed no 127.0.0.1 metrics URL; its output:"
    cat "$work/demo.out" "$work/demo.err" >&2
else
    ok "demo serves $url"
    connected=""
    for _ in $(seq 1 60); do   # the device series appear after the first collection
        # The bullseye root's own curl (arm64, through qemu), loopback only.
        metrics="$(in_root "$root" curl --silent --show-error --max-time 10 --noproxy '*' "$url" 2>&1 || true)"
        connected="$(grep -c '^winpower_device_connected{' <<<"$metrics" || true)"
        [[ "$connected" -gt 0 ]] && break
        sleep 0.5
    done
    if [[ "$connected" -gt 0 ]]; then
        ok "curl $url (bullseye arm64 curl): $connected winpower_device_connected series"
        grep '^winpower_device_connected{' <<<"$metrics" | head -n 2 | sed 's/^/    /'
    else
        fail "curl $url returned no winpower_device_connected{ line; it returned:"
        head -n 20 <<<"$metrics" >&2
        cat "$work/demo.err" >&2
    fi
fi
kill -TERM "$demo_pid" 2>/dev/null || true
status=0
wait "$demo_pid" || status=$?
demo_pid=""
if [[ $status -eq 0 ]]; then
    ok "demo stopped on SIGTERM with status 0"
else
    fail "demo exited with status $status on SIGTERM; its standard error:"
    tail -n 20 "$work/demo.err" >&2
fi

if [[ $failures -gt 0 ]]; then
    echo "check-arm64.sh: $failures check(s) failed for $binary" >&2
    exit 1
fi
echo "check-arm64.sh: $binary passes"

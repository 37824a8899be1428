#!/usr/bin/env bash
# Prints the path of the zig executable the release links with (scripts/release/linker/clang),
# installing it first when the cache does not hold it: PyPI's `ziglang` wheel of the pinned
# version, downloaded with pip and unpacked (a wheel is a zip), never into the clone.
#
# The cache is scripts/release/lib.sh's (WPEXPORTER_CACHE, else /var/cache/wpexporter-build);
# zig lands in CACHE/zig/VERSION/ (about 80 MB downloaded, 300 MB
# unpacked). A second run finds it there and fetches nothing.
#
# With --link-libs TRIPLE it prints instead the folder of static libraries the link needs for
# that target (libstdc++.a, libgcc_eh.a, libz.so; scripts/release/linker/clang): for
# x86_64-linux-gnu copied from this host's GCC and zlib (Swift's own prerequisites on Linux), for
# aarch64-linux-gnu the one scripts/release/toolchain.sh fills from Debian's arm64 packages.
#
# Usage: scripts/release/zig.sh [--link-libs TRIPLE]
set -euo pipefail
version=0.14.1   # ziglang on PyPI; its glibc stubs go back to 2.17, its lld links both targets
# shellcheck source=scripts/release/lib.sh
source "$(dirname "$0")/lib.sh"
if [[ "${1:-}" == --link-libs ]]; then
    triple="${2:?--link-libs needs a target triple}"
    libs="$cache/link/$triple"
    mkdir -p "$libs"
    if [[ "$triple" == "$(gcc -dumpmachine)" ]]; then
        for library in libstdc++.a libgcc_eh.a; do
            from="$(gcc -print-file-name="$library")"
            [[ -f "$from" ]] || { echo "zig.sh: GCC has no $library (install libstdc++-dev)" >&2; exit 1; }
            cp "$from" "$libs/$library"
        done
        from="$(readlink -f "/lib/$triple/libz.so.1")"
        [[ -f "$from" ]] || { echo "zig.sh: /lib/$triple/libz.so.1 is missing (install zlib1g)" >&2; exit 1; }
        cp "$from" "$libs/libz.so"
    fi
    for library in libstdc++.a libgcc_eh.a libz.so; do
        [[ -f "$libs/$library" ]] || { echo "zig.sh: $libs/$library is missing" >&2; exit 1; }
    done
    echo "$libs"
    exit 0
fi
folder="$cache/zig/$version"
zig="$folder/ziglang/zig"
if [[ ! -x "$zig" ]] || ! "$zig" version >/dev/null 2>&1; then
    echo "== installing zig $version (PyPI ziglang) into $folder" >&2
    download="$(mktemp -d)"
    trap 'rm -rf "$download"' EXIT
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$download" "ziglang==$version" >&2
    rm -rf "$folder.partial"
    mkdir -p "$folder.partial"
    python3 -m zipfile -e "$download"/ziglang-*.whl "$folder.partial"
    chmod +x "$folder.partial/ziglang/zig"
    rm -rf "$folder"
    mv "$folder.partial" "$folder"
fi
[[ "$("$zig" version)" == "$version" ]] || { echo "zig.sh: $zig is not zig $version" >&2; exit 1; }
echo "$zig"

#!/usr/bin/env bash
# Prints the path of the zig executable the release links with (scripts/release/linker/clang),
# installing it first when the cache does not hold it: PyPI's `ziglang` wheel of the pinned
# version, downloaded with pip and unpacked (a wheel is a zip), never into the clone.
#
# The cache is WPEXPORTER_CACHE, else /var/cache/wpexporter-build when writable, else
# ~/.cache/wpexporter-build; zig lands in CACHE/zig/VERSION/ (about 80 MB downloaded, 300 MB
# unpacked). A second run finds it there and fetches nothing.
#
# Usage: scripts/release/zig.sh
set -euo pipefail
version=0.14.1   # ziglang on PyPI; its glibc stubs go back to 2.17, its lld links both targets
cache_root() {
    if [[ -n "${WPEXPORTER_CACHE:-}" ]]; then echo "$WPEXPORTER_CACHE"
    elif mkdir -p /var/cache/wpexporter-build 2>/dev/null && [[ -w /var/cache/wpexporter-build ]]; then echo /var/cache/wpexporter-build
    else echo "${XDG_CACHE_HOME:-$HOME/.cache}/wpexporter-build"
    fi
}
folder="$(cache_root)/zig/$version"
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

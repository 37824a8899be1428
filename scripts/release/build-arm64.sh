#!/usr/bin/env bash
# Cross-builds the aarch64 (arm64) release binary and writes it to OUT:
#   swift build -c release --static-swift-stdlib --product wpexporter
# with Swift 6.0.3 chrooted in the Debian trixie root of scripts/release/toolchain.sh (run it
# first), for aarch64-unknown-linux-gnu through that root's destination and sysroot, in its own
# scratch path (.build-arm64 in the clone). The final link is zig's (scripts/release/linker/clang,
# target aarch64-linux-gnu.2.28) with scripts/release/glibc-compat.c, so the binary needs glibc
# 2.28 or newer, zlib's libz.so.1 and no libstdc++ of the system (scripts/release.sh checks it; scripts/release/check-userland.sh runs it).
#
# The clone is bind-mounted at its own path in the root, with its git directory (a worktree's
# too), so Package.swift reads HEAD's commit; the manifest is evaluated afresh
# (--manifest-cache none), and the binary's `version --format json` is checked against HEAD.
#
# Usage: scripts/release/build-arm64.sh OUT
#   WPEXPORTER_CACHE   the toolchain cache (default /var/cache/wpexporter-build)
#   WPEXPORTER_JOBS    parallel compile jobs (default 2)
#   WPEXPORTER_LINKER  `zig` (default) or `lld`: lld links against the sysroot's glibc 2.41
#                      (for comparison only; such a binary is not a release)
#   SOURCE_DATE_EPOCH  passed to the build (the binary's build date), as scripts/release.sh sets it
# Paths of the clone and cache must not contain spaces (they are bind-mounted by name).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/release/lib.sh
source "$here/lib.sh"
cd "$here/../.."
clone="$(pwd -P)"

out="${1:?usage: scripts/release/build-arm64.sh OUT}"
[[ "$out" == /* ]] || out="$clone/$out"
jobs="${WPEXPORTER_JOBS:-2}"
linker="${WPEXPORTER_LINKER:-zig}"
[[ $(id -u) -eq 0 ]] || die "needs root (chroot)"
root="$cache/roots/trixie-amd64"
for marker in "$root.done" "$cache/roots/aarch64-sysroot.done"; do
    [[ -f "$marker" ]] || die "the toolchain is not ready ($marker missing): run scripts/release/toolchain.sh"
done

# The clone and its git directory (outside the clone for a worktree) at their own paths.
binds="$clone:$clone"
common="$(cd "$(git rev-parse --git-common-dir)" && pwd -P)"
gitdir="$(cd "$(git rev-parse --git-dir)" && pwd -P)"
for dir in "$common" "$gitdir"; do
    [[ "$dir/" == "$clone/"* ]] || binds="$binds $dir:$dir"
done
commit="$(git rev-parse HEAD)"

scratch=".build-arm64"
build=(swift build -c release --static-swift-stdlib --product wpexporter --scratch-path "$scratch"
       --destination /opt/aarch64/destination.json -j "$jobs")
environment=()
case "$linker" in
    zig)
        # swiftc links through the `clang` of -tools-directory: scripts/release/linker/clang,
        # which hands the link to zig cc for aarch64-linux-gnu.2.28 (zig from scripts/release/zig.sh,
        # mounted at /opt/zig; the static libraries from the sysroot, toolchain.sh's link-libs).
        zig="$(WPEXPORTER_CACHE="$cache" "$here/zig.sh")"
        libs="$(WPEXPORTER_CACHE="$cache" "$here/zig.sh" --link-libs aarch64-linux-gnu)"
        binds="$binds $(dirname "$zig"):/opt/zig $libs:/opt/link-aarch64"
        build+=(-Xswiftc -tools-directory -Xswiftc "$clone/scripts/release/linker")
        environment=(WPEXPORTER_ZIG=/opt/zig/zig WPEXPORTER_ZIG_TARGET=aarch64-linux-gnu.2.28
                     WPEXPORTER_LINK_LIBS=/opt/link-aarch64)
        ;;
    lld) ;;
    *) die "WPEXPORTER_LINKER is zig or lld, not $linker" ;;
esac
# The build date (__DATE__ and __TIME__ of WPCBuildInfo) follows SOURCE_DATE_EPOCH when set, as
# in scripts/release.sh; the chroot starts with an empty environment otherwise.
[[ -z "${SOURCE_DATE_EPOCH:-}" ]] || environment+=(SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH")

say "cross-building wpexporter for aarch64 ($commit, linker $linker)"
# Swift 6.0's SwiftPM keeps its build description (release.yaml) while no file of the package
# changed, with the commit define of the manifest evaluation that wrote it: without it, the
# description is written afresh from this evaluation (unchanged targets are not rebuilt).
rm -f "$scratch/release.yaml"
# The link is redone every time: SwiftPM does not see a change of the linker or its libraries.
bin="$scratch/aarch64-unknown-linux-gnu/release/wpexporter"
rm -f "$bin"
start=$SECONDS
# shellcheck disable=SC2016  # expanded by the inner sh, from its arguments
IN_ROOT_BINDS="$binds" in_root "$root" /usr/bin/env "${environment[@]}" /bin/sh -c 'cd "$1" && shift && "$@" --manifest-cache none' build "$clone" "${build[@]}"
say "built in $((SECONDS - start)) s"
[[ -x "$bin" ]] || die "no binary at $bin"

# The binary must report HEAD's commit (run through qemu with the sysroot's libraries).
printed="$(qemu-aarch64-static -L "$root/opt/aarch64/sysroot" "$bin" version --format json)" \
    || die "$bin version failed under qemu-aarch64-static"
python3 - "$printed" "$commit" <<'PY' || die "the binary does not report HEAD's commit"
import json, sys
info, commit = json.loads(sys.argv[1]), sys.argv[2]
if info.get("git_commit") != commit:
    sys.exit(f"build-arm64.sh: git_commit {info.get('git_commit')!r}, HEAD is {commit!r}")
PY
mkdir -p "$(dirname "$out")"
install -m 0755 "$bin" "$out"
say "wrote $out ($(file -b "$out" | cut -d, -f1-2))"

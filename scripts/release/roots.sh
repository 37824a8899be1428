#!/usr/bin/env bash
# Prints the path of a Debian bullseye root for ARCH (amd64 or arm64), making it first when the
# cache does not hold it: the older userland the release binaries are checked on
# (scripts/release/check-userland.sh): glibc 2.31, OpenSSL 1.1.1 and no OpenSSL 3, libcurl 4.
#   amd64  debootstrap --variant=minbase, configured as on a real host (about 60 MB fetched);
#   arm64  debootstrap --foreign (no arm64 program needs to run to make it) and every fetched
#          package unpacked: the libraries are in place, unconfigured, which is all a binary
#          run by qemu-aarch64-static inside the root needs (about 45 MB fetched).
# Both hold libssl1.1, libcurl4 and ca-certificates beside the base system. Roots live in
# CACHE/roots/bullseye-ARCH (CACHE as in scripts/release/zig.sh); a finished root is marked,
# so a second run fetches nothing; an unfinished one is made again. The mirror is
# WPEXPORTER_DEBIAN_MIRROR (default http://deb.debian.org/debian).
#
# Usage: scripts/release/roots.sh ARCH       (root: debootstrap and chroot)
set -euo pipefail
arch="${1:?usage: roots.sh amd64|arm64}"
mirror="${WPEXPORTER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cache="$("$(dirname "$0")/zig.sh" --cache-root)"
root="$cache/roots/bullseye-$arch"
marker="$root/.wpexporter-root"
packages=libssl1.1,libcurl4,ca-certificates
if [[ ! -f "$marker" ]]; then
    command -v debootstrap >/dev/null || { echo "roots.sh: debootstrap is not installed (Debian debootstrap)" >&2; exit 1; }
    echo "== making a Debian bullseye $arch root in $root" >&2
    rm -rf "$root"
    mkdir -p "$(dirname "$root")"
    case "$arch" in
        amd64)
            debootstrap --variant=minbase --include="$packages" bullseye "$root" "$mirror" >&2 ;;
        arm64)
            debootstrap --arch=arm64 --foreign --variant=minbase --include="$packages" bullseye "$root" "$mirror" >&2
            for package in "$root"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$package" "$root"; done ;;
        *) echo "roots.sh: unknown architecture $arch (amd64, arm64)" >&2; exit 64 ;;
    esac
    rm -f "$root"/var/cache/apt/archives/*.deb
    echo "bullseye $arch, made $(date -u +%Y-%m-%dT%H:%M:%SZ) from $mirror" >"$marker"
fi
echo "$root"

#!/usr/bin/env bash
# Prints the path of a Debian bullseye root for ARCH (amd64 or arm64), making it first when the
# cache does not hold it: the older userland the release binaries are checked on
# (scripts/release/check-userland.sh): glibc 2.31, OpenSSL 1.1.1 and no OpenSSL 3, libcurl 4.
#   amd64  debootstrap --variant=minbase, configured as on a real host (about 60 MB fetched);
#   arm64  debootstrap --foreign (no arm64 program needs to run to make it) and every fetched
#          package unpacked: the libraries are in place, unconfigured, which is all a binary
#          run by qemu-aarch64-static inside the root needs (about 45 MB fetched).
# Both hold libssl1.1, libcurl4 and ca-certificates beside the base system. Roots live in
# CACHE/roots/bullseye-ARCH (CACHE and the mirror as in scripts/release/lib.sh); a root is made
# aside and moved in with its marker, so a second run fetches nothing and a half-made root is
# never taken for a finished one.
#
# Usage: scripts/release/roots.sh ARCH       (root: debootstrap and chroot)
set -euo pipefail
arch="${1:?usage: roots.sh amd64|arm64}"
# shellcheck source=scripts/release/lib.sh
source "$(dirname "$0")/lib.sh"
root="$cache/roots/bullseye-$arch"
marker="$root/.wpexporter-root"
packages=libssl1.1,libcurl4,ca-certificates
if [[ ! -f "$marker" ]]; then
    command -v debootstrap >/dev/null || die "debootstrap is not installed (Debian debootstrap)"
    say "making a Debian bullseye $arch root in $root"
    partial="$root.partial"
    rm -rf "$partial"
    mkdir -p "$(dirname "$root")"
    case "$arch" in
        amd64)
            debootstrap --variant=minbase --include="$packages" bullseye "$partial" "$mirror" >&2 ;;
        arm64)
            debootstrap --arch=arm64 --foreign --variant=minbase --include="$packages" bullseye "$partial" "$mirror" >&2
            for package in "$partial"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$package" "$partial"; done ;;
        *) die "unknown architecture $arch (amd64, arm64)" ;;
    esac
    rm -f "$partial"/var/cache/apt/archives/*.deb
    echo "bullseye $arch, made $(date -u +%Y-%m-%dT%H:%M:%SZ) from $mirror" >"$partial/.wpexporter-root"
    rm -rf "$root"
    mv "$partial" "$root"
fi
echo "$root"

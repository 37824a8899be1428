# shellcheck shell=bash disable=SC2034  # sourced: sets cache and mirror for its caller
# Helpers shared by scripts/release/toolchain.sh, build-arm64.sh and roots.sh; sourced,
# not run. Needs root (chroot, mount) and util-linux's unshare.
#
# The cache of Debian roots and cross-compilation files lives outside the clone:
#   WPEXPORTER_CACHE, else /var/cache/wpexporter-build when writable, else
#   ~/.cache/wpexporter-build (layout: scripts/release/toolchain.sh).

if [[ -n "${WPEXPORTER_CACHE:-}" ]]; then cache="$WPEXPORTER_CACHE"
elif mkdir -p /var/cache/wpexporter-build 2>/dev/null && [[ -w /var/cache/wpexporter-build ]]; then
    cache=/var/cache/wpexporter-build
else cache="${XDG_CACHE_HOME:-$HOME/.cache}/wpexporter-build"   # without root: zig only
fi
mirror="${WPEXPORTER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

say() { echo "== $*" >&2; }
die() { echo "${0##*/}: $*" >&2; exit 1; }

# in_root ROOT COMMAND...: runs COMMAND chrooted in ROOT with /proc, /dev, /dev/pts and
# /sys mounted and the host's resolv.conf, in a private mount namespace, so every mount
# disappears when the command ends (even when it is killed). Extra bind mounts:
# IN_ROOT_BINDS="HOST_DIR:ROOT_DIR ..." (ROOT_DIR is created inside ROOT).
in_root() {
    local root="$1"; shift
    [[ -d "$root" ]] || die "no root at $root"
    # shellcheck disable=SC2016  # the script is expanded by the inner bash, from its arguments
    unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
        root="$1"; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t sysfs sysfs "$root/sys" 2>/dev/null || true
        for bind in ${IN_ROOT_BINDS:-}; do
            mkdir -p "$root${bind#*:}"
            mount --bind "${bind%%:*}" "$root${bind#*:}"
        done
        cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
    ' in_root "$root" "$@"
}

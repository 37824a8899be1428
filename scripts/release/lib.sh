# Helpers shared by scripts/release/toolchain.sh, build-arm64.sh and check-arm64.sh; sourced,
# not run. Needs root (chroot, mount) and util-linux's unshare.
#
# The cache of Debian roots and cross-compilation files lives outside the clone:
#   ${WPEXPORTER_CACHE:-/var/cache/wpexporter-build} (layout: scripts/release/toolchain.sh).

cache="${WPEXPORTER_CACHE:-/var/cache/wpexporter-build}"
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

# ensure_aarch64_binfmt: arm64 programs in a chroot (debootstrap's second stage, apt's
# maintainer scripts, curl or snmpget in the bullseye arm64 root) run through
# qemu-aarch64-static, which the kernel starts for them once the binfmt_misc entry of the
# qemu-user-static package is registered. Registers it when it is not (a host-wide setting,
# the one qemu-user-static's own postinst makes on a machine that runs systemd-binfmt); the
# F flag opens the interpreter now, so the chroots need no copy of it.
ensure_aarch64_binfmt() {
    local misc=/proc/sys/fs/binfmt_misc conf=/usr/lib/binfmt.d/qemu-aarch64.conf
    command -v qemu-aarch64-static >/dev/null || die "qemu-aarch64-static is missing: apt-get install qemu-user-static"
    [[ -e "$misc/register" ]] || mount -t binfmt_misc binfmt_misc "$misc" \
        || die "cannot mount binfmt_misc at $misc"
    if [[ ! -e "$misc/qemu-aarch64" ]]; then
        [[ -f "$conf" ]] || die "$conf is missing (qemu-user-static)"
        say "registering qemu-aarch64-static with binfmt_misc ($conf)"
        cat "$conf" >"$misc/register"
    fi
    grep -qx enabled "$misc/qemu-aarch64" || die "binfmt_misc entry qemu-aarch64 is disabled"
}

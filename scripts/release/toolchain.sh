#!/usr/bin/env bash
# Prepares what the aarch64 release build (scripts/release/build-arm64.sh) needs, in a cache
# folder outside the clone (the bullseye roots the binaries are checked on are
# scripts/release/roots.sh's):
#
#   ${WPEXPORTER_CACHE:-/var/cache/wpexporter-build}/
#     roots/trixie-amd64/            Debian trixie amd64 (debootstrap minbase) with swiftlang
#                                    (Swift 6.0.3) and lld: the build runs chrooted in it
#       opt/aarch64/sysroot/         the aarch64 sysroot: trixie arm64 libc6-dev, libgcc,
#                                    libstdc++ and zlib, and swiftlang arm64's Swift modules
#                                    and static stdlib (usr/libexec/swift/lib/swift_static)
#       opt/aarch64/destination.json the SwiftPM destination for aarch64-unknown-linux-gnu
#                                    (`swift build --destination`), paths as seen in the root
#     zig/VERSION/                   zig (scripts/release/zig.sh): the final link, against glibc 2.28
#     link/aarch64-linux-gnu/        the sysroot's libstdc++.a, libgcc_eh.a and libz.so for
#                                    scripts/release/linker/clang (`zig.sh --link-libs`)
#     debs/trixie-arm64/             the arm64 .debs the sysroot was made of
#     roots/NAME.done, ...           completion markers: a step whose marker exists is skipped,
#                                    so a second run downloads nothing
#
# Usage: scripts/release/toolchain.sh [trixie] [sysroot] [zig]
#   with no argument (or `all`): the three, what build-arm64.sh needs.
# Prints the cache folder. Needs root and debootstrap. Network: the
# Debian mirror (WPEXPORTER_DEBIAN_MIRROR, default deb.debian.org) and PyPI (zig).
# A root in use is chrooted into with /proc and /dev mounted (lib.sh's in_root).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/release/lib.sh
source "$here/lib.sh"

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"

steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(trixie sysroot zig)
expanded=()
for step in "${steps[@]}"; do
    case "$step" in
        all) expanded+=(trixie sysroot zig) ;;
        trixie|sysroot|zig) expanded+=("$step") ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown step $step (see --help)" ;;
    esac
done

mkdir -p "$cache/roots" "$cache/debs"
trixie="$cache/roots/trixie-amd64"

# --- (a) trixie amd64 with Swift 6.0.3 --------------------------------------------------------
step_trixie() {
    if [[ -f "$trixie.done" ]]; then say "trixie-amd64: present ($trixie)"; return; fi
    # The root itself, then swiftlang with apt (it needs the root's own dependency resolution).
    if [[ ! -f "$trixie.base.done" ]]; then
        rm -rf "$trixie"
        say "trixie-amd64: debootstrap --variant=minbase trixie"
        debootstrap --variant=minbase --include=ca-certificates trixie "$trixie" "$mirror"
        echo "deb $mirror trixie main" >"$trixie/etc/apt/sources.list"
        touch "$trixie.base.done"
    fi
    local start=$SECONDS
    say "trixie-amd64: apt-get install swiftlang lld (about 440 MB)"
    in_root "$trixie" apt-get update -q
    in_root "$trixie" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends swiftlang lld binutils file \
        libc6-dev libstdc++-14-dev zlib1g-dev
    in_root "$trixie" apt-get clean
    in_root "$trixie" swift --version
    touch "$trixie.done"
    say "trixie-amd64: swiftlang installed in $((SECONDS - start)) s"
}

# --- (b, c) the aarch64 sysroot and its destination ------------------------------------------
# Trixie arm64 packages that make the sysroot: the C library and headers, the GCC runtime and
# libstdc++ (the Swift runtime is C++), zlib (WPCZlib), the kernel headers (linux-libc-dev, one
# package for every architecture since trixie), and swiftlang itself for the aarch64
# Swift modules and static stdlib. Versions are those of the root's apt (the same snapshot of
# trixie as its swiftlang amd64).
sysroot_packages=(libc6 libc6-dev libgcc-s1 libgcc-14-dev libstdc++6 libstdc++-14-dev
                  libatomic1 zlib1g zlib1g-dev libcrypt1 libcrypt-dev swiftlang)

step_sysroot() {
    local dir="$trixie/opt/aarch64" debs="$cache/debs/trixie-arm64"
    [[ -f "$trixie.done" ]] || die "the trixie root is not ready (run the trixie step)"
    if [[ -f "$cache/roots/aarch64-sysroot.done" ]]; then say "aarch64 sysroot: present ($dir)"; return; fi
    local start=$SECONDS
    if [[ ! -f "$debs.done" ]]; then
        say "aarch64 sysroot: apt-get download ${sysroot_packages[*]} (arm64, about 400 MB)"
        in_root "$trixie" dpkg --add-architecture arm64
        in_root "$trixie" apt-get update -q
        rm -rf "$debs"; mkdir -p "$debs"
        IN_ROOT_BINDS="$debs:/tmp/debs" in_root "$trixie" /bin/sh -c \
            "cd /tmp/debs && apt-get download $(printf '%s:arm64 ' "${sysroot_packages[@]}") linux-libc-dev"
        touch "$debs.done"
    fi
    rm -rf "$dir"; mkdir -p "$dir/sysroot"
    local deb
    for deb in "$debs"/*.deb; do
        dpkg-deb -x "$deb" "$dir/sysroot"
    done
    # Debian's swiftlang keeps its resources in usr/libexec/swift/lib/swift and swift_static
    # (found here by the static stdlib's link arguments). The destination's resource folder is
    # swift_static: with an explicit -resource-dir, Swift 6.0's driver links with that folder's
    # static-stdlib-args.lnk and libraries, so it is for static-stdlib builds only.
    local lnk swift_lib
    lnk="$(cd "$dir/sysroot" && find usr -path '*/swift_static/linux/static-stdlib-args.lnk' | head -n 1)"
    [[ -n "$lnk" ]] || die "no static Swift stdlib (swift_static/linux/static-stdlib-args.lnk) in swiftlang arm64"
    swift_lib="/${lnk%/swift_static/linux/static-stdlib-args.lnk}/swift"
    [[ -d "$dir/sysroot$swift_lib/linux" ]] || die "no Swift modules for linux in swiftlang arm64 ($swift_lib/linux)"
    # Absolute symlinks (libc's, the toolchain's) are made relative, so they resolve inside the
    # sysroot wherever it is seen from.
    local link target
    while IFS= read -r link; do
        target="$(readlink "$link")"
        [[ "$target" == /* ]] || continue
        ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$dir/sysroot$target")" "$link"
    done < <(find "$dir/sysroot" -type l)
    # Merged /usr: the program interpreter is /lib/ld-linux-aarch64.so.1 (qemu-aarch64-static -L).
    [[ -e "$dir/sysroot/lib" ]] || ln -s usr/lib "$dir/sysroot/lib"
    cat >"$dir/destination.json" <<JSON
{
  "version": 1,
  "sdk": "/opt/aarch64/sysroot",
  "toolchain-bin-dir": "/usr/bin",
  "target": "aarch64-unknown-linux-gnu",
  "extra-cc-flags": [],
  "extra-swiftc-flags": [
    "-use-ld=lld",
    "-sdk", "/opt/aarch64/sysroot",
    "-resource-dir", "/opt/aarch64/sysroot${swift_lib}_static",
    "-Xclang-linker", "--gcc-toolchain=/opt/aarch64/sysroot/usr"
  ],
  "extra-cpp-flags": []
}
JSON
    touch "$cache/roots/aarch64-sysroot.done"
    say "aarch64 sysroot: done in $((SECONDS - start)) s ($(du -sh "$dir" | cut -f1))"
}

# What the release link (scripts/release/linker/clang) takes from the target besides zig's glibc
# stubs, where `scripts/release/zig.sh --link-libs aarch64-linux-gnu` finds it: the sysroot's
# static libstdc++ and libgcc_eh, and zlib's shared library (linked by soname, libz.so.1).
# Copies, not links: build-arm64.sh mounts the folder in the root (it also holds zig's cache).
step_link_libs() {
    local sysroot="$trixie/opt/aarch64/sysroot" libs="$cache/link/aarch64-linux-gnu" lib found
    [[ -f "$cache/roots/aarch64-sysroot.done" ]] || die "the aarch64 sysroot is not ready (run the sysroot step)"
    mkdir -p "$libs"
    for lib in libstdc++.a libgcc_eh.a libz.so; do
        [[ -f "$libs/$lib" ]] && continue
        found="$(cd "$sysroot" && find usr/lib -name "$lib" | sort | tail -n 1)"
        [[ -n "$found" ]] || die "the aarch64 sysroot has no $lib"
        cp -L "$sysroot/$found" "$libs/$lib"
    done
    say "aarch64 link libraries: present ($libs)"
}

# --- zig, for the final link against glibc 2.28 ----------------------------------------------
# scripts/release/zig.sh keeps it in CACHE/zig/VERSION (build-arm64.sh mounts it in the root).
step_zig() {
    WPEXPORTER_CACHE="$cache" "$here/zig.sh" >/dev/null
    say "zig: present ($cache/zig)"
}

for step in "${expanded[@]}"; do
    case "$step" in
        trixie) step_trixie ;;
        sysroot) step_sysroot; step_link_libs ;;
        zig) step_zig ;;
    esac
done
echo "$cache"

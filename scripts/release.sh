#!/usr/bin/env bash
# Builds the release artifacts into one folder (dist/ unless --out DIR), for x86_64 (amd64) and
# aarch64 (arm64):
#   wpexporter-VERSION.linux-ARCH.tar.gz  the static-stdlib binary (stripped), LICENSE,
#                                         README.md, CHANGELOG.md, docs/ (English and Chinese
#                                         pages), the example configuration,
#                                         the deploy/ files an operator needs, the man page and
#                                         the bash completion;
#   wpexporter_VERSION_ARCH.deb           the same binary in /usr/bin, the hardened unit (ExecStart
#                                         /usr/bin/wpexporter), /etc/winpower-exporter/config.yaml
#                                         as a conffile, man page, bash completion, docs, copyright;
#   wpexporter-VERSION-1.RPMARCH.rpm      the same for EL-family systems (x86_64, aarch64): a
#                                         system user from sysusers.d (and %pre for systems whose
#                                         rpm does not apply it), /var/lib/wpexporter from
#                                         tmpfiles.d, the unit, %config(noreplace) config.yaml;
#   SHA256SUMS                            for all of them, checked with `sha256sum -c SHA256SUMS`.
#
# Every binary needs glibc 2.28 or older and no libstdc++ (docs/deployment.md, "Supported
# systems"): the host's Swift builds it with --static-swift-stdlib and links it through
# scripts/release/linker/clang (zig's glibc 2.28 stubs, libstdc++ and zlib static). The arm64
# binary is cross-built with Debian trixie's Swift 6.0.3 (scripts/release/build-arm64.sh). The
# release stops when a binary needs a newer glibc symbol, a GLIBCXX/CXXABI version or a shared
# library beyond libc, libm, libpthread and libdl.
#
# VERSION is CHANGELOG.md's latest release and the first 12 digits of the commit:
# 0.1.0+g0123456789ab. The binary carries both (`wpexporter version --format json`: version and
# git_commit); the script stops unless they are the CHANGELOG's release and HEAD, so the
# artifacts' version and the binary's are the same.
#
# Usage: scripts/release.sh [--arch LIST] [--skip-build BIN] [--out DIR] [--allow-dirty]
#   --arch LIST       the architectures, comma-separated (default amd64,arm64)
#   --skip-build BIN  package BIN (or $WPEXPORTER_RELEASE_BIN) as the amd64 binary instead of
#                     building it; it must still be a build of HEAD that passes the checks above
#   --out DIR         output folder, emptied first (default dist)
#   --allow-dirty     package a working tree with uncommitted changes to tracked files
# Run from a clean clone with no arguments, on an amd64 host, as root for arm64 (its toolchain
# lives in a chroot). The amd64 build is
#   swift build -c release --static-swift-stdlib --product wpexporter
# with the linker above, in its own scratch path (.build-release), the manifest evaluated
# afresh so the commit is HEAD's. Downloads (zig from PyPI, the arm64 toolchain from Debian) are
# cached outside the clone (scripts/release/zig.sh, scripts/release/toolchain.sh). Needs git,
# python3, binutils (readelf), dpkg-deb, rpmbuild (Debian rpm); lintian and rpmlint run when
# installed (scripts/check-release.sh installs and requires them).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

bin="${WPEXPORTER_RELEASE_BIN:-}"
out="dist"
allow_dirty=""
arch_list="amd64,arm64"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --arch) arch_list="${2:?--arch needs a list}"; shift 2 ;;
        --skip-build) bin="${2:?--skip-build needs a binary}"; shift 2 ;;
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        --allow-dirty) allow_dirty=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "release.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done
fail() { echo "release.sh: $*" >&2; exit 1; }
IFS=',' read -r -a archs <<<"$arch_list"
for arch in "${archs[@]}"; do
    [[ "$arch" == amd64 || "$arch" == arm64 ]] || fail "unknown architecture $arch (amd64, arm64)"
done
[[ "$(dpkg --print-architecture)" == amd64 ]] || fail "release builds run on an amd64 host"
[[ -f LICENSE ]] || fail "LICENSE is missing"
# The documentation every package carries: every page of docs/, English and Chinese, and the
# screenshots of docs/images the pages show.
mapfile -t doc_pages < <(git ls-files 'docs/*.md' 'docs/images/*.png')
[[ ${#doc_pages[@]} -gt 0 ]] || fail "docs/ has no pages"

# --- version ---------------------------------------------------------------------------------
release="$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)"
[[ -n "$release" ]] || fail "CHANGELOG.md has no '## [x.y.z]' release heading"
commit="$(git rev-parse HEAD)"
if [[ -z "$allow_dirty" ]] && [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    fail "tracked files have uncommitted changes; commit them (the binary records HEAD) or pass --allow-dirty"
fi
version="$release+g${commit:0:12}"
source_date_epoch="$(git log -1 --format=%ct)"
export SOURCE_DATE_EPOCH="$source_date_epoch"
echo "== wpexporter $version (${archs[*]})"

[[ "$out" == /* ]] || out="$root/$out"
rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- the binaries ----------------------------------------------------------------------------
glibc_ceiling=2.28
toolchain_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
objcopy="$toolchain_bin/llvm-objcopy"
[[ -x "$objcopy" ]] || objcopy="$(command -v llvm-objcopy || true)"
[[ -n "$objcopy" ]] || fail "llvm-objcopy (the Swift toolchain's) is needed to strip the binaries"

build_amd64() {  # build_amd64 OUT: the x86_64 binary, linked for glibc 2.28
    local zig libs
    zig="$(scripts/release/zig.sh)"
    libs="$(scripts/release/zig.sh --link-libs x86_64-linux-gnu)"
    echo "== swift build -c release --static-swift-stdlib --product wpexporter (x86_64, glibc $glibc_ceiling)"
    local build=(swift build -c release --static-swift-stdlib --product wpexporter --scratch-path .build-release
                 -Xswiftc -tools-directory -Xswiftc "$root/scripts/release/linker")
    # --manifest-cache none: Package.swift reads the commit from .git; a cached manifest would
    # keep the commit of an earlier build.
    # The link is redone every time: SwiftPM does not see a change of the linker or its libraries.
    rm -f "$("${build[@]}" --show-bin-path)/wpexporter"
    WPEXPORTER_ZIG="$zig" WPEXPORTER_ZIG_TARGET="x86_64-linux-gnu.$glibc_ceiling" WPEXPORTER_LINK_LIBS="$libs" \
        "${build[@]}" --manifest-cache none
    cp "$("${build[@]}" --show-bin-path)/wpexporter" "$1"
}

check_binary() {  # check_binary ARCH FILE: the machine, glibc ceiling, libraries and commit
    local arch=$1 file=$2 machine highest needed
    machine="$(readelf -h "$file" | sed -n 's/^ *Machine: *//p')"
    case "$arch" in
        amd64) [[ "$machine" == *X86-64* ]] || fail "$file is $machine, not x86-64" ;;
        arm64) [[ "$machine" == *AArch64* ]] || fail "$file is $machine, not AArch64" ;;
    esac
    if readelf -V "$file" | grep -oE 'Name: (GLIBCXX|CXXABI)_[0-9.]+'; then
        fail "$file needs the libstdc++ versions above; it must link libstdc++ statically"
    fi
    highest="$(readelf -V "$file" | grep -oE 'Name: GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?' | sed 's/^Name: GLIBC_//' | sort -V | tail -n 1)"
    [[ -n "$highest" ]] || fail "$file names no glibc version"
    [[ "$(printf '%s\n%s\n' "$highest" "$glibc_ceiling" | sort -V | tail -n 1)" == "$glibc_ceiling" ]] \
        || fail "$file needs GLIBC_$highest; releases need $glibc_ceiling or older"
    needed="$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
    for library in $needed; do
        case "$library" in
            libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|libz.so.1|ld-linux-*) ;;
            *) fail "$file needs $library; releases need only glibc's libraries and zlib (needed: $needed)" ;;
        esac
    done
    grep -qaF "$commit" "$file" || fail "$file is not a build of HEAD ($commit): rebuild without --skip-build"
    echo "$arch binary: $machine, highest symbol version GLIBC_$highest, needs $needed"
}

declare -A binaries=() ceilings=() zlib_ceilings=()
for arch in "${archs[@]}"; do
    unstripped="$work/wpexporter-$arch.unstripped"
    if [[ "$arch" == amd64 && -n "$bin" ]]; then
        [[ -x "$bin" ]] || fail "$bin is not an executable"
        cp "$bin" "$unstripped"
    elif [[ "$arch" == amd64 ]]; then
        build_amd64 "$unstripped"
    else
        scripts/release/toolchain.sh >/dev/null
        scripts/release/build-arm64.sh "$unstripped"
    fi
    check_binary "$arch" "$unstripped"
    mkdir -p "$work/$arch"
    "$objcopy" --strip-all --remove-section=.comment "$unstripped" "$work/$arch/wpexporter"
    chmod 0755 "$work/$arch/wpexporter"
    binaries[$arch]="$work/$arch/wpexporter"
    ceilings[$arch]="$(readelf -V "$unstripped" | grep -oE 'Name: GLIBC_[0-9.]+' | sed 's/^Name: GLIBC_//' | sort -V | tail -n 1)"
    zlib_ceilings[$arch]="$(readelf -V "$unstripped" | { grep -oE 'Name: ZLIB_[0-9.]+' || true; } | sed 's/^Name: ZLIB_//' | sort -V | tail -n 1)"
    zlib_ceilings[$arch]="${zlib_ceilings[$arch]:-1.2.0}"
done

# The amd64 binary runs here: it must be this release's (the CHANGELOG's version and HEAD's
# commit), and it writes the man page and the completion for every architecture.
binary="$work/host/wpexporter"
mkdir -p "$work/host"
if [[ -n "${binaries[amd64]:-}" ]]; then
    cp "${binaries[amd64]}" "$binary"
else
    echo "== the amd64 binary, for the man page and the completion"
    build_amd64 "$work/host/unstripped"
    "$objcopy" --strip-all "$work/host/unstripped" "$binary"
fi
printed="$("$binary" version --format json)" || fail "$binary version failed"
python3 - "$printed" "$release" "$commit" <<'PY' || fail "the binary is not a build of this release and commit (rebuild without --skip-build)"
import json, sys
info, release, commit = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
problems = []
if info.get("version") != release:
    problems.append(f"version {info.get('version')!r}, CHANGELOG.md's release is {release!r}")
if info.get("git_commit") != commit:
    problems.append(f"git_commit {info.get('git_commit')!r}, HEAD is {commit!r}")
for problem in problems:
    print("release.sh: the binary's " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
"$binary" version >/dev/null || fail "the stripped binary does not run"

# --- man page and completion, from the binary's own help -------------------------------------
# The commands are those of `wpexporter --help`; each page is `wpexporter help COMMAND`, the
# text `wpexporter COMMAND --help` prints.
"$binary" --help >"$work/help-overview.txt"
mapfile -t commands < <(sed -n '/^Commands:/,/^$/p' "$work/help-overview.txt" | awk 'NF && !/^Commands:/ {print $1}')
[[ ${#commands[@]} -ge 5 ]] || fail "could not read the commands from wpexporter --help"
for command in "${commands[@]}"; do
    "$binary" help "$command" >"$work/help-$command.txt"
done
"$binary" help configuration >"$work/help-configuration.txt"

roff_text() {  # preformatted help text as roff: backslashes, leading dots and quotes, minus signs
    sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}
release_date="$(date -u -d "@$source_date_epoch" +%Y-%m-%d)"
{
    echo ".TH WPEXPORTER 1 \"$release_date\" \"wpexporter $version\" \"User Commands\""
    cat <<'ROFF'
.SH NAME
wpexporter \- Prometheus exporter for WinPower G2 UPS management servers
.SH SYNOPSIS
.B wpexporter
.I command
[\fIflags\fR]
.SH DESCRIPTION
The text below is the program's own help, as printed by
.B wpexporter \-\-help
and
.BR "wpexporter \fIcommand\fP \-\-help" .
.PP
ROFF
    echo ".nf"
    roff_text <"$work/help-overview.txt"
    echo ".fi"
    echo ".SH COMMANDS"
    for command in "${commands[@]}"; do
        echo ".SS $command"
        echo ".nf"
        roff_text <"$work/help-$command.txt"
        echo ".fi"
    done
    echo ".SH CONFIGURATION"
    echo ".nf"
    roff_text <"$work/help-configuration.txt"
    echo ".fi"
    cat <<'ROFF'
.SH FILES
.TP
.I /etc/winpower-exporter/config.yaml
The configuration file, found without \fB\-c\fR.
.TP
.I /etc/winpower-exporter/password
The WinPower password (mode 600), handed to the service by the systemd unit.
.TP
.I /var/lib/wpexporter
The energy totals of the systemd service (storage.data_dir).
.SH SEE ALSO
.BR systemctl (1),
.BR systemd.exec (5)
.PP
The documentation in /usr/share/doc/wpexporter.
ROFF
} >"$work/wpexporter.1"
if command -v man >/dev/null 2>&1; then
    # groff's warnings are what lintian reports as groff-message; none are allowed.
    warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$work/wpexporter.1" 2>&1 >/dev/null)" || true
    [[ -z "$warnings" ]] || fail "the man page has groff warnings: $warnings"
fi

# Bash completion: the commands, and each command's flags from its help page; the commands that
# read the configuration also complete every --SECTION.KEY of `wpexporter help configuration`.
key_flags="$(sed -n 's/^    flag //p' "$work/help-configuration.txt" | tr -d ',' | tr ' ' '\n' | grep '^--' | sort -u | tr '\n' ' ')"
{
    echo "# bash completion for wpexporter, generated by scripts/release.sh from its --help pages."
    echo "_wpexporter() {"
    echo "    local cur command i"
    echo "    cur=\"\${COMP_WORDS[COMP_CWORD]}\""
    echo "    command=\"\""
    echo "    for ((i = 1; i < COMP_CWORD; i++)); do"
    echo "        case \"\${COMP_WORDS[i]}\" in -*) ;; *) command=\"\${COMP_WORDS[i]}\"; break ;; esac"
    echo "    done"
    echo "    local words"
    echo "    case \"\$command\" in"
    echo "        \"\") words=\"${commands[*]} --help\" ;;"
    for command in "${commands[@]}"; do
        flags="$(grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z0-9._-]*' "$work/help-$command.txt" | sed 's/,//' | tr -s ' ' '\n' || true)"
        case "$command" in
            help) flags="${commands[*]} configuration" ;;
            server|demo|check-config|healthcheck) flags="$flags $key_flags" ;;
        esac
        flags="$(printf '%s\n' "$flags" | tr ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' ')"
        echo "        $command) words=\"${flags% }\" ;;"
    done
    echo "        *) words=\"\" ;;"
    echo "    esac"
    echo "    case \"\${COMP_WORDS[COMP_CWORD-1]}\" in"
    echo "        -c|--config|--web.config.file|--data-dir|--*_file|--*.data_dir) COMPREPLY=(\$(compgen -f -- \"\$cur\")); return ;;"
    echo "    esac"
    echo "    COMPREPLY=(\$(compgen -W \"\$words\" -- \"\$cur\"))"
    echo "}"
    echo "complete -F _wpexporter wpexporter"
} >"$work/wpexporter.bash"
bash -n "$work/wpexporter.bash" || fail "the generated completion is not valid bash"

# --- packages, one set per architecture ------------------------------------------------------
# The tarball and the .deb of one architecture (ARCH, the binary in binaries[ARCH]).
package_deb_and_tarball() {
local deb_arch=$1
local binary="${binaries[$1]}"
local tree deb doc depends installed_size
# --- the tarball -----------------------------------------------------------------------------
tar_name="wpexporter-$version.linux-$deb_arch"
tree="$work/$tar_name"
mkdir -p "$tree"
install -m 0755 "$binary" "$tree/wpexporter"
install -m 0644 LICENSE "$tree/LICENSE"
install -m 0644 README.md README.zh-CN.md CHANGELOG.md "$tree/"
for page in "${doc_pages[@]}"; do install -D -m 0644 "$page" "$tree/$page"; done
install -m 0644 deploy/systemd/config.yaml "$tree/config.yaml"
install -D -m 0644 deploy/systemd/wpexporter.service "$tree/deploy/systemd/wpexporter.service"
for dir in deploy/prometheus deploy/alertmanager deploy/grafana; do
    while IFS= read -r file; do
        install -D -m 0644 "$file" "$tree/$file"
    done < <(git ls-files "$dir")
done
install -D -m 0644 "$work/wpexporter.1" "$tree/man/wpexporter.1"
install -D -m 0644 "$work/wpexporter.bash" "$tree/completions/wpexporter.bash"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$source_date_epoch" \
    -C "$work" -cf - "$tar_name" | gzip -9n >"$out/$tar_name.tar.gz"

# --- the Debian package ----------------------------------------------------------------------
deb="$work/deb-$deb_arch"
install -D -m 0755 "$binary" "$deb/usr/bin/wpexporter"
# The unit with ExecStart at /usr/bin; its install comment is replaced by the package's.
install -d -m 0755 "$deb/lib/systemd/system"
awk '
    /^# Install \(/ { skipping = 1
        print "# Installed by the wpexporter package. Edit /etc/winpower-exporter/config.yaml, then:"
        print "#   install -m 0600 /dev/stdin /etc/winpower-exporter/password <<<\047the-password\047"
        print "#   systemctl enable --now wpexporter"
        next }
    skipping && /^#$/ { skipping = 0 }
    !skipping { gsub("/usr/local/bin/wpexporter", "/usr/bin/wpexporter"); print }
' deploy/systemd/wpexporter.service >"$deb/lib/systemd/system/wpexporter.service"
chmod 0644 "$deb/lib/systemd/system/wpexporter.service"
grep -qx 'ExecStart=/usr/bin/wpexporter server --config /etc/winpower-exporter/config.yaml' \
    "$deb/lib/systemd/system/wpexporter.service" || fail "the packaged unit's ExecStart is not /usr/bin/wpexporter"
install -D -m 0644 deploy/systemd/config.yaml "$deb/etc/winpower-exporter/config.yaml"
install -d -m 0755 "$deb/usr/share/man/man1"
gzip -9n <"$work/wpexporter.1" >"$deb/usr/share/man/man1/wpexporter.1.gz"
install -D -m 0644 "$work/wpexporter.bash" "$deb/usr/share/bash-completion/completions/wpexporter"
doc="$deb/usr/share/doc/wpexporter"
install -d -m 0755 "$doc"
gzip -9n <CHANGELOG.md >"$doc/changelog.gz"
install -m 0644 README.md README.zh-CN.md "$doc/"
# Every page of docs/, English and Chinese: docs/X.md as X.md, docs/zh-CN/X.md as zh-CN/X.md.
for page in "${doc_pages[@]}"; do install -D -m 0644 "$page" "$doc/${page#docs/}"; done
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: wpexporter"
    echo "Upstream-Contact: $maintainer"
    echo ""
    echo "Files: *"
    echo "Copyright: $(date -u -d "@$source_date_epoch" +%Y) the wpexporter authors"
    echo "License: Expat"
    echo ""
    echo "License: Expat"
    # LICENSE's text after its title and copyright line, as copyright-format 1.0 indents it.
    sed -n '/^Permission is hereby granted/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
} >"$doc/copyright"
# A native package (no Debian revision): the version is the binary's. Its Debian changelog is
# one generated entry; the project's changelog is changelog.gz.
{
    echo "wpexporter ($version) unstable; urgency=medium"
    echo ""
    echo "  * Release $version, built from commit"
    echo "    $commit."
    echo "    The changes are in /usr/share/doc/wpexporter/changelog.gz."
    echo ""
    echo " -- $maintainer  $(date -u -R -d "@$source_date_epoch")"
} | gzip -9n >"$doc/changelog.Debian.gz"
# The binary needs glibc's libraries and zlib only (checked above), at the highest versions it
# names (zlib's symbol versions are its release numbers: ZLIB_1.2.9 is zlib 1.2.9).
# libsqlite3-0: the history database (history.db), loaded at run time; without it the
# exporter serves everything else and says the history is off.
depends="libc6 (>= ${ceilings[$deb_arch]}), zlib1g (>= 1:${zlib_ceilings[$deb_arch]}), libsqlite3-0"
installed_size="$(du -sk --exclude=DEBIAN "$deb" | cut -f1)"
install -d -m 0755 "$deb/DEBIAN"
cat >"$deb/DEBIAN/control" <<CONTROL
Package: wpexporter
Version: $version
Architecture: $deb_arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: ca-certificates, libcurl4, libssl3 | libssl1.1
Section: net
Priority: optional
Description: Prometheus exporter for WinPower G2 UPS management servers
 wpexporter logs in to a WinPower G2 server, reads every UPS it manages and
 serves their readings, alarms and cumulative energy as Prometheus metrics,
 and optionally over the Network UPS Tools protocol.
 .
 The package installs a hardened systemd unit (not enabled): edit
 /etc/winpower-exporter/config.yaml, write the WinPower password to
 /etc/winpower-exporter/password, then enable wpexporter.service.
 libcurl is loaded only for https:// requests, OpenSSL (3 or 1.1) only for a
 TLS listener or SNMPv3, libsqlite3 for the history of each UPS (history.db).
CONTROL
echo "/etc/winpower-exporter/config.yaml" >"$deb/DEBIAN/conffiles"
# systemd, as dh_installsystemd does it: reload the units after install and removal, restart a
# running service after an upgrade and stop it before removal (deb-systemd-invoke acts only on
# an enabled unit). The unit is not enabled: it needs the WinPower URL, user and password first.
cat >"$deb/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = "configure" ] && [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
    if [ -n "$2" ] && command -v deb-systemd-invoke >/dev/null; then
        deb-systemd-invoke restart wpexporter.service >/dev/null || true
    fi
fi
SCRIPT
cat >"$deb/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = "remove" ] && [ -d /run/systemd/system ] && command -v deb-systemd-invoke >/dev/null; then
    deb-systemd-invoke stop wpexporter.service >/dev/null || true
fi
SCRIPT
cat >"$deb/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
SCRIPT
chmod 0755 "$deb/DEBIAN/postinst" "$deb/DEBIAN/prerm" "$deb/DEBIAN/postrm"
(cd "$deb" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
deb_name="wpexporter_${version}_$deb_arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$deb" "$out/$deb_name" >/dev/null
}

# The .rpm of one architecture (ARCH, the binary in binaries[ARCH]) for the EL family (RHEL,
# Rocky, Alma, openEuler, Kylin, UOS): rpmbuild packages the files staged here, nothing is
# compiled. Unlike the .deb's unit, the service runs as a static system user, `wpexporter`
# (sysusers.d, and %pre for rpm releases that do not apply sysusers.d themselves), and reads the
# password file directly (root:wpexporter, mode 0640): LoadCredential and %d need systemd 247,
# and EL8 and Kylin V10 have 239 and 243 (docs/deployment.md).
package_rpm() {
local deb_arch=$1 rpm_arch
local binary="${binaries[$1]}"
case "$deb_arch" in amd64) rpm_arch=x86_64 ;; arm64) rpm_arch=aarch64 ;; esac
local stage="$work/rpm-$rpm_arch/stage" top="$work/rpm-$rpm_arch/top"
mkdir -p "$stage" "$top"
install -D -m 0755 "$binary" "$stage/usr/bin/wpexporter"
install -d -m 0755 "$stage/usr/lib/systemd/system"
{
    echo "# wpexporter as a hardened systemd service, installed by the wpexporter RPM."
    echo "# Edit /etc/winpower-exporter/config.yaml, write the WinPower password, then enable it:"
    echo "#   install -m 0640 -g wpexporter /dev/stdin /etc/winpower-exporter/password <<<'the-password'"
    echo "#   systemctl enable --now wpexporter"
    echo "# The service runs as the system user wpexporter, which may read that file; its energy"
    echo "# totals are in /var/lib/wpexporter."
    awk '
        /^\[Unit\]/ { started = 1 }
        !started { next }
        /^LoadCredential=/ { next }
        /^Environment=WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE=/ {
            print "Environment=WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE=/etc/winpower-exporter/password"; next }
        /^DynamicUser=yes$/ { print "User=wpexporter"; print "Group=wpexporter"; next }
        { gsub("/usr/local/bin/wpexporter", "/usr/bin/wpexporter"); print }
    ' deploy/systemd/wpexporter.service
} >"$stage/usr/lib/systemd/system/wpexporter.service"
chmod 0644 "$stage/usr/lib/systemd/system/wpexporter.service"
grep -qx 'User=wpexporter' "$stage/usr/lib/systemd/system/wpexporter.service" || fail "the RPM's unit has no User=wpexporter"
grep -q 'LoadCredential\|%d' "$stage/usr/lib/systemd/system/wpexporter.service" && fail "the RPM's unit still uses LoadCredential"
install -D -m 0644 deploy/systemd/config.yaml "$stage/etc/winpower-exporter/config.yaml"
install -D -m 0644 /dev/stdin "$stage/usr/lib/sysusers.d/wpexporter.conf" <<'SYSUSERS'
# The system user of wpexporter.service (the wpexporter RPM).
u wpexporter - "wpexporter, Prometheus exporter for WinPower G2" /var/lib/wpexporter /sbin/nologin
SYSUSERS
install -D -m 0644 /dev/stdin "$stage/usr/lib/tmpfiles.d/wpexporter.conf" <<'TMPFILES'
# The data directory of wpexporter.service (the wpexporter RPM): energy totals, outage ledger.
d /var/lib/wpexporter 0750 wpexporter wpexporter -
TMPFILES
install -d -m 0755 "$stage/usr/share/man/man1"
gzip -9n <"$work/wpexporter.1" >"$stage/usr/share/man/man1/wpexporter.1.gz"
install -D -m 0644 "$work/wpexporter.bash" "$stage/usr/share/bash-completion/completions/wpexporter"
local docs=(README.md README.zh-CN.md CHANGELOG.md "${doc_pages[@]}")
local rpm_version="${version//-/_}"
cat >"$top/wpexporter.spec" <<SPEC
Name:           wpexporter
Version:        $rpm_version
Release:        1
Summary:        Prometheus exporter for WinPower G2 UPS management servers
License:        MIT
Group:          System Environment/Daemons
Packager:       $maintainer
Requires(pre):  shadow-utils
Requires:       libsqlite3.so.0()(64bit)
Recommends:     ca-certificates
Recommends:     libcurl
Recommends:     openssl-libs

%description
wpexporter logs in to a WinPower G2 server, reads every UPS it manages and
serves their readings, alarms and cumulative energy as Prometheus metrics,
and optionally over the Network UPS Tools protocol and SNMP.

The package installs a hardened systemd unit (not enabled) running as the
system user wpexporter: edit /etc/winpower-exporter/config.yaml, write the
WinPower password to /etc/winpower-exporter/password (mode 0640, group
wpexporter), then enable wpexporter.service. libcurl is loaded only for
https:// requests, OpenSSL (3 or 1.1) only for a TLS listener or SNMPv3,
libsqlite3 for the history of each UPS (history.db).

%prep
%build

%install
cp -a "$stage/." %{buildroot}/
install -D -m 0644 "$root/LICENSE" %{buildroot}%{_datadir}/licenses/%{name}/LICENSE
$(for doc in "${docs[@]}"; do echo "install -D -m 0644 \"$root/$doc\" %{buildroot}%{_docdir}/%{name}/${doc#docs/}"; done)

%pre
getent group wpexporter >/dev/null || groupadd -r wpexporter
getent passwd wpexporter >/dev/null || useradd -r -g wpexporter -d /var/lib/wpexporter -s /sbin/nologin \\
    -c "wpexporter, Prometheus exporter for WinPower G2" wpexporter
exit 0

%post
if [ -d /run/systemd/system ]; then
    systemd-tmpfiles --create /usr/lib/tmpfiles.d/wpexporter.conf >/dev/null 2>&1 || :
    systemctl daemon-reload >/dev/null 2>&1 || :
fi

%preun
if [ \$1 -eq 0 ] && [ -d /run/systemd/system ]; then
    systemctl --no-reload disable --now wpexporter.service >/dev/null 2>&1 || :
fi

%postun
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || :
    if [ \$1 -ge 1 ]; then
        systemctl try-restart wpexporter.service >/dev/null 2>&1 || :
    fi
fi

%files
%license %{_datadir}/licenses/%{name}/LICENSE
%doc %{_docdir}/%{name}
%{_bindir}/wpexporter
%{_unitdir}/wpexporter.service
%{_sysusersdir}/wpexporter.conf
%{_tmpfilesdir}/wpexporter.conf
%dir %{_sysconfdir}/winpower-exporter
%config(noreplace) %{_sysconfdir}/winpower-exporter/config.yaml
%{_mandir}/man1/wpexporter.1.gz
%{_datadir}/bash-completion/completions/wpexporter
%dir %attr(0750,wpexporter,wpexporter) /var/lib/wpexporter

%changelog
* $(LC_ALL=C date -u -d "@$source_date_epoch" '+%a %b %d %Y') $maintainer - $rpm_version-1
- Release $version, built from commit $commit.
SPEC
mkdir -p "$stage/var/lib/wpexporter"
rpmbuild --quiet -bb --target "$rpm_arch" \
    --define "_topdir $top" --define "_build_id_links none" --define "__os_install_post %{nil}" \
    --define "_unitdir /usr/lib/systemd/system" --define "_sysusersdir /usr/lib/sysusers.d" \
    --define "_tmpfilesdir /usr/lib/tmpfiles.d" --define "_binary_payload w9.xzdio" \
    --define "use_source_date_epoch_as_buildtime 1" --define "clamp_mtime_to_source_date_epoch 1" \
    "$top/wpexporter.spec" >"$work/rpmbuild-$rpm_arch.log" 2>&1 || { cat "$work/rpmbuild-$rpm_arch.log"; fail "rpmbuild ($rpm_arch)"; }
rpm_name="wpexporter-$rpm_version-1.$rpm_arch.rpm"
mv "$top/RPMS/$rpm_arch/$rpm_name" "$out/$rpm_name"
}

maintainer="${WPEXPORTER_MAINTAINER:-$(git log -1 --format='%an <%ae>' -- CHANGELOG.md)}"
artifacts=()
for arch in "${archs[@]}"; do
    echo "== packages for $arch"
    package_deb_and_tarball "$arch"
    package_rpm "$arch"
    artifacts+=("$tar_name.tar.gz" "$deb_name" "$rpm_name")
done
# --- checksums -------------------------------------------------------------------------------
(cd "$out" && sha256sum "${artifacts[@]}" >SHA256SUMS && sha256sum -c --quiet SHA256SUMS)

# lintian: no error and no warning, so no override is shipped. What it still reports with
# --info is informational and left as is: hardening-no-bindnow and hardening-no-fortify-functions
# (SwiftPM links without -z now and the few C shims are not built with _FORTIFY_SOURCE; the Swift
# code is bounds-checked), package-supports-alternative-init-but-no-init.d-script (systemd
# only: the unit's sandbox is the supported way to run it), systemd-service-file-missing-
# documentation-key (a Documentation=man: line would make `systemd-analyze verify` need man-db)
# and spelling-error-in-binary (fragments of the statically linked Swift runtime's strings).
if command -v lintian >/dev/null 2>&1; then
    for deb_name in "$out"/*.deb; do
        echo "== lintian $(basename "$deb_name")"
        lintian --fail-on error,warning --info "$deb_name"
    done
fi
# rpmlint: no error; the warnings it may leave are listed in scripts/release/rpmlint.toml with
# the reason for each, and any other warning fails.
if command -v rpmlint >/dev/null 2>&1; then
    for rpm_name in "$out"/*.rpm; do
        echo "== rpmlint $(basename "$rpm_name")"
        rpmlint --strict -c scripts/release/rpmlint.toml "$rpm_name"
    done
fi
echo "== $out"
(cd "$out" && ls -l && cat SHA256SUMS)

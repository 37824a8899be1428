#!/usr/bin/env bash
# Builds the release artifacts into one folder (dist/ unless --out DIR):
#   wpexporter-VERSION.linux-ARCH.tar.gz  the static-stdlib binary (stripped), LICENSE when the
#                                         repository has one, README.md, CHANGELOG.md, the example
#                                         configuration, the deploy/ files an operator needs, the
#                                         man page and the bash completion;
#   wpexporter_VERSION_ARCH.deb           the same binary in /usr/bin, the hardened unit (ExecStart
#                                         /usr/bin/wpexporter), /etc/winpower-exporter/config.yaml
#                                         as a conffile, man page, bash completion, docs;
#   SHA256SUMS                            for both, checked with `sha256sum -c SHA256SUMS`.
#
# VERSION is CHANGELOG.md's latest release and the first 12 digits of the commit:
# 0.1.0+g0123456789ab. The binary carries both (`wpexporter version --format json`: version and
# git_commit); the script stops unless they are the CHANGELOG's release and HEAD, so the
# artifacts' version and the binary's are the same.
#
# Usage: scripts/release.sh [--skip-build BIN] [--out DIR] [--allow-dirty]
#   --skip-build BIN  package BIN (or $WPEXPORTER_RELEASE_BIN) instead of building; it must still
#                     be a static-stdlib build of HEAD (the version check above applies)
#   --out DIR         output folder, emptied first (default dist)
#   --allow-dirty     package a working tree with uncommitted changes to tracked files
# Run from a clean clone with no arguments. The build is
#   swift build -c release --static-swift-stdlib --product wpexporter
# in its own scratch path (.build-release), with the manifest evaluated afresh so the commit is
# HEAD's. Needs git, python3, strip (binutils), dpkg-deb and dpkg-shlibdeps (dpkg-dev); lintian
# runs when installed (scripts/check-release.sh installs it and requires it).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

bin="${WPEXPORTER_RELEASE_BIN:-}"
out="dist"
allow_dirty=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --skip-build) bin="${2:?--skip-build needs a binary}"; shift 2 ;;
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        --allow-dirty) allow_dirty=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "release.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done
fail() { echo "release.sh: $*" >&2; exit 1; }

# --- version ---------------------------------------------------------------------------------
release="$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)"
[[ -n "$release" ]] || fail "CHANGELOG.md has no '## [x.y.z]' release heading"
commit="$(git rev-parse HEAD)"
if [[ -z "$allow_dirty" ]] && [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    fail "tracked files have uncommitted changes; commit them (the binary records HEAD) or pass --allow-dirty"
fi
version="$release+g${commit:0:12}"
deb_arch="$(dpkg --print-architecture)"
source_date_epoch="$(git log -1 --format=%ct)"
export SOURCE_DATE_EPOCH="$source_date_epoch"
echo "== wpexporter $version ($deb_arch)"

# --- the static binary -----------------------------------------------------------------------
if [[ -z "$bin" ]]; then
    echo "== swift build -c release --static-swift-stdlib --product wpexporter"
    build=(swift build -c release --static-swift-stdlib --product wpexporter --scratch-path .build-release)
    # --manifest-cache none: Package.swift reads the commit from .git; a cached manifest would
    # keep the commit of an earlier build.
    "${build[@]}" --manifest-cache none
    bin="$("${build[@]}" --show-bin-path)/wpexporter"
fi
[[ -x "$bin" ]] || fail "$bin is not an executable"

# The binary must be this release's: the CHANGELOG's version and HEAD's commit.
printed="$("$bin" version --format json)" || fail "$bin version failed"
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
# Static stdlib: no Swift runtime library from the toolchain may be needed.
if ldd "$bin" | grep -E 'libswift|libdispatch|libFoundation|libBlocksRuntime|not found'; then
    fail "$bin needs the libraries above; build with --static-swift-stdlib"
fi

[[ "$out" == /* ]] || out="$root/$out"
rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

strip --strip-all --remove-section=.comment -o "$work/wpexporter" "$bin"
chmod 0755 "$work/wpexporter"
binary="$work/wpexporter"
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

# --- the tarball -----------------------------------------------------------------------------
tar_name="wpexporter-$version.linux-$deb_arch"
tree="$work/$tar_name"
mkdir -p "$tree"
install -m 0755 "$binary" "$tree/wpexporter"
if [[ -f LICENSE ]]; then
    install -m 0644 LICENSE "$tree/LICENSE"
else
    echo "warning: the repository has no LICENSE file (README.md states no license); none is packaged" >&2
fi
install -m 0644 README.md CHANGELOG.md "$tree/"
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
deb="$work/deb"
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
install -m 0644 README.md "$doc/README.md"
for file in deployment configuration security troubleshooting metrics alerts; do
    install -m 0644 "docs/$file.md" "$doc/$file.md"
done
maintainer="${WPEXPORTER_MAINTAINER:-$(git log -1 --format='%an <%ae>' -- CHANGELOG.md)}"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: wpexporter"
    echo "Upstream-Contact: $maintainer"
    echo ""
    echo "Files: *"
    echo "Copyright: $(date -u -d "@$source_date_epoch" +%Y) the wpexporter authors"
    if [[ -f LICENSE ]]; then
        echo "License: see-license-text"
        sed -e 's/^$/./' -e 's/^/ /' LICENSE
    else
        # The repository states no license; the package says so rather than naming one.
        echo "License: not-stated"
        echo " The wpexporter source repository contains no LICENSE file and its README"
        echo " names no license, so no license is granted here beyond what the authors"
        echo " state elsewhere."
    fi
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
# Shared-library dependencies, as dpkg-shlibdeps computes them from the binary.
mkdir -p "$work/shlibs/debian"
printf 'Source: wpexporter\n\nPackage: wpexporter\nArchitecture: any\n' >"$work/shlibs/debian/control"
depends="$(cd "$work/shlibs" && dpkg-shlibdeps -O -e "$deb/usr/bin/wpexporter" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[[ "$depends" == *libc6* ]] || fail "dpkg-shlibdeps found no dependencies: $depends"
installed_size="$(du -sk --exclude=DEBIAN "$deb" | cut -f1)"
install -d -m 0755 "$deb/DEBIAN"
cat >"$deb/DEBIAN/control" <<CONTROL
Package: wpexporter
Version: $version
Architecture: $deb_arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: ca-certificates, libcurl4, libssl3
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
 libcurl is loaded only for https:// requests, OpenSSL only for a TLS listener.
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

# --- checksums -------------------------------------------------------------------------------
(cd "$out" && sha256sum "$tar_name.tar.gz" "$deb_name" >SHA256SUMS && sha256sum -c --quiet SHA256SUMS)

# lintian: no error and no warning, so no override is shipped. What it still reports with
# --info is informational and left as is: hardening-no-bindnow and hardening-no-fortify-functions
# (SwiftPM links without -z now and the few C shims are not built with _FORTIFY_SOURCE; the Swift
# code is bounds-checked), package-supports-alternative-init-but-no-init.d-script (systemd
# only: the unit's sandbox is the supported way to run it), systemd-service-file-missing-
# documentation-key (a Documentation=man: line would make `systemd-analyze verify` need man-db)
# and spelling-error-in-binary (fragments of the statically linked Swift runtime's strings).
if command -v lintian >/dev/null 2>&1; then
    echo "== lintian $deb_name"
    lintian --fail-on error,warning --info "$out/$deb_name"
fi
echo "== $out"
(cd "$out" && ls -l && cat SHA256SUMS)

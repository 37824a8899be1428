#!/usr/bin/env bash
# Builds the release artifacts (scripts/release.sh, its arguments passed on) and checks them as
# an operator would use them:
#   - SHA256SUMS verifies with `sha256sum -c`; the artifacts' version is CHANGELOG.md's release
#     and HEAD's commit, and the same the tarball's binary prints; every package carries the
#     documentation, English and Chinese;
#   - with the Swift toolchain's folder hidden (a private mount namespace with an empty tmpfs over
#     it, as on a host without Swift), the tarball's binary runs `version` and serves `demo`
#     (/metrics scraped on 127.0.0.1, port 0); as a control, the dynamically linked build fails
#     there for want of the Swift libraries (libswiftCore.so, or libswiftSwiftOnoneSupport.so first for a debug build);
#   - the .deb holds the expected files (dpkg-deb --contents, control fields, conffiles) and
#     lintian reports no error and no warning;
#   - the .deb installs into a scratch root (its own dpkg database, a copy of this host's package
#     list so dependencies resolve; maintainer scripts run outside a chroot with /run private, so
#     they cannot reach a running systemd), its binary runs there, an edited conffile survives a
#     reinstall and a removal and goes on purge; its unit passes `systemd-analyze verify --root`;
#   - the man page is the --help text, and the bash completion completes commands and flags;
#   - the packaged binary runs under the packaged unit's system-call filter
#     (scripts/check-seccomp.sh) and as the container image runs it (scripts/check-containers.sh).
#
# Usage: scripts/check-release.sh [release.sh arguments, e.g. --skip-build BIN]
# The control binary is WPEXPORTER_DYNAMIC_BIN (default .build/debug/wpexporter, built when
# missing). Root is needed (unshare --mount, mount, dpkg). Installs what it needs with scripts/ci/tools.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

scripts/ci/tools.sh tests snmp seccomp release   # scripts/ci/tools.sh --list says what each is for

work="$(mktemp -d)"
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

echo "== scripts/release.sh $*"
scripts/release.sh "$@"
dist="$root/dist"
for arg in "$@"; do
    if [[ "${previous:-}" == "--out" ]]; then
        if [[ "$arg" == /* ]]; then dist="$arg"; else dist="$root/$arg"; fi
    fi
    previous="$arg"
done

echo "== SHA256SUMS"
(cd "$dist" && sha256sum -c SHA256SUMS) || fail "sha256sum -c SHA256SUMS"
release="$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)"
commit="$(git rev-parse HEAD)"
version="$release+g${commit:0:12}"
# The architectures built: amd64 always (it is the host's), arm64 unless --arch left it out.
mapfile -t archs < <(find "$dist" -maxdepth 1 -name 'wpexporter-*.linux-*.tar.gz' -printf '%f\n' | sed 's/.*\.linux-\(.*\)\.tar\.gz$/\1/' | sort)
[[ " ${archs[*]} " == *" amd64 "* ]] || fail "no amd64 tarball in $dist"
expected_sums=()
for a in "${archs[@]}"; do
    case "$a" in amd64) r=x86_64 ;; arm64) r=aarch64 ;; *) fail "unexpected architecture $a" ;; esac
    expected_sums+=("wpexporter-$version.linux-$a.tar.gz" "wpexporter_${version}_$a.deb" "wpexporter-$version-1.$r.rpm")
done
diff <(printf '%s\n' "${expected_sums[@]}" | sort) <(awk '{print $2}' "$dist/SHA256SUMS" | sort) \
    || fail "SHA256SUMS does not list exactly the tarball, .deb and .rpm of ${archs[*]}"
echo "SHA256SUMS: ${#expected_sums[@]} artifacts (${archs[*]}), each verified"

echo "== every binary: glibc 2.28 or older, no libstdc++, glibc's libraries only"
for a in "${archs[@]}"; do
    mkdir -p "$work/$a"
    tar -xzf "$dist/wpexporter-$version.linux-$a.tar.gz" -C "$work/$a"
    file="$work/$a/wpexporter-$version.linux-$a/wpexporter"
    objdump -T "$file" >"$work/$a/dynamic-symbols.txt" 2>/dev/null || readelf --dyn-syms -W "$file" >"$work/$a/dynamic-symbols.txt"
    highest="$(readelf -V "$file" | grep -oE 'Name: GLIBC_[0-9.]+' | sed 's/^Name: GLIBC_//' | sort -V | tail -n 1)"
    [[ "$(printf '%s\n2.28\n' "$highest" | sort -V | tail -n 1)" == 2.28 ]] || fail "$a: the binary needs GLIBC_$highest"
    if readelf -V "$file" | grep -qE 'Name: (GLIBCXX|CXXABI)_'; then fail "$a: the binary needs libstdc++"; fi
    needed="$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
    if tr ' ' '\n' <<<"$needed" | grep -v '^$' | grep -qvE '^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|libz\.so\.1|ld-linux-.*)$'; then
        fail "$a: the binary needs $needed"
    fi
    echo "$a: highest GLIBC_$highest, no GLIBCXX/CXXABI, needs $needed"
done

echo "== the version: CHANGELOG.md, HEAD, artifact names and the binary agree"
arch=amd64
tarball="wpexporter-$version.linux-$arch.tar.gz"
deb="wpexporter_${version}_$arch.deb"
[[ "$(dpkg-deb --field "$dist/$deb" Version)" == "$version" ]] || fail ".deb Version field is not $version"
tar -xzf "$dist/$tarball" -C "$work"
tree="$work/wpexporter-$version.linux-$arch"
bin="$tree/wpexporter"
printed="$("$bin" version --format json)"
python3 -c 'import json, sys; info = json.loads(sys.argv[1]); sys.exit(0 if info["version"] + "+g" + info["git_commit"][:12] == sys.argv[2] and info["git_commit"] == sys.argv[3] else 1)' \
    "$printed" "$version" "$commit" || fail "the binary prints $printed, the artifacts say $version ($commit)"
echo "artifacts $version; the binary: $printed"
for file in wpexporter README.md README.zh-CN.md CHANGELOG.md docs/deployment.md docs/nut.md docs/zh-CN/deployment.md \
        docs/zh-CN/snmp.md config.yaml deploy/systemd/wpexporter.service \
        deploy/prometheus/prometheus.yml deploy/prometheus/alerts.yml deploy/grafana/dashboards/wpexporter.json \
        man/wpexporter.1 completions/wpexporter.bash; do
    [[ -f "$tree/$file" ]] || fail "the tarball has no $file"
done
for a in "${archs[@]}"; do
    for file in wpexporter LICENSE README.md config.yaml man/wpexporter.1; do
        [[ -f "$work/$a/wpexporter-$version.linux-$a/$file" ]] || fail "the $a tarball has no $file"
    done
done
cmp -s LICENSE "$tree/LICENSE" || fail "the tarball's LICENSE is not the repository's"
"$bin" check-config --config "$tree/config.yaml" --winpower.password x --data-dir "$work/check-data" >/dev/null \
    || fail "the example configuration does not pass check-config"
if readelf -S "$bin" | grep -q '\.symtab'; then fail "the tarball's binary is not stripped"; fi

echo "== the tarball's binary with the Swift toolchain hidden"
toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
[[ "$(basename "$toolchain")" == usr ]] && toolchain="$(dirname "$toolchain")"
dynamic="${WPEXPORTER_DYNAMIC_BIN:-.build/debug/wpexporter}"
[[ -x "$dynamic" ]] || dynamic="$(scripts/debug-binary.sh)"
swift_core="$(ldd "$dynamic" | awk '$1 ~ /^libswiftCore\.so/ {print $3}')"
[[ "$swift_core" == "$toolchain"/* ]] || fail "the dynamic build's libswiftCore.so ($swift_core) is not under the toolchain folder $toolchain"
echo "toolchain folder: $toolchain (the dynamic build's libswiftCore.so: $swift_core)"
if ldd "$bin" | grep -E "libswift|$toolchain"; then fail "the release binary needs the libraries above"; fi
cat >"$work/hidden.sh" <<'HIDDEN'
#!/usr/bin/env bash
# Runs in a private mount namespace: hides the toolchain, then runs the checks.
set -euo pipefail
toolchain=$1 bin=$2 dynamic=$3 work=$4
mount -t tmpfs -o size=1m,mode=0755 none "$toolchain"
[[ -z "$(ls -A "$toolchain")" ]] || { echo "FAIL: $toolchain is not hidden"; exit 1; }
if command -v swift >/dev/null 2>&1 && swift --version >/dev/null 2>&1; then echo "FAIL: swift still runs"; exit 1; fi
echo "hidden: $toolchain is an empty tmpfs; swift does not run"
status=0
"$dynamic" version >"$work/dynamic.txt" 2>&1 || status=$?
# The first Swift library the loader misses: libswiftCore.so for a release build,
# libswiftSwiftOnoneSupport.so for the debug build CI passes.
if [[ $status == 0 ]] || ! grep -Eq 'libswift[A-Za-z_]*\.so: cannot open shared object file' "$work/dynamic.txt"; then
    echo "FAIL: the control (dynamic build) did not fail for want of the Swift libraries: status $status"; cat "$work/dynamic.txt"; exit 1
fi
echo "control: the dynamic build fails (status $status): $(head -n 1 "$work/dynamic.txt")"
"$bin" version
: >"$work/demo.txt"
"$bin" demo --port 0 --data-dir "$work/demo-data" >"$work/demo.txt" 2>"$work/demo.err" &
pid=$!
trap 'kill -KILL "$pid" 2>/dev/null || true' EXIT
deadline=$((SECONDS + 30))
url=""
while [[ $SECONDS -lt $deadline ]]; do
    url="$(sed -n 's/^ *metrics: *\(http:\/\/127\.0\.0\.1:[0-9]*\/metrics\)$/\1/p' "$work/demo.txt" | head -n 1)"
    if [[ -n "$url" ]] && curl -fsS --max-time 2 -o "$work/metrics.txt" "$url" 2>/dev/null \
            && grep -q '^winpower_device_connected{' "$work/metrics.txt"; then
        break
    fi
    kill -0 "$pid" 2>/dev/null || { echo "FAIL: demo exited"; cat "$work/demo.txt" "$work/demo.err"; exit 1; }
    sleep 0.1
done
grep -q '^winpower_device_connected{' "$work/metrics.txt" 2>/dev/null \
    || { echo "FAIL: no device metrics from demo ($url)"; cat "$work/demo.txt" "$work/demo.err"; exit 1; }
echo "demo serves $url: $(grep -c '^winpower_device_connected{' "$work/metrics.txt") devices, $(grep -vc '^#' "$work/metrics.txt") samples"
kill -TERM "$pid"
wait "$pid" || { echo "FAIL: demo did not exit 0 on SIGTERM"; exit 1; }
HIDDEN
unshare --mount --propagation private bash "$work/hidden.sh" "$toolchain" "$bin" "$(readlink -f "$dynamic")" "$work"
"$dynamic" version >/dev/null || fail "the toolchain is not back outside the namespace"

for a in "${archs[@]}"; do
echo "== the $a .deb: dpkg-deb --contents, control, conffiles"
deb_a="wpexporter_${version}_$a.deb"
[[ "$(dpkg-deb --field "$dist/$deb_a" Architecture)" == "$a" ]] || fail "$deb_a: Architecture is not $a"
[[ "$(dpkg-deb --field "$dist/$deb_a" Depends)" =~ ^libc6\ \(\>=\ 2\.[0-9]+\),\ zlib1g\ \(\>=\ 1:1\.[0-9.]+\),\ libsqlite3-0$ ]] \
    || fail "$deb_a: Depends is '$(dpkg-deb --field "$dist/$deb_a" Depends)', expected libc6 (>= 2.x), zlib1g (>= 1:1.x), libsqlite3-0 alone"
dpkg-deb --contents "$dist/$deb_a" | awk '{print $1, $6}' | sed 's|\./|/|' >"$work/contents.txt"
cat >"$work/expected.txt" <<'EXPECTED'
-rwxr-xr-x /usr/bin/wpexporter
-rw-r--r-- /lib/systemd/system/wpexporter.service
-rw-r--r-- /etc/winpower-exporter/config.yaml
-rw-r--r-- /usr/share/man/man1/wpexporter.1.gz
-rw-r--r-- /usr/share/bash-completion/completions/wpexporter
-rw-r--r-- /usr/share/doc/wpexporter/copyright
-rw-r--r-- /usr/share/doc/wpexporter/changelog.gz
-rw-r--r-- /usr/share/doc/wpexporter/changelog.Debian.gz
-rw-r--r-- /usr/share/doc/wpexporter/README.md
-rw-r--r-- /usr/share/doc/wpexporter/README.zh-CN.md
-rw-r--r-- /usr/share/doc/wpexporter/deployment.md
-rw-r--r-- /usr/share/doc/wpexporter/nut.md
-rw-r--r-- /usr/share/doc/wpexporter/zh-CN/deployment.md
-rw-r--r-- /usr/share/doc/wpexporter/zh-CN/troubleshooting.md
EXPECTED
while read -r line; do
    grep -qxF -- "$line" "$work/contents.txt" || fail "$deb_a lacks $line"
done <"$work/expected.txt"
if grep -v -E '^(d[rwx-]{9} /(etc|lib|usr)?|-rw-r--r-- /(etc/winpower-exporter|lib/systemd/system|usr/share)/|-rwxr-xr-x /usr/bin/wpexporter$)' "$work/contents.txt"; then
    fail "$deb_a has the unexpected entries above"
fi
dpkg-deb --contents "$dist/$deb_a" | awk '$2 != "root/root" {print; bad = 1} END {exit bad}' || fail "$deb_a entries not owned by root"
dpkg-deb --ctrl-tarfile "$dist/$deb_a" | tar -xOf - ./conffiles | grep -qx /etc/winpower-exporter/config.yaml || fail "config.yaml is not a conffile"
dpkg-deb --fsys-tarfile "$dist/$deb_a" | tar -xOf - ./usr/share/doc/wpexporter/copyright >"$work/copyright"
if ! grep -qx 'License: Expat' "$work/copyright" || ! grep -q '^ Permission is hereby granted' "$work/copyright"; then
    fail "$deb_a: debian/copyright does not carry the MIT (Expat) license"
fi
echo "$a: $(wc -l <"$work/contents.txt") entries, config.yaml is a conffile, Depends: $(dpkg-deb --field "$dist/$deb_a" Depends), copyright: Expat"

echo "== lintian $deb_a"
lintian --fail-on error,warning "$dist/$deb_a" || fail "lintian $deb_a"
echo "lintian: no error, no warning"
done

echo "== the .deb installed into a scratch root"
scratch="$work/root"
mkdir -p "$scratch/var/lib/dpkg/info" "$scratch/var/lib/dpkg/updates" "$scratch/var/lib/dpkg/triggers"
# The scratch database knows only the packages the .deb depends on, copied from this host's
# database (with empty file lists), so Depends is checked, not forced.
mapfile -t depends < <(dpkg-deb --field "$dist/$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g')
dpkg-query -s "${depends[@]}" >"$scratch/var/lib/dpkg/status"
while read -r package; do : >"$scratch/var/lib/dpkg/info/$package.list"; done \
    < <(dpkg-query -W -f='${binary:Package}\n' "${depends[@]}")
: >"$scratch/var/lib/dpkg/available"
cat >"$work/dpkg.sh" <<'DPKG'
#!/usr/bin/env bash
# Private /run: the maintainer scripts (run outside a chroot) see no running systemd.
set -euo pipefail
mount -t tmpfs -o size=1m none /run
exec dpkg --root="$1" --force-script-chrootless --force-confold "${@:2}"
DPKG
scratch_dpkg() { unshare --mount --propagation private bash "$work/dpkg.sh" "$scratch" "$@" >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg $*"; }; }
scratch_dpkg -i "$dist/$deb"
[[ "$(dpkg --root="$scratch" -s wpexporter | sed -n 's/^Status: //p')" == "install ok installed" ]] || fail "not installed in the scratch root"
"$scratch/usr/bin/wpexporter" version >/dev/null || fail "the installed binary does not run"
dpkg --root="$scratch" -s wpexporter | grep -q '^ /etc/winpower-exporter/config.yaml [0-9a-f]\{32\}$' || fail "config.yaml is not registered as a conffile"
echo "# edited by the operator" >>"$scratch/etc/winpower-exporter/config.yaml"
scratch_dpkg -i "$dist/$deb"
grep -q '^# edited by the operator$' "$scratch/etc/winpower-exporter/config.yaml" || fail "a reinstall replaced the edited conffile"
scratch_dpkg -r wpexporter
[[ ! -e "$scratch/usr/bin/wpexporter" ]] || fail "remove left /usr/bin/wpexporter"
grep -q '^# edited by the operator$' "$scratch/etc/winpower-exporter/config.yaml" || fail "remove deleted the conffile"
scratch_dpkg -P wpexporter
[[ ! -e "$scratch/etc/winpower-exporter/config.yaml" ]] || fail "purge left the conffile"
scratch_dpkg -i "$dist/$deb"
echo "installed, the edited conffile kept on reinstall and remove, removed on purge, installed again"
# systemd's own targets (sysinit.target, network-online.target, ...) from this host, which the
# unit's default dependencies load; without them verify stops at "Unit sysinit.target not found".
cp /lib/systemd/system/*.target "$scratch/lib/systemd/system/"
mv "$scratch/usr/bin/wpexporter" "$work/wpexporter.moved"
if systemd-analyze verify --root="$scratch" --man=no wpexporter.service >"$work/verify.txt" 2>&1 \
        || ! grep -q 'Command /usr/bin/wpexporter is not executable' "$work/verify.txt"; then
    cat "$work/verify.txt"; fail "control: systemd-analyze verify --root did not miss /usr/bin/wpexporter"
fi
mv "$work/wpexporter.moved" "$scratch/usr/bin/wpexporter"
systemd-analyze verify --root="$scratch" --man=no wpexporter.service >"$work/verify.txt" 2>&1 || { cat "$work/verify.txt"; fail "systemd-analyze verify"; }
if [[ -s "$work/verify.txt" ]]; then cat "$work/verify.txt"; fail "systemd-analyze verify printed the messages above"; fi
grep -qx 'ExecStart=/usr/bin/wpexporter server --config /etc/winpower-exporter/config.yaml' "$scratch/lib/systemd/system/wpexporter.service" \
    || fail "the installed unit does not start /usr/bin/wpexporter"
echo "systemd-analyze verify --root: the unit is valid, and fails (control) without /usr/bin/wpexporter in the scratch root"

echo "== man page and completion"
for command in $("$bin" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF && !/^Commands:/ {print $1}'); do
    [[ "$command" == help ]] && continue
    cmp -s <("$bin" "$command" --help) <("$bin" help "$command") || fail "wpexporter $command --help differs from wpexporter help $command"
done
man_text="$(MANWIDTH=200 man -l "$scratch/usr/share/man/man1/wpexporter.1.gz" 2>/dev/null)"
for line in "Usage: wpexporter server [flags]" "Usage: wpexporter version [--format text|json]" "  --scheduler.collection_interval 2s"; do
    [[ "$man_text" == *"$line"* ]] || fail "the man page lacks: $line"
done
completion() {  # completion WORD...: what bash completes for the last word
    bash -c 'source "$1"; shift; COMP_WORDS=(wpexporter "$@"); COMP_CWORD=$#; _wpexporter; echo "${COMPREPLY[*]}"' \
        _ "$scratch/usr/share/bash-completion/completions/wpexporter" "$@"
}
[[ "$(completion se)" == "server" ]] || fail "completion of 'se': $(completion se)"
[[ "$(completion server --winpower.ba)" == "--winpower.base_url" ]] || fail "completion of 'server --winpower.ba': $(completion server --winpower.ba)"
[[ "$(completion version --f)" == "--format" ]] || fail "completion of 'version --f': $(completion version --f)"
echo "man page has every help page; bash completes commands and flags"

echo "== the .rpm of each architecture: name, files, %config(noreplace), license, scriptlets, rpmlint"
for a in "${archs[@]}"; do
    case "$a" in amd64) r=x86_64 ;; arm64) r=aarch64 ;; esac
    rpm_a="$dist/wpexporter-$version-1.$r.rpm"
    [[ "$(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE}' "$rpm_a")" == "wpexporter $version 1 $r MIT" ]] \
        || fail "$rpm_a: $(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE}' "$rpm_a")"
    rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES} %{FILEFLAGS:fflags}\n]' "$rpm_a" >"$work/rpm-files.txt"
    for line in "-rwxr-xr-x root:root /usr/bin/wpexporter " \
            "-rw-r--r-- root:root /usr/lib/systemd/system/wpexporter.service " \
            "-rw-r--r-- root:root /etc/winpower-exporter/config.yaml cn" \
            "-rw-r--r-- root:root /usr/lib/sysusers.d/wpexporter.conf " \
            "-rw-r--r-- root:root /usr/lib/tmpfiles.d/wpexporter.conf " \
            "-rw-r--r-- root:root /usr/share/man/man1/wpexporter.1.gz d" \
            "-rw-r--r-- root:root /usr/share/licenses/wpexporter/LICENSE l" \
            "-rw-r--r-- root:root /usr/share/doc/wpexporter/zh-CN/deployment.md d" \
            "-rw-r--r-- root:root /usr/share/doc/wpexporter/snmp.md d" \
            "drwxr-x--- wpexporter:wpexporter /var/lib/wpexporter "; do
        grep -qxF -- "$line" "$work/rpm-files.txt" || { cat "$work/rpm-files.txt"; fail "$rpm_a lacks: $line"; }
    done
    rpm -qp --scripts "$rpm_a" | grep -q 'useradd -r -g wpexporter' || fail "$rpm_a: %pre does not create the user"
    rpmlint --strict -c scripts/release/rpmlint.toml "$rpm_a" || fail "rpmlint $rpm_a"
    echo "$a: $(wc -l <"$work/rpm-files.txt") files, config.yaml %config(noreplace), LICENSE %license, rpmlint clean"
done

echo "== the x86_64 .rpm installed with rpm into a bullseye root (an overlay; its scriptlets run there)"
bullseye_amd64="$(scripts/release/roots.sh amd64)"
cat >"$work/rpm-install.sh" <<'RPMINSTALL'
#!/usr/bin/env bash
# In a private mount namespace: a writable overlay of the cached root, the RPM installed there.
set -euo pipefail
lower=$1 rpm_file=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work/upper" "$work/ovl-work" "$work/merged"
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/upper,workdir=$work/ovl-work" "$work/merged"
mount -t proc proc "$work/merged/proc"
merged="$work/merged"
rpm --root "$merged" --initdb
# Debian's rpm warns before every install or erase unless told that it is meant (--force-debian).
rpm() { if [[ "$1" == --root && "$3" == -[iUe] ]]; then command rpm --force-debian "$@"; else command rpm "$@"; fi; }
rpm --root "$merged" -i --nodeps "$rpm_file" || fail "rpm -i"
chroot "$merged" getent passwd wpexporter | grep -q ':/var/lib/wpexporter:/sbin/nologin$' || fail "%pre made no user wpexporter"
owner="$(chroot "$merged" stat -c '%U:%G %a' /var/lib/wpexporter)"
[[ "$owner" == "wpexporter:wpexporter 750" ]] || fail "/var/lib/wpexporter: $owner"
chroot "$merged" /usr/bin/wpexporter version >/dev/null || fail "the installed binary does not run in the root"
chroot "$merged" /usr/bin/wpexporter check-config --config /etc/winpower-exporter/config.yaml --winpower.password x \
    --data-dir /tmp/check-data >/dev/null || fail "the packaged configuration does not pass check-config"
echo "# edited by the operator" >>"$merged/etc/winpower-exporter/config.yaml"
rpm --root "$merged" -U --replacepkgs --nodeps "$rpm_file" || fail "rpm -U (reinstall)"
grep -q '^# edited by the operator$' "$merged/etc/winpower-exporter/config.yaml" || fail "a reinstall replaced the edited config.yaml"
cp /lib/systemd/system/*.target "$merged/usr/lib/systemd/system/" 2>/dev/null || true
systemd-analyze verify --root="$merged" --man=no wpexporter.service >"$work/verify.txt" 2>&1 || { cat "$work/verify.txt"; fail "systemd-analyze verify"; }
[[ ! -s "$work/verify.txt" ]] || { cat "$work/verify.txt"; fail "systemd-analyze verify printed the messages above"; }
rpm --root "$merged" -e wpexporter || fail "rpm -e"
[[ ! -e "$merged/usr/bin/wpexporter" ]] || fail "rpm -e left /usr/bin/wpexporter"
[[ -f "$merged/etc/winpower-exporter/config.yaml.rpmsave" ]] || fail "rpm -e did not keep the edited config.yaml as .rpmsave"
echo "installed (user wpexporter and /var/lib/wpexporter made by its scriptlets), ran, check-config passed, the edited config.yaml kept on reinstall and saved as .rpmsave on erase; the unit passes systemd-analyze verify"
RPMINSTALL
unshare --mount --propagation private bash "$work/rpm-install.sh" "$bullseye_amd64" "$dist/wpexporter-$version-1.x86_64.rpm" "$work/rpm-root"

echo "== each binary on Debian bullseye (glibc 2.31, OpenSSL 1.1): version, demo, HTTPS login, TLS listener, SNMPv3"
for a in "${archs[@]}"; do
    scripts/release/check-userland.sh "$a" "$work/$a/wpexporter-$version.linux-$a/wpexporter" "$(scripts/release/roots.sh "$a")" "$commit"
done

echo "== the packaged binary under the packaged unit's system-call filter (scripts/check-seccomp.sh)"
WPEXPORTER_BIN="$scratch/usr/bin/wpexporter" WPEXPORTER_UNIT="$scratch/lib/systemd/system/wpexporter.service" scripts/check-seccomp.sh

echo "== the packaged binary as the container image runs it (scripts/check-containers.sh)"
WPEXPORTER_BIN="$scratch/usr/bin/wpexporter" scripts/check-containers.sh

echo "release: consistent ($version)"

#!/usr/bin/env bash
# The one place the checks' tools are installed: every Debian and PyPI package a check of CI (or a
# measurement script) runs, with its version and the reason it is there. A check calls this with
# the groups it needs before it starts, so it also runs alone on a fresh machine; .ci/run calls it
# once per entry point. What is already installed is left alone (a second call installs nothing);
# apt-get update runs at most once per call, and every missing package is installed in one go.
#
#   scripts/ci/tools.sh GROUP...      # e.g. scripts/ci/tools.sh nut snmp
#   scripts/ci/tools.sh --list        # the manifest, as a table
#
# Versions: PyPI packages are installed at exactly the version below (`==`), also over another
# installed version. Debian packages are installed at the version below (Debian 12, as CI's
# machines have them); when the archive no longer offers it (a stable or security update
# replaced it), the version it offers is installed instead and a line says so, to update here.
# Packages whose behaviour no check asserts (libraries, compilers, the base system) are not pinned
# ("-"): the distribution's security updates apply to them.
set -euo pipefail

# group|kind|package|version|present when|why (kind: deb, debmin for a Debian package installed
# without its recommended packages, or pip)
manifest=(
    "tests|deb|openssl|-|command openssl|TLS tests make their certificates and keys (WPServerTests, WPHTTPClientTests)"
    "tests|deb|python3|-|command python3|local servers of the HTTP client's socket tests; most checks' helpers"
    "tests|deb|curl|-|command curl|HTTPS listener tests; every check reads /metrics with it"
    "tests|deb|snmp|5.9.3+dfsg-2+deb12u1|command snmpbulkwalk|net-snmp's snmpget, snmpwalk, snmpbulkwalk, snmpset against the agent (WPSNMPTests, checks)"
    "tests|deb|snmptrapd|5.9.3+dfsg-2+deb12u1|file /usr/sbin/snmptrapd|receives the agent's traps and informs (SNMPTrapReceiverTests)"
    "static|deb|shellcheck|0.9.0-1|command shellcheck|every shell script is checked (check-deploy.sh)"
    "static|deb|python3-yaml|-|python yaml|YAML of deploy/ parsed (check-deploy.sh, check-kubernetes.sh)"
    "static|deb|prometheus|2.42.0+ds-5+deb12u1|command promtool|promtool: rules, their unit tests, exposition (check-deploy, -mixin, -kubernetes, -collector-metrics)"
    "static|deb|jsonnet|0.18.0+ds-3+b2|command jsonnet|the monitoring mixin builds (check-mixin.sh)"
    "static|deb|kubectl|-|command kubectl|kustomize renders the base and overlays (check-kubernetes.sh; Debian 12 has no kubectl: the machine's own)"
    "static|pip|kubernetes-validate|1.37.0|command kubernetes-validate|the rendered objects validate against Kubernetes' schemas (check-kubernetes.sh)"
    "prometheus|deb|prometheus|2.42.0+ds-5+deb12u1|command prometheus|a real Prometheus scrapes the exporter (the prometheus group)"
    "prometheus|deb|prometheus-pushgateway|1.5.1-2+b5|command prometheus-pushgateway|a real Pushgateway takes the push (the prometheus group, the exposition's reference tools)"
    "prometheus|deb|prometheus-alertmanager|0.25.0-1+b4|command amtool|a real Alertmanager delivers the Chinese WeCom notifications to a local receiver (the prometheus group's alertmanager_wecom)"
    "prometheus|deb|apache2-utils|-|command htpasswd|bcrypt hashes for basic auth (the torture group's http_attacks)"
    "prometheus|pip|prometheus-client|0.26.0|python prometheus_client|the Python client's strict parser reads /metrics (the exposition's reference tools)"
    "nut|deb|nut-client|2.8.0-7|command upsc|upsc and upsmon against the NUT server (the nut group's clients and upsmon)"
    "nut|deb|nut-server|2.8.0-7|file /lib/nut/upsd|the real upsd beside the NUT server, and with snmp-ups (the nut group's differential, the snmp group's nut_snmp_ups cases)"
    "nut|deb|nut-snmp|2.8.0-7|file /lib/nut/snmp-ups|NUT's snmp-ups driver against the SNMP agent (the snmp group's nut_snmp_ups cases)"
    "nut|deb|python3-nut|2.8.0-7|file /usr/lib/python3/dist-packages/PyNUT.py|PyNUT, NUT's own Python client (the nut group's clients)"
    "nut|pip|aionut|4.3.4|python aionut|an asyncio NUT client (the nut group's clients)"
    "nut|pip|pynut2|2.1.2|python pynut2|pynut2, Home Assistant's NUT client (the nut group's clients)"
    "snmp|deb|snmp|5.9.3+dfsg-2+deb12u1|command snmpbulkwalk|net-snmp's clients against the agent (the snmp group's clients, check-release.sh)"
    "snmp|deb|snmpd|5.9.3+dfsg-2+deb12u1|file /usr/sbin/snmpd|net-snmp's agent for the system-group differential (the snmp group's clients)"
    "snmp|deb|prometheus-snmp-exporter|0.21.0-1+b5|command prometheus-snmp-exporter|snmp_exporter reads the UPS-MIB module of deploy/snmp-exporter (the snmp group's clients)"
    "snmp|deb|monitoring-plugins-standard|2.3.3-5+deb12u2|file /usr/lib/nagios/plugins/check_snmp|Nagios' check_snmp over SNMPv3 (the snmp group's clients)"
    "snmp|pip|pysnmp|7.1.30|python pysnmp|a second SNMP implementation reads every instance (the snmp group's clients)"
    "mqtt|deb|mosquitto|2.0.11-1.2+deb12u2|file /usr/sbin/mosquitto|a real MQTT broker takes what the MQTT front end publishes (the mqtt group)"
    "mqtt|deb|mosquitto-clients|2.0.11-1.2+deb12u2|command mosquitto_sub|mosquitto_sub reads the retained states and Home Assistant's discovery back (the mqtt group)"
    "mqtt|pip|paho-mqtt|2.1.0|python paho.mqtt.client|a second MQTT client subscribes and checks every message (the mqtt group)"
    "history|deb|sqlite3|-|command sqlite3|the sqlite3 command runs docs/status-page.md's queries on the live history database (the history group)"
    "seccomp|deb|systemd|-|command systemd-analyze|the unit's system-call filter expanded, units verified (check-seccomp.sh, check-release.sh)"
    "seccomp|deb|libseccomp-dev|-|file /usr/include/seccomp.h|the filter applied to the binary (check-seccomp.sh)"
    "seccomp|deb|gcc|-|command cc|the seccomp loader and the torture cases' LD_PRELOAD shim are compiled"
    "release|deb|binutils|-|command strip|stripping and reading the release binaries (check-release.sh)"
    "release|deb|dpkg-dev|-|command dpkg-shlibdeps|the .deb's dependencies (release.sh)"
    "release|deb|lintian|2.116.3+deb12u1|command lintian|the .debs are checked (check-release.sh)"
    "release|deb|rpm|4.18.0+dfsg-1+deb12u1|command rpmbuild|the .rpms are built and installed into a bullseye root (release.sh, check-release.sh)"
    "release|deb|rpmlint|2.4.0+ds1-0.2|command rpmlint|the .rpms are checked (check-release.sh)"
    "release|deb|debootstrap|1.0.128+nmu2+deb12u2|command debootstrap|Debian bullseye and trixie roots (scripts/release/roots.sh, toolchain.sh)"
    "release|deb|qemu-user-static|-|command qemu-aarch64-static|the arm64 binary run in an arm64 bullseye root (check-release.sh)"
    "release|deb|man-db|-|command man|the man page renders (check-release.sh)"
    "release|deb|util-linux|-|command unshare|namespaces for the roots and upsmon"
    "release|deb|gcc|-|command cc|the release's glibc shims are compiled (release.sh)"
    "browser|deb|chromium|156.0.8078.108-1~deb12u1|command chromium|headless Chromium loads the status pages, reads their DOM and takes their screenshots (the status_page group)"
    "browser|pip|html5lib|1.1|python html5lib|the WHATWG HTML parser validates the status pages' markup as served (the status_page group)"
    "browser|deb|fonts-wqy-zenhei|0.9.45-8|file /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc|Chinese glyphs in the status pages' screenshots (the status_page group)"
    "zabbix|debmin|zabbix-server-pgsql|1:6.0.14+dfsg-1+b1|file /usr/sbin/zabbix_server|a real Zabbix 6.0 server polls the exporter and the SNMP agent with deploy/zabbix's templates (the zabbix group)"
    "zabbix|debmin|zabbix-frontend-php|1:6.0.14+dfsg-1|file /usr/share/zabbix/api_jsonrpc.php|Zabbix's API (api_jsonrpc.php) imports the templates and reads items and problems (the zabbix group)"
    "zabbix|debmin|php8.2-cgi|-|command php-cgi|satisfies the frontend's PHP without Apache (served by php -S; the zabbix group)"
    "zabbix|debmin|php8.2-cli|-|command php|php -S serves the frontend on loopback (the zabbix group)"
    "zabbix|debmin|php8.2-pgsql|-|file /etc/php/8.2/mods-available/pgsql.ini|the frontend reads Zabbix's PostgreSQL database (the zabbix group)"
    "zabbix|debmin|postgresql-15|15.20-0+deb12u1|file /usr/lib/postgresql/15/bin/initdb|Zabbix's database: a cluster of the case's own (the zabbix group)"
    "measure|deb|wrk|4.1.0-3+b2|command wrk|HTTP load for the measurement scripts (loadtest, nut-load, snmp-load, runtime-figures)"
)

fields() { IFS='|' read -r group kind package version probe why <<<"$1"; }

if [ "${1:-}" = --list ]; then
    printf '%-10s %-4s %-28s %-24s %s\n' group kind package version why
    for entry in "${manifest[@]}"; do
        fields "$entry"
        printf '%-10s %-4s %-28s %-24s %s\n' "$group" "$kind" "$package" "$version" "$why"
    done
    exit 0
fi
[ $# -gt 0 ] || { echo "usage: scripts/ci/tools.sh GROUP... | --list" >&2; exit 64; }
for wanted in "$@"; do
    printf '%s\n' "${manifest[@]}" | cut -d'|' -f1 | grep -qx "$wanted" \
        || { echo "tools.sh: no group '$wanted' (groups: $(printf '%s\n' "${manifest[@]}" | cut -d'|' -f1 | sort -u | tr '\n' ' '))" >&2; exit 64; }
done

present() {  # PROBE: command NAME, file PATH or python MODULE
    local how=${1%% *} what=${1#* }
    case "$how" in
        command) PATH="$PATH:/usr/sbin:/sbin" command -v "$what" >/dev/null 2>&1 ;;
        file) [ -e "$what" ] ;;
        python) python3 -c "import $what" >/dev/null 2>&1 ;;
    esac
}

debs=() debmins=() pips=()
for entry in "${manifest[@]}"; do
    fields "$entry"
    printf '%s\n' "$@" | grep -qx "$group" || continue
    case "$kind" in
        deb) present "$probe" || debs+=("$package|$version") ;;
        debmin) present "$probe" || debmins+=("$package|$version") ;;
        pip)
            installed=$(python3 -m pip show "$package" 2>/dev/null | awk '/^Version:/ {print $2}' || true)
            [ "$installed" = "$version" ] || pips+=("$package==$version") ;;
    esac
done

if [ ${#pips[@]} -gt 0 ] && ! python3 -m pip --version >/dev/null 2>&1; then
    debs+=("python3-pip|-")   # installs the PyPI packages
fi
# versioned LIST...: each package|version of LIST as apt-get takes it (package=version, or the
# version offered when the archive no longer has the pinned one).
versioned() {
    local item package version offered
    for item in $(printf '%s\n' "$@" | sort -u); do
        package=${item%%|*} version=${item#*|}
        if [ "$version" = - ]; then
            echo "$package"
        elif apt-cache madison "$package" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "$version"; then
            echo "$package=$version"
        else
            offered=$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ {print $2}')
            echo "tools.sh: $package $version is no longer offered; installing $offered (update scripts/ci/tools.sh)" >&2
            echo "$package"
        fi
    done
}
# One install at a time (integration cases run side by side by run-tests.sh --jobs): the second
# waits for the first, then installs what is still missing (apt-get and pip skip the rest).
if [ $((${#debs[@]} + ${#debmins[@]} + ${#pips[@]})) -gt 0 ]; then
    exec 8>>/tmp/wpexporter-tools.lock
    flock 8
fi
if [ $((${#debs[@]} + ${#debmins[@]})) -gt 0 ]; then
    apt-get update -qq >/dev/null
    # Packages that ship a service (postgresql, zabbix-server, snmpd, mosquitto) do not start it:
    # the checks start their own, on loopback, and nothing is left running system-wide. A
    # policy-rc.d saying 101 (action forbidden) is put in place for the install when the machine
    # has none.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        trap 'rm -f "$policy"' EXIT
    fi
    if [ ${#debs[@]} -gt 0 ]; then
        mapfile -t install < <(versioned "${debs[@]}")
        echo "tools.sh: installing ${install[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${install[@]}" >/dev/null
    fi
    # debmin: without the recommended packages (the Zabbix frontend's would bring Apache).
    if [ ${#debmins[@]} -gt 0 ]; then
        mapfile -t install < <(versioned "${debmins[@]}")
        echo "tools.sh: installing ${install[*]} (without recommended packages)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${install[@]}" >/dev/null
    fi
fi
if [ ${#pips[@]} -gt 0 ]; then
    echo "tools.sh: installing ${pips[*]} (PyPI)"
    python3 -m pip install -q "${pips[@]}" >/dev/null 2>&1 \
        || python3 -m pip install -q --break-system-packages "${pips[@]}" >/dev/null
fi

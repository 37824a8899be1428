#!/usr/bin/env bash
# Real SNMP clients against the exporter's SNMP agent (in CI), three UPSs of a simulated WinPower:
#   - net-snmp's snmpwalk (v2c: the default UPS and each UPS by `community@name`, the names
#     from the NUT server's LIST UPS) and pysnmp (PyPI, a second implementation) walk every
#     UPS and agree on every instance, type and value; SNMPv3 authPriv (SHA-256,
#     AES-128) with a context, the same; a wrong community is answered by nothing;
#   - SNMPv3 users of each authentication protocol (users_file's auth_protocol): net-snmp's
#     snmpget reads through SHA, SHA-224, SHA-256, SHA-384 and SHA-512 (authPriv, AES), Nagios'
#     check_snmp (monitoring-plugins) through `-a SHA` and `-a SHA256`; a wrong password is
#     told "Authentication failure" (a report), not a timeout;
#   - the Debian prometheus-snmp-exporter scrapes the agent with deploy/snmp-exporter/snmp.yml,
#     and its values equal snmpget's; each UPS through a per-UPS module merging it (the file's
#     recipe for 0.21) reads that UPS;
#   - differential: net-snmp's own snmpd, given the same system-group values, serves the same
#     scalars with the same types and values (sysUpTime's value and sysObjectID aside; snmpd's
#     sysORLastChange and sysORTable, which the agent does not serve, are listed).
# About 20 s.
#
#   IntegrationTests/tests_03_snmp/test_01_clients.sh
#
# Installs snmp, snmpd, prometheus-snmp-exporter and monitoring-plugins-standard (Debian) and
# pysnmp (PyPI) when missing. Loopback only: the agent, snmpd and snmp_exporter bind port 0 and
# their ports are read back (from the exporter's log, the socket snmpd holds, snmp_exporter's log).
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh snmp   # net-snmp's clients and snmpd, snmp_exporter, check_snmp, pysnmp
check_snmp=/usr/lib/nagios/plugins/check_snmp
export SNMP_PERSISTENT_DIR="$work/net-snmp" SNMPCONFPATH="$work/net-snmp" HOME="$work"
mkdir -p "$work/net-snmp"

community='c0mm-Unity'
# reader: SHA-256 (no auth_protocol: the default); one user per other protocol, named after it.
protocols=(SHA SHA-224 SHA-384 SHA-512)
{
    printf 'communities:\n  - community: %s\nusers:\n  reader:\n    auth_password: auth-pass-123\n    priv_password: priv-pass-456\n' \
        "$community"
    for protocol in "${protocols[@]}"; do
        printf '  user-%s:\n    auth_protocol: %s\n    auth_password: auth-%s-pw\n    priv_password: priv-%s-pw\n' \
            "$protocol" "$protocol" "$protocol" "$protocol"
    done
} >"$work/snmp-users.yml"
chmod 600 "$work/snmp-users.yml"
start_simulator 3
# One collection a minute: the walks compared below read the same collection (the simulator's
# readings and upsSecondsOnBattery move with every one).
start_exporter "$work/exporter.log" --snmp.listen 127.0.0.1:0 --snmp.users_file "$work/snmp-users.yml" \
    --snmp.system.name ups-gateway --snmp.system.contact ops@example.com --snmp.system.location "二号机房 hall-2" \
    --nut.listen 127.0.0.1:0 --scheduler.collection_interval 60s --energy.max_gap 5m
agent_port=$(listening_port "$work/exporter.log" '"udp server listening"')
[ -n "$agent_port" ] || fail "no SNMP agent"
agent="127.0.0.1:$agent_port"
# Every UPS's name: the agent names them as the NUT server does, and NUT lists them.
nut_port=$(listening_port "$work/exporter.log")
mapfile -t names < <(python3 - "$nut_port" <<'PY'
import socket, sys
sys.path.insert(0, "scripts")
from nutclient import ask
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
listing = ask(conn, "LIST UPS", "END LIST UPS\n").decode()
print("\n".join(line.split(" ")[1] for line in listing.splitlines() if line.startswith("UPS ")))
PY
)
[ "${#names[@]}" -eq 3 ] || fail "NUT lists ${#names[@]} UPSs, not 3"

# `OID<TAB>TYPE<TAB>VALUE` lines of net-snmp's output (an empty string is printed `OID = ""`;
# the end-of-view line of a v2c walk is dropped).
walk_net_snmp() {
    snmpwalk -m '' -On -Oe -t 5 -r 1 "$@" | grep -v 'No more variables left in this MIB View' \
        | sed -e 's/^\([^ ]*\) = ""$/\1\tSTRING\t/' -e 's/^\([^ ]*\) = \([^:]*\): \(.*\)$/\1\t\2\t\3/'
}
# The default UPS's name (upsIdentName, the name NUT gives it), to select it by name too.
first=$(snmpget -m '' -Oqv -t 5 -r 1 -v 2c -c "$community" "$agent" 1.3.6.1.2.1.33.1.1.5.0 | tr -d '"')
[ -n "$first" ] || fail "no upsIdentName from $agent"
echo "$name: the default UPS is $first"

# 1. net-snmp and pysnmp agree on every instance of the default UPS and of `community@first`.
python_walk() { python3 IntegrationTests/tests_03_snmp/pysnmp-walk.py "$agent_port" "$@"; }
normalize_net() { awk -F'\t' '{ oid = substr($1, 2); type = $2; value = $3; gsub(/^"|"$/, "", value);
    if (type == "INTEGER") type = "Integer"; else if (type == "STRING") { type = "OctetString"; gsub(/\\"/, "\"", value) } else if (type == "OID") { type = "ObjectIdentifier"; value = substr(value, 2) }
    else if (type == "Timeticks") { type = "TimeTicks"; sub(/^\(/, "", value); sub(/\).*$/, "", value) }
    print oid "\t" type "\t" value }'; }
selectors=("$community")
for ups in "${names[@]}"; do selectors+=("$community@$ups"); done
for selector in "${selectors[@]}"; do
    walk_net_snmp -v 2c -c "$selector" "$agent" 1.3.6.1 | normalize_net | grep -v '^1.3.6.1.2.1.1.3.0' >"$work/net.tsv"
    python_walk v2c "$selector" 1.3.6.1 | grep -v '^1.3.6.1.2.1.1.3.0' >"$work/py.tsv"
    count=$(wc -l <"$work/net.tsv")
    [ "$count" -gt 10 ] || fail "only $count instances walked"  # a disconnected UPS serves its identification and alarm only
    diff -u "$work/net.tsv" "$work/py.tsv" || fail "net-snmp and pysnmp disagree ($selector)"
    echo "$name: v2c walk ($selector): net-snmp and pysnmp agree on $count instances" | sed "s/$community/COMMUNITY/"
done
walk_net_snmp -v 3 -l authPriv -u reader -a SHA-256 -A auth-pass-123 -x AES -X priv-pass-456 -n "$first" "$agent" 1.3.6.1.2.1.33 \
    | normalize_net >"$work/net3.tsv"
python_walk v3 reader auth-pass-123 priv-pass-456 1.3.6.1.2.1.33 >"$work/py3.tsv"
diff -u "$work/net3.tsv" "$work/py3.tsv" || fail "net-snmp and pysnmp disagree over SNMPv3"
echo "$name: v3 authPriv walk: net-snmp and pysnmp agree on $(wc -l <"$work/net3.tsv") instances"
if snmpget -m '' -t 1 -r 0 -v 2c -c wrong-community "$agent" 1.3.6.1.2.1.1.1.0 >/dev/null 2>&1; then
    fail "a wrong community was answered"
fi

# 2. Each authentication protocol: net-snmp reads every one, check_snmp SHA and SHA256, a wrong
# password is refused with a report.
v3_args() {  # USER PROTOCOL AUTH-PASSWORD PRIV-PASSWORD
    printf '%s\n' -v 3 -l authPriv -u "$1" -a "$2" -A "$3" -x AES -X "$4" -n "$first"
}
read_as() {  # USER PROTOCOL AUTH-PASSWORD PRIV-PASSWORD: upsIdentName through snmpget
    local args
    mapfile -t args < <(v3_args "$@")
    snmpget -m '' -Oqv -t 5 -r 1 "${args[@]}" "$agent" 1.3.6.1.2.1.33.1.1.5.0 | tr -d '"'
}
[ "$(read_as reader SHA-256 auth-pass-123 priv-pass-456)" = "$first" ] \
    || fail "net-snmp cannot read as reader with SHA-256"
for protocol in "${protocols[@]}"; do
    [ "$(read_as "user-$protocol" "$protocol" "auth-$protocol-pw" "priv-$protocol-pw")" = "$first" ] \
        || fail "net-snmp cannot read with $protocol"
done
echo "$name: net-snmp reads upsIdentName through SHA-256 (the default) and ${protocols[*]} (authPriv, AES)"
nagios_read() {  # USER PROTOCOL AUTH-PASSWORD PRIV-PASSWORD
    "$check_snmp" -H 127.0.0.1 -p "$agent_port" -t 10 -P 3 -L authPriv -U "$1" -a "$2" -A "$3" -x AES -X "$4" -N "$first" \
        -o 1.3.6.1.2.1.33.1.1.5.0
}
for pair in user-SHA:SHA:auth-SHA-pw:priv-SHA-pw reader:SHA256:auth-pass-123:priv-pass-456; do
    IFS=: read -r user protocol auth priv <<<"$pair"
    output=$(nagios_read "$user" "$protocol" "$auth" "$priv") \
        || fail "check_snmp -a $protocol failed: $output"
    case "$output" in "SNMP OK"*"$first"*) ;; *) fail "check_snmp -a $protocol: $output" ;; esac
    echo "$name: check_snmp -a $protocol: $output"
done
mapfile -t wrong < <(v3_args reader SHA-256 not-the-password priv-pass-456)
if refused=$(snmpget -m '' -t 2 -r 0 "${wrong[@]}" "$agent" 1.3.6.1.2.1.33.1.1.5.0 2>&1); then
    fail "a wrong password was answered"
fi
case "$refused" in *"Authentication failure"*) ;; *) fail "a wrong password: $refused (not Authentication failure)" ;; esac
echo "$name: a wrong password: $refused"

if grep -q "$community\|priv-pass-456\|auth-SHA\|priv-SHA" "$work/exporter.log"; then
    fail "a community or password is in the log"
fi

# 3. prometheus-snmp-exporter with the module in deploy/.
sed "s/community: public/community: $community/" deploy/snmp-exporter/snmp.yml >"$work/snmp-exporter.yml"
start_listening "$work/snmp-exporter.log" / prometheus-snmp-exporter --config.file="$work/snmp-exporter.yml"
snmp_exporter_pid=$listener_pid
scrape=$(curl -sf "http://127.0.0.1:$listener_port/snmp?target=$agent&module=ups_mib")
for pair in upsEstimatedChargeRemaining:1.3.6.1.2.1.33.1.2.4.0 upsOutputSource:1.3.6.1.2.1.33.1.4.1.0 \
            upsEstimatedMinutesRemaining:1.3.6.1.2.1.33.1.2.3.0 'upsInputVoltage{upsInputLineIndex="1"}:1.3.6.1.2.1.33.1.3.3.1.3.1'; do
    metric=${pair%%:*}
    oid=${pair##*:}
    expected=$(snmpget -m '' -Oqv -t 5 -r 1 -v 2c -c "$community" "$agent" "$oid")
    got=$(printf '%s\n' "$scrape" | grep -F "$metric " | grep -v '^#' | awk '{ print $NF }' | head -1)
    [ "$got" = "$expected" ] || fail "snmp_exporter $metric = '$got', snmpget $oid = '$expected'"
done
# Several UPSs through one agent: a three-line module per UPS merging ups_mib (the file's own
# recipe for 0.21), each scrape naming its UPS.
for ups in "${names[@]}"; do
    printf 'ups_mib@%s:\n  <<: *ups_mib\n  auth:\n    community: "%s@%s"\n' "$ups" "$community" "$ups" >>"$work/snmp-exporter.yml"
done
kill "$snmp_exporter_pid" 2>/dev/null || true
wait "$snmp_exporter_pid" 2>/dev/null || true
start_listening "$work/snmp-exporter-ups.log" / prometheus-snmp-exporter --config.file="$work/snmp-exporter.yml"
unread=()
for ups in "${names[@]}"; do
    scrape=$(curl -sf "http://127.0.0.1:$listener_port/snmp?target=$agent&module=ups_mib@$ups") \
        || fail "snmp_exporter module ups_mib@$ups failed"
    # A UPS the agent cannot read (the demo's disconnected one) has no identification, only
    # upsAlarmsPresent (communications lost): then neither has the scrape.
    if snmpget -m '' -Oqv -t 5 -r 1 -v 2c -c "$community@$ups" "$agent" 1.3.6.1.2.1.33.1.1.5.0 | grep -q 'No Such'; then
        if grep -q '^upsIdentName' <<<"$scrape" || ! grep -q '^upsAlarmsPresent 1' <<<"$scrape"; then
            fail "snmp_exporter module ups_mib@$ups (a UPS without readings) read: $(grep -E '^ups(IdentName|AlarmsPresent)' <<<"$scrape")"
        fi
        unread+=("$ups")
        continue
    fi
    grep -q "^upsIdentName{upsIdentName=\"$ups\"} 1" <<<"$scrape" \
        || fail "snmp_exporter module ups_mib@$ups read another UPS: $(grep '^upsIdentName' <<<"$scrape")"
done
echo "$name: prometheus-snmp-exporter reads the UPS-MIB module; its values equal snmpget's; ${#names[@]} UPSs through per-UPS modules merging it (without readings, so without identification: ${unread[*]:-none})"

# 4. snmpd with the same system group. The location is given in Chinese: a DisplayString is
# ASCII, so the agent serves it in pinyin (docs/snmp.md), a plain STRING as snmpd serves its own.
descr=$(snmpget -m '' -Oqv -t 5 -r 1 -v 2c -c "$community" "$agent" 1.3.6.1.2.1.1.1.0 | tr -d '"')
cat >"$work/snmpd.conf" <<CONF
agentaddress udp:127.0.0.1:0
rocommunity $community 127.0.0.1
sysDescr $descr
sysName ups-gateway
sysContact ops@example.com
sysLocation erhaojifang hall-2
sysServices 72
CONF
/usr/sbin/snmpd -f -Lo -C -c "$work/snmpd.conf" -p "$work/snmpd.pid" >"$work/snmpd.log" 2>&1 &
# snmpd binds port 0 as told and does not say which port it got: read from the socket it holds.
snmpd_port=$(socket_port $! udp)
[ -n "$snmpd_port" ] || fail "snmpd is not listening"
wait_for 10 snmpget -m '' -t 1 -r 0 -v 2c -c "$community" "127.0.0.1:$snmpd_port" 1.3.6.1.2.1.1.5.0 >/dev/null 2>&1 || true
system_of() { walk_net_snmp -v 2c -c "$community" "$1" 1.3.6.1.2.1.1 | normalize_net; }
system_of "$agent" >"$work/agent-system.tsv"
system_of "127.0.0.1:$snmpd_port" >"$work/snmpd-system.tsv"
extra=$(cut -f1 "$work/snmpd-system.tsv" | grep -c -v -x -F -f <(cut -f1 "$work/agent-system.tsv") || true)
echo "$name: snmpd serves $extra instances the agent does not (sysORLastChange and the sysORTable rows)"
# Values where both can be given the same (snmp.system.* and snmpd.conf); types everywhere.
for oid in 1.3.6.1.2.1.1.1.0 1.3.6.1.2.1.1.4.0 1.3.6.1.2.1.1.5.0 1.3.6.1.2.1.1.6.0 1.3.6.1.2.1.1.7.0; do
    a=$(grep -P "^$oid\t" "$work/agent-system.tsv" || true)
    b=$(grep -P "^$oid\t" "$work/snmpd-system.tsv" || true)
    [ "$a" = "$b" ] || fail "system group differs at $oid: agent '$a', snmpd '$b'"
done
for oid in 1.3.6.1.2.1.1.2.0 1.3.6.1.2.1.1.3.0 1.3.6.1.2.1.1.4.0 1.3.6.1.2.1.1.6.0; do
    [ "$(grep -P "^$oid\t" "$work/agent-system.tsv" | cut -f2)" = "$(grep -P "^$oid\t" "$work/snmpd-system.tsv" | cut -f2)" ] \
        || fail "the type of $oid differs from snmpd's"
done
# A selected UPS names itself; the agent without a selector is snmp.system.name.
selected_name=$(snmpget -m '' -Oqv -t 5 -r 1 -v 2c -c "$community@$first" "$agent" 1.3.6.1.2.1.1.5.0 | tr -d '"')
[ "$selected_name" = "$first" ] || fail "sysName of $community@$first is '$selected_name'"
echo "$name: the system group equals snmpd's (sysDescr, sysContact, sysName, sysLocation, sysServices; sysObjectID, sysUpTime by type); a selected UPS's sysName is its name"
echo "$name: ok"

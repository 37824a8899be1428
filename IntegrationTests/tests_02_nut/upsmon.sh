# shellcheck shell=bash disable=SC2034  # sets variables its cases read
# Sourced by this group's upsmon cases (never run alone): it sources the harness, installs
# nut-client when missing, writes the exporter's configuration — NUT on 127.0.0.1:0 with two
# users (upsmon-primary, upsmon-secondary), nut.battery_runtime_low 7102 s, anonymous reads,
# `ups` for the first UPS — and names four of the simulator's UPSs:
#
#   outage_ups (device 0, mains fails when the case's schedule says), stale_ups (device 2,
#   disconnected), test_ups (device 4, a battery self-test the whole time), mains_ups (device 7)
#
# and gives the cases:
#
#   nut_listener LOG     the NUT server's address the exporter logged (sets nut_port and nut)
#   expect_listed WHEN   fails unless upsc -l lists the four UPSs
#   nut_ask LINE...      one NUT conversation on a fresh connection; prints the replies
#   no_password_logged   fails when a NUT password is in an exporter log
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
upsmon=/lib/nut/upsmon
scripts/ci/tools.sh nut   # upsmon, upsc

cat >"$work/nut-users.yml" <<'USERS'
users:
  upsmon-primary:
    password: primary-pass
    upsmon: primary
  upsmon-secondary:
    password: secondary-pass
    upsmon: secondary
USERS
chmod 600 "$work/nut-users.yml"
# The UPSs watched are named in the configuration (winpower.devices.overrides): NUT names
# follow the names the exporter gives devices.
outage_ups=outage-ups test_ups=test-ups stale_ups=stale-ups mains_ups=mains-ups
# The runtime the simulator reports on battery is (95 - t/120) × 75 s at t seconds: 7109 s when
# an outage starts at 25 s, under 7102 s from about 37 s.
cat >"$work/config.yml" <<CONFIG
winpower:
  devices:
    overrides:
      $(device_id 0):
        name: $outage_ups
      $(device_id 2):
        name: $stale_ups
      $(device_id 4):
        name: $test_ups
      $(device_id 7):
        name: $mains_ups
nut:
  listen: 127.0.0.1:0
  users_file: $work/nut-users.yml
  battery_runtime_low: 7102s
  allow_anonymous: true
  default_ups: $(device_id 0)
CONFIG

nut_listener() {
    nut_port=$(await_port "$1")
    [ -n "$nut_port" ] || fail "no NUT listener in ${1##*/}"
    nut="127.0.0.1:$nut_port"
}
expect_listed() {
    local listed ups
    listed=$(upsc -l "$nut" 2>/dev/null | tr '\n' ' ')
    for ups in "$outage_ups" "$test_ups" "$stale_ups" "$mains_ups"; do
        grep -qw -- "$ups" <<<"$listed" || fail "$1, $ups is not listed by upsc -l ($listed)"
    done
}
nut_ask() { python3 - "$nut_port" "$@" <<'PY'
import socket, sys
sys.path.insert(0, "scripts")
from nutclient import ask
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for line in sys.argv[2:]:
    print(ask(conn, line).decode(), end="")
PY
}
no_password_logged() {
    if grep -q -e 'primary-pass' -e 'secondary-pass' "$work"/exporter*.log; then fail "a NUT password is in the log"; fi
}

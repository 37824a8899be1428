#!/usr/bin/env bash
# End-to-end check of the outage ledger (tests_06_end_to_end/outage.sh: the schedule, the
# tolerances): three scheduled outages of device 0 (4 s, 4 s, 10 s) under an exporter collecting
# every second: 3 transfers, a duration histogram count of 3, the time on battery within one
# interval of the truth. test_05_outage_killed.sh kills the exporter in the middle of the third.
# About 35 s.
#
#   IntegrationTests/tests_06_end_to_end/test_01_outage.sh
#
# Loopback only; both processes bind port 0 and their addresses are read from their output.
set -euo pipefail
# shellcheck source=IntegrationTests/tests_06_end_to_end/outage.sh
source "$(dirname "$0")/outage.sh"
run plain
echo "$name: ok"

#!/usr/bin/env bash
# End-to-end check of the outage ledger (tests_06_end_to_end/outage.sh: the schedule, the
# tolerances): the same three scheduled outages of device 0 as test_01_outage.sh, the exporter
# killed with SIGKILL in the middle of the third and restarted at once: the outage in progress
# stays one outage, its end is observed by the new process, and the time on battery is the truth
# less the time the exporter was down. About 35 s.
#
#   IntegrationTests/tests_06_end_to_end/test_05_outage_killed.sh
#
# Loopback only; both processes bind port 0 and their addresses are read from their output.
set -euo pipefail
# shellcheck source=IntegrationTests/tests_06_end_to_end/outage.sh
source "$(dirname "$0")/outage.sh"
run kill
echo "$name: ok"

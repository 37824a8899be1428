# shellcheck shell=bash
# Sourced first (before the harness) by a case, or a measurement under Benchmarks/measure/, that
# runs in namespaces of its own: a network
# namespace with only its loopback up, so that a server that takes no port 0 (Mosquitto, Zabbix,
# PostgreSQL) listens on its usual fixed port there, which nothing else can reach.
#
#   netns_tools="tests mqtt"                      # scripts/ci/tools.sh groups the case needs
#   netns_flags="--net --mount"                   # unshare's namespaces (default --net)
#   source "$(dirname "$0")/../netns.sh"          # a case; IntegrationTests/netns.sh from elsewhere
#
# Outside the namespaces it installs the tools (the namespace has no route out), then runs the
# case ($0, with its arguments) again inside them and does not return; inside, it returns.
# Needs root.
if [ -z "${WP_NETNS:-}" ]; then
    # shellcheck disable=SC2086  # groups and flags: one word each
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && scripts/ci/tools.sh ${netns_tools:-tests})
    # shellcheck disable=SC2016,SC2086  # $0 and $@ are the inner shell's: the case and its arguments
    exec unshare ${netns_flags:---net} env WP_NETNS=1 bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
fi

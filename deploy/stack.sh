#!/usr/bin/env bash
# Manage the wpexporter monitoring stack (exporter, Prometheus, Alertmanager, Grafana).
#
#   deploy/stack.sh start            build the exporter image if needed and start everything
#   deploy/stack.sh stop             stop and remove the containers (volumes are kept)
#   deploy/stack.sh restart          stop, then start
#   deploy/stack.sh status           container state and the exporter's /health answer
#   deploy/stack.sh logs [SERVICE]   follow the logs of every service or of one
#
# Settings are read from deploy/.env (see docs/deployment.md). Without WINPOWER_BASE_URL (or
# without deploy/.env at all) the exporter runs `demo` against its built-in WinPower simulator.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

compose() {
    if docker compose version >/dev/null 2>&1; then
        docker compose -f "$here/docker-compose.yml" "$@"
    elif command -v docker-compose >/dev/null 2>&1; then
        docker-compose -f "$here/docker-compose.yml" "$@"
    else
        echo "stack.sh: neither 'docker compose' nor 'docker-compose' is available" >&2
        exit 1
    fi
}

env_value() {
    # The value of KEY in deploy/.env, or nothing.
    [[ -f "$here/.env" ]] || return 0
    sed -n "s/^$1=//p" "$here/.env" | tail -n 1 | tr -d '"'"'"
}

prepare() {
    command -v docker >/dev/null 2>&1 || { echo "stack.sh: docker is not installed" >&2; exit 1; }
    if [[ -n "$(env_value WINPOWER_BASE_URL)" ]]; then
        # server mode: the password comes from the secret file (compose's own default,
        # /dev/null, is for the demo, which needs no password).
        local secret
        secret="$(env_value WINPOWER_PASSWORD_SECRET)"
        secret="${secret:-./secrets/winpower_password}"
        if [[ ! -s "$secret" ]]; then
            echo "stack.sh: $secret is missing or empty; write the WinPower password there (mode 600, see docs/deployment.md)" >&2
            exit 1
        fi
        export WINPOWER_PASSWORD_SECRET="$secret"
        [[ -n "$(env_value WPEXPORTER_COMMAND)" ]] || export WPEXPORTER_COMMAND=server
    fi
}

show_status() {
    compose ps
    local port
    port="$(env_value WPEXPORTER_PORT)"
    port="${port:-9091}"
    echo
    if command -v curl >/dev/null 2>&1; then
        echo "exporter health (http://127.0.0.1:$port/health):"
        curl -fsS --max-time 5 "http://127.0.0.1:$port/health" || echo "  not answering"
        echo
    fi
    echo "Prometheus:   http://127.0.0.1:$(env_value PROMETHEUS_PORT | grep . || echo 9090)"
    echo "Alertmanager: http://127.0.0.1:$(env_value ALERTMANAGER_PORT | grep . || echo 9093)"
    echo "Grafana:      http://127.0.0.1:$(env_value GRAFANA_PORT | grep . || echo 3000)"
}

case "${1:-}" in
    start)
        prepare
        compose up -d --build
        show_status
        ;;
    stop)
        compose down
        ;;
    restart)
        compose down
        prepare
        compose up -d --build
        show_status
        ;;
    status)
        show_status
        ;;
    logs)
        shift
        compose logs -f --tail=200 "$@"
        ;;
    *)
        sed -n '2,11p' "$here/stack.sh" | sed 's/^# \{0,1\}//'
        exit 64
        ;;
esac

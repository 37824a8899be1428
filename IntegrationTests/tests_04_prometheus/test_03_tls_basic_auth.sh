#!/usr/bin/env bash
# TLS and basic auth end to end: `wpexporter demo` behind --web.config.file, with a throwaway CA
# and a bcrypt hash made here, answers 401 without credentials and with a wrong password (and
# 400, or nothing, to plain HTTP on its port); a real Prometheus with `tls_config` and
# `basic_auth` then scrapes it until up == 1 with device series. About 10 s. Installs Debian's
# prometheus when missing; openssl makes the certificates.
#
#   IntegrationTests/tests_04_prometheus/test_03_tls_basic_auth.sh
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests prometheus   # prometheus, promtool, openssl, curl, python3

tls="$work/tls"
mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=wpexporter e2e CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$tls/san.ext"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days 1 \
    -extfile "$tls/san.ext" -out "$tls/server.crt" 2>/dev/null
chmod 600 "$tls/server.key"
scrape_password="e2e-$RANDOM-$RANDOM"
printf '%s' "$scrape_password" >"$tls/scrape-password"
# shellcheck disable=SC2016  # the $ signs are bcrypt's, not the shell's
hash="$(python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], "$2b$06$" + "e2esaltsaltsaltsaltsal"))' "$scrape_password")"
# shellcheck disable=SC2016
[[ $hash == '$2b$06$'* ]] || fail "could not make a bcrypt hash for the basic-auth check"
cat >"$tls/web.yml" <<WEB
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: '$hash'
WEB
start_demo "$work/tls-exporter.log" --web.config.file "$tls/web.yml"
tls_port=${demo_base##*:}
# Any answer (401 without credentials) over a verified TLS connection.
wait_for 60 curl -s -o /dev/null -m 2 --cacert "$tls/ca.crt" "https://127.0.0.1:$tls_port/-/healthy" \
    || fail "wpexporter demo did not serve HTTPS on port $tls_port"
status="$(curl -s --max-time 5 --cacert "$tls/ca.crt" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$tls_port/metrics")"
[[ $status == 401 ]] || fail "a scrape without credentials got HTTP $status, not 401"
status="$(curl -s --max-time 5 --cacert "$tls/ca.crt" -u "prometheus:wrong" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$tls_port/metrics")"
[[ $status == 401 ]] || fail "a scrape with a wrong password got HTTP $status, not 401"
if curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$tls_port/metrics"; then
    status="$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tls_port/metrics")"
    [[ $status == 400 ]] || fail "plain HTTP to the TLS port got HTTP $status"
fi
echo "ok: the TLS listener refuses scrapes without valid credentials"

cat >"$work/prometheus-tls.yml" <<PROM
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: wpexporter-tls
    scheme: https
    tls_config:
      ca_file: $tls/ca.crt
    basic_auth:
      username: prometheus
      password_file: $tls/scrape-password
    static_configs:
      - targets: ["127.0.0.1:$tls_port"]
PROM
promtool check config "$work/prometheus-tls.yml" >/dev/null
start_listening "$work/prometheus-tls.log" /-/ready prometheus --config.file="$work/prometheus-tls.yml" \
    --storage.tsdb.path="$work/tsdb-tls"
python3 - "http://127.0.0.1:$listener_port" <<'PY'
import json, sys, time, urllib.parse, urllib.request
base = sys.argv[1]
deadline = time.monotonic() + 60
def query(expr):
    url = f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)["data"]["result"]
while True:
    up = query('up{job="wpexporter-tls"}')
    devices = query('count(winpower_device_load_total_watts{job="wpexporter-tls"})')
    if up and up[0]["value"][1] == "1" and devices and float(devices[0]["value"][1]) >= 1:
        print(f"ok: Prometheus scrapes over TLS with basic auth: up == 1, {devices[0]['value'][1]} devices with load")
        break
    if time.monotonic() > deadline:
        targets = urllib.request.urlopen(f"{base}/api/v1/targets", timeout=5).read().decode()
        sys.exit(f"FAIL: no successful TLS scrape within 60s; targets: {targets[:800]}")
    time.sleep(1)
PY

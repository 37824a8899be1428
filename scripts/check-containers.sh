#!/usr/bin/env bash
# Checks, without a container engine, that deploy/Dockerfile, deploy/docker-compose.yml and
# deploy/stack.sh agree with the wpexporter binary:
#   - the compose service's command, environment (with no deploy/.env: every ${VAR:-default}
#     at its default), secrets and volume are those the image and the binary expect;
#   - the container port of the published port, EXPOSE and the HEALTHCHECK port agree;
#   - stack.sh's defaults (exporter port, secret) match the compose file, and its usage works
#     from any directory;
#   - the image's build stage builds the static-stdlib binary as scripts/release.sh does, and its
#     runtime stage is a base without the Swift runtime, of the build image's distribution;
#   - the binary run with exactly that environment and command (on this machine: the image's
#     paths /run/secrets and /var/lib/wpexporter mapped into a temporary directory, and the
#     port replaced by a free one) starts with no warning, listens on all interfaces, serves
#     /metrics with the simulated devices (fetched over 127.0.0.1 only), passes the
#     HEALTHCHECK command (`wpexporter healthcheck`), exits 0 on SIGTERM, and then fails it;
#   - the HEALTHCHECK follows a port from the configuration file and TLS from the web
#     configuration;
#   - the runtime stage works in /app, so a configuration mounted at /app/config.yaml (as the
#     Go exporter's image reads it) is ./config.yaml and found; without one, the exporter names
#     the paths it searched;
#   - Dockerfile.dockerignore keeps deploy/.env, deploy/secrets/, key and certificate files,
#     configurations (config.yaml, web.yml, NUT users files) and .build directories out of the
#     build context (and not the sources); compose restarts on-failure:N, not forever.
# Uses the debug build (swift build), or the binary WPEXPORTER_BIN names (scripts/check-release.sh
# passes the release binary), and python3 with PyYAML.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
binary="${WPEXPORTER_BIN:-$(scripts/debug-binary.sh)}"
work="$(mktemp -d)"
pid=""
cleanup() {
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "== stack.sh usage from the repository root and from another directory"
for dir in "$root" "$work"; do
    status=0
    (cd "$dir" && bash "$root/deploy/stack.sh" >"$work/usage.txt" 2>&1) || status=$?
    grep -q "deploy/stack.sh start" "$work/usage.txt" || { echo "FAIL: stack.sh usage from $dir:"; cat "$work/usage.txt"; exit 1; }
    [[ $status == 64 ]] || { echo "FAIL: stack.sh without argument exits $status, expected 64"; exit 1; }
done

echo "== Dockerfile, docker-compose.yml and stack.sh agree"
# Prints NAME=VALUE lines of the container's environment, then the command on a COMMAND= line.
python3 - "$work" >"$work/container.env" <<'PY'
import re, sys, yaml

work = sys.argv[1]
failures = []
def fail(message):
    failures.append(message)

dockerfile = open("deploy/Dockerfile", encoding="utf-8").read().replace("\\\n", " ")
image_env = {}
for line in dockerfile.splitlines():
    if line.startswith("ENV "):
        for name, value in re.findall(r"(\w+)=(\S+)", line[4:]):
            image_env[name] = value
exposed = re.findall(r"^EXPOSE (\d+)", dockerfile, re.M)
entrypoint = re.search(r'^ENTRYPOINT \["([^"]+)"\]', dockerfile, re.M)
health = re.search(r"^HEALTHCHECK .*?CMD (.*)$", dockerfile, re.M)
ignore = [line.strip() for line in open("deploy/Dockerfile.dockerignore", encoding="utf-8")
          if line.strip() and not line.startswith("#")]
volume = re.search(r'^VOLUME \["([^"]+)"\]', dockerfile, re.M)
if entrypoint is None or entrypoint.group(1) != "/usr/local/bin/wpexporter":
    fail("Dockerfile: ENTRYPOINT is not /usr/local/bin/wpexporter")
if "/usr/local/bin/wpexporter" not in dockerfile.split("ENTRYPOINT")[0]:
    fail("Dockerfile: the binary is not installed at the ENTRYPOINT path")
stages = re.findall(r"^FROM (\S+)", dockerfile, re.M)
build_runs = " ".join(re.findall(r"^RUN (.*)$", dockerfile.split("\nFROM ")[1], re.M)) if len(stages) > 1 else ""
release_script = open("scripts/release.sh", encoding="utf-8").read()
static_build = "swift build -c release --static-swift-stdlib --product wpexporter"
if len(stages) != 2 or stages[-1].startswith("swift:") or "swift" in stages[-1]:
    fail(f"Dockerfile: the runtime stage {stages[-1:]} must be a base without the Swift runtime")
if static_build not in build_runs or "strip " not in build_runs:
    fail(f"Dockerfile: the build stage must run `{static_build}` and strip, as scripts/release.sh does")
if static_build not in release_script:
    fail(f"scripts/release.sh no longer builds with `{static_build}`; keep the Dockerfile's build the same")
if stages[0].endswith("-noble") != (stages[-1] == "ubuntu:24.04"):
    fail(f"Dockerfile: build image {stages[0]} and runtime base {stages[-1]} are not the same distribution (glibc)")
workdirs = re.findall(r"^WORKDIR (\S+)", dockerfile.split("\nFROM ")[-1], re.M)
if workdirs[-1:] != ["/app"]:
    fail(f"Dockerfile: the runtime stage works in {workdirs[-1:]}; /app, where the Go exporter's image reads ./config.yaml")
if image_env.get("WINPOWER_EXPORTER_SERVER_HOST") != "0.0.0.0":
    fail("Dockerfile: WINPOWER_EXPORTER_SERVER_HOST must be 0.0.0.0 (demo binds 127.0.0.1 otherwise)")

def resolve(text):
    """Compose interpolation with no .env and an empty shell environment."""
    def one(match):
        body = match.group(1)
        for separator in (":-", "-"):
            if separator in body:
                return body.split(separator, 1)[1]
        return ""
    return re.sub(r"\$\{([^}]*)\}", one, str(text))

compose = yaml.safe_load(open("deploy/docker-compose.yml", encoding="utf-8"))
service = compose["services"]["wpexporter"]
command = [resolve(part) for part in service.get("command", [])]
environment = dict(image_env)
for name, value in (service.get("environment") or {}).items():
    environment[name] = resolve(value)
port = environment.get("WINPOWER_EXPORTER_SERVER_PORT", environment.get("WINPOWER_EXPORTER_PORT", "9090"))
published = [resolve(entry) for entry in service.get("ports", [])]
container_ports = {entry.rsplit(":", 1)[1] for entry in published}
if container_ports != {port}:
    fail(f"compose: container ports {sorted(container_ports)} but the exporter listens on {port}")
if exposed != [port]:
    fail(f"Dockerfile: EXPOSE {exposed} but the exporter listens on {port}")
if health is None or health.group(1).strip() != '["/usr/local/bin/wpexporter", "healthcheck"]':
    fail("Dockerfile: HEALTHCHECK is not the exec form of `wpexporter healthcheck`, which follows the configured port and TLS")

def ignored(path):
    """dockerignore matching: * within a name, ** across directories; a match excludes below it."""
    def pattern_regex(pattern):
        out, i = "", 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                out, i = out + "(?:.*/)?", i + 3
            elif pattern.startswith("**", i):
                out, i = out + ".*", i + 2
            elif pattern[i] == "*":
                out, i = out + "[^/]*", i + 1
            else:
                out, i = out + re.escape(pattern[i]), i + 1
        return re.compile(out + "(?:/.*)?$")
    return any(pattern_regex(p.rstrip("/")).match(path) for p in ignore if not p.startswith("!"))
for path in ["deploy/.env", "deploy/secrets/winpower_password", ".env", ".build/debug/wpexporter",
             "Integrations/WPSwiftLog/.build/x", ".swiftpm/x", "Package.resolved",
             "key.pem", "deploy/tls/server.pem", "deploy/tls/client.pfx", "config.yaml", "config/config.yaml",
             "deploy/config.yml", "web.yml", "deploy/web-config.yaml", "nut-users.yml", "etc/nut/upsd.users"]:
    if not ignored(path):
        fail(f"Dockerfile.dockerignore: {path} is sent in the build context")
for path in ["Package.swift", "Sources/wpexporter/main.swift", "Tests/wpexporterTests/Golden/help-server.txt", ".git/HEAD"]:
    if ignored(path):
        fail(f"Dockerfile.dockerignore: {path} is needed by the build but excluded")
data_dir = environment.get("WINPOWER_EXPORTER_STORAGE_DATA_DIR", "")
mounts = [entry.split(":", 1)[1] for entry in service.get("volumes", []) if ":" in entry]
if volume is None or volume.group(1) != data_dir or data_dir not in mounts:
    fail(f"storage.data_dir {data_dir!r} is not the image's VOLUME and the compose volume")
secrets = compose.get("secrets", {})
for name in service.get("secrets", []):
    if name not in secrets:
        fail(f"compose: secret {name} is not defined")
password_file = environment.get("WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE")
if password_file and password_file.removeprefix("/run/secrets/") not in service.get("secrets", []):
    fail(f"compose: {password_file} is not a mounted secret")
secret_default = resolve(secrets.get("winpower_password", {}).get("file", ""))
if secret_default != "/dev/null":
    fail(f"compose: the winpower_password secret defaults to {secret_default!r}; without a file the demo must still start")
stack = open("deploy/stack.sh", encoding="utf-8").read()
if re.search(r"WPEXPORTER_PORT\)\"\n\s*port=\"\$\{port:-(\d+)\}", stack) is None or \
        re.search(r"WPEXPORTER_PORT\)\"\n\s*port=\"\$\{port:-(\d+)\}", stack).group(1) != published[0].rsplit(":", 1)[0]:
    fail("stack.sh: its default exporter port differs from compose's published port")
if "./secrets/winpower_password" not in stack or "WINPOWER_PASSWORD_SECRET" not in stack:
    fail("stack.sh: server mode must pass ./secrets/winpower_password as WINPOWER_PASSWORD_SECRET")
if not re.fullmatch(r"on-failure:\d+", str(service.get("restart", ""))):
    fail(f"compose: restart {service.get('restart')!r}; on-failure:N, so exit 78 (invalid configuration) is not restarted forever")
if len(command) != 1 or command[0] != "demo":
    fail(f"compose: with no .env the command is {command}, expected [demo]")
if failures:
    for failure in failures:
        print("FAIL: " + failure, file=sys.stderr)
    sys.exit(1)
# The image's paths, mapped into the temporary directory.
for name, value in environment.items():
    value = value.replace("/run/secrets/", work + "/secrets/").replace("/var/lib/wpexporter", work + "/data")
    print(f"{name}={value}")
print("COMMAND=" + " ".join(command))
print("PUBLISHED=" + published[0], file=sys.stderr)
PY
mkdir -p "$work/secrets" "$work/data" "$work/app"   # app: the image's working directory
: >"$work/secrets/winpower_password"   # the secret's default is /dev/null: an empty file
command="$(sed -n 's/^COMMAND=//p' "$work/container.env")"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mapfile -t environment < <(grep -v '^COMMAND=' "$work/container.env" | grep -v '^WINPOWER_EXPORTER_SERVER_PORT=')
environment+=("WINPOWER_EXPORTER_SERVER_PORT=$port" "HOME=$work" "PATH=$PATH")
echo "container environment: ${environment[*]}"
echo "container command: wpexporter $command"

if ldd "$binary" | grep -q 'libswiftCore'; then
    echo "note: $binary is a dynamic build; the image runs the static one (scripts/check-release.sh passes it)"
fi
echo "== the binary with the container's environment and command"
(cd "$work/app" && exec env -i "${environment[@]}" "$binary" "$command" >"$work/out.txt" 2>"$work/err.txt") &
pid=$!
for _ in $(seq 1 300); do
    # Until the first collection is in: /metrics answers before it, without devices.
    curl -fsS --max-time 2 -o "$work/metrics.txt" "http://127.0.0.1:$port/metrics" 2>/dev/null \
        && grep -q '^winpower_device_connected{' "$work/metrics.txt" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if ! grep -q '^winpower_device_connected{' "$work/metrics.txt" 2>/dev/null; then
    echo "FAIL: no device metrics on http://127.0.0.1:$port/metrics"; cat "$work/out.txt" "$work/err.txt"; exit 1
fi
if grep -q "warning:" "$work/err.txt" "$work/out.txt"; then
    echo "FAIL: warnings with the container's environment:"; grep "warning:" "$work/err.txt" "$work/out.txt"; exit 1
fi
hex_port="$(printf '%04X' "$port")"
if ! grep -q "^ *[0-9]*: 00000000:$hex_port 00000000:0000 0A" /proc/net/tcp; then
    echo "FAIL: not listening on 0.0.0.0:$port"; grep ":$hex_port " /proc/net/tcp || true; exit 1
fi
echo "listening on 0.0.0.0:$port, /metrics has $(grep -c '^winpower_device_connected{' "$work/metrics.txt") devices"
echo "== the image's HEALTHCHECK command (wpexporter healthcheck, with the container's environment)"
(cd "$work/app" && env -i "${environment[@]}" "$binary" healthcheck >"$work/health.txt" 2>&1) \
    || { echo "FAIL: HEALTHCHECK against the running exporter:"; cat "$work/health.txt"; exit 1; }
grep -qx "healthy: http://127.0.0.1:$port/-/healthy" "$work/health.txt" \
    || { echo "FAIL: HEALTHCHECK output:"; cat "$work/health.txt"; exit 1; }
echo "healthcheck passes: $(cat "$work/health.txt")"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[[ $status == 0 ]] || { echo "FAIL: exit status $status on SIGTERM"; cat "$work/err.txt"; exit 1; }
echo "stopped with status 0 on SIGTERM"
status=0
(cd "$work/app" && env -i "${environment[@]}" "$binary" healthcheck >"$work/health.txt" 2>&1) || status=$?
if [[ $status != 1 ]] || ! grep -q "^healthcheck: no answer from http://127.0.0.1:$port/-/healthy" "$work/health.txt"; then
    echo "FAIL: HEALTHCHECK after the exporter stopped: status $status"; cat "$work/health.txt"; exit 1
fi
echo "healthcheck fails once stopped: $(cat "$work/health.txt")"

echo "== HEALTHCHECK with the port from the configuration file and TLS from the web configuration"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
    -keyout "$work/tls.key" -out "$work/tls.crt" >/dev/null 2>&1
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$work/tls.crt" "$work/tls.key" >"$work/web.yml"
tls_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf 'server:\n  port: %s\n  web_config_file: %s\nstorage:\n  data_dir: %s\n' "$tls_port" "$work/web.yml" "$work/data-tls" >"$work/config.yaml"
mkdir -p "$work/data-tls"
mapfile -t tls_environment < <(grep -v '^COMMAND=' "$work/container.env" | grep -v -e '^WINPOWER_EXPORTER_SERVER_PORT=' -e '^WINPOWER_EXPORTER_STORAGE_DATA_DIR=')
tls_environment+=("HOME=$work" "PATH=$PATH")
(cd "$work/data-tls" && exec env -i "${tls_environment[@]}" "$binary" demo --config "$work/config.yaml" >"$work/tls-out.txt" 2>&1) &
pid=$!
for _ in $(seq 1 300); do
    curl -ksf --max-time 2 -o /dev/null "https://127.0.0.1:$tls_port/-/healthy" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
(cd "$work/data-tls" && env -i "${tls_environment[@]}" "$binary" healthcheck --config "$work/config.yaml" >"$work/health.txt" 2>&1) \
    || { echo "FAIL: HEALTHCHECK over TLS:"; cat "$work/health.txt" "$work/tls-out.txt"; exit 1; }
grep -qx "healthy: https://127.0.0.1:$tls_port/-/healthy" "$work/health.txt" \
    || { echo "FAIL: HEALTHCHECK over TLS output:"; cat "$work/health.txt"; exit 1; }
echo "healthcheck passes: $(cat "$work/health.txt")"
kill -TERM "$pid"
wait "$pid" || true
pid=""
echo "== a configuration mounted as the Go exporter's image reads it (/app/config.yaml)"
# check-config validates for `server` (the compose command is demo): without a file the base URL
# is missing, and the first line names the paths searched.
(cd "$work/app" && env -i "${environment[@]}" "$binary" check-config >"$work/check.txt" 2>&1) || true
grep -q '^configuration file: none found (searched ./config.yaml, ' "$work/check.txt" \
    || { echo "FAIL: without a configuration file the searched paths are not named:"; head -3 "$work/check.txt"; exit 1; }
printf 'winpower:\n  base_url: https://winpower.example.com\n  username: admin\n  timeout: 45s\n' >"$work/app/config.yaml"
printf 'not-a-real-password\n' >"$work/secrets/winpower_password"
(cd "$work/app" && env -i "${environment[@]}" "$binary" check-config >"$work/check.txt" 2>&1) \
    || { echo "FAIL: check-config with /app/config.yaml:"; cat "$work/check.txt"; exit 1; }
if ! grep -qx 'configuration file: ./config.yaml' "$work/check.txt" || ! grep -Eq '^winpower\.timeout +45s +file' "$work/check.txt"; then
    echo "FAIL: /app/config.yaml was not read:"; head -40 "$work/check.txt"; exit 1
fi
echo "/app/config.yaml read as ./config.yaml (winpower.timeout 45s from the file)"
echo "containers: consistent"

#!/usr/bin/env bash
# Runs every example command of docs/running.md, docs/deployment.md, docs/troubleshooting.md and
# the Chinese pages under docs/zh-CN/ (the ```sh blocks) that can run on a machine without a container engine or systemd, and fails
# on a command that does not work as shown or that this script does not know how to run.
#
# Each command runs as written except for these substitutions, which keep it on loopback, in a
# temporary directory and bounded in time:
#   - `wpexporter` and `.build/release/wpexporter` are the debug build (`swift build`), or the
#     binary WPEXPORTER_BIN names;
#   - https://winpower.example.com:8081 is a local `wpexporter simulate` (user and password
#     admin), and the passwords shown ('...', 'the-password') are admin;
#   - /etc/..., /var/lib/... and /usr/local/bin/ are under the temporary directory;
#   - `server` and `demo` get --port 0 unless they name a port, and --port 8081 becomes
#     --port 0; localhost:9090 in curl commands is a running demo;
#   - `server`, `demo` and `simulate` run until they print their URL (then /metrics is fetched
#     for server and demo) and are stopped with SIGTERM, which must give status 0.
# docs/security.md and its Chinese page are not run: their commands reproduce the attacks
# (gigabyte files, floods) and the integration suite's torture cases run those. Skipped, and listed as such: the commands of deployment.md's "Installing a release" (they need
# the release files, which scripts/check-release.sh checks), the release build, docker, kubectl,
# systemctl, journalctl and deploy/stack.sh (scripts/check-containers.sh covers the container files), env-file lines and
# fetching WinPower's certificate with openssl s_client.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
binary="${WPEXPORTER_BIN:-$(scripts/debug-binary.sh)}"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
# Commands run in $work/cwd; `install` and `jsonnet` ones in $work/src, which has deploy/.
mkdir -p "$work/bin" "$work/etc/systemd/system" "$work/var/lib" "$work/cwd" "$work/src"
ln -s "$root/deploy" "$work/src/deploy"

# Starts `$@` in the background, output in $work/bg.txt; waits for a printed URL; sets bg_pid, bg_port.
start_background() {
    : >"$work/bg.txt"
    (cd "$work/cwd" && exec "$@" >"$work/bg.txt" 2>&1) &
    bg_pid=$!
    pids+=("$bg_pid")
    bg_port=""
    for _ in $(seq 1 600); do
        bg_port="$(grep -oE '(metrics: +|simulator on )http://(127\.0\.0\.1|localhost):[0-9]+' "$work/bg.txt" | head -1 | grep -oE '[0-9]+$' || true)"
        [[ -n "$bg_port" ]] && return 0
        kill -0 "$bg_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "FAIL: no URL printed by: $*"; cat "$work/bg.txt"; return 1
}

stop_background() {
    kill -TERM "$bg_pid"
    local status=0
    wait "$bg_pid" || status=$?
    [[ $status == 0 ]] || { echo "FAIL: exit status $status on SIGTERM"; cat "$work/bg.txt"; return 1; }
}

# The WinPower server of the examples, and a demo for the troubleshooting commands.
start_background "$binary" simulate --port 0
simulator_pid=$bg_pid simulator_port=$bg_port
start_background "$binary" demo --port 0 --data-dir "$work/demo-for-curl"
demo_pid=$bg_pid demo_port=$bg_port
# config.yaml as deployment.md's systemd section installs it ("without the password").
cat >"$work/src/config.yaml" <<EOF
winpower:
  base_url: http://127.0.0.1:$simulator_port
  username: admin
  password_file: $work/etc/winpower-exporter/password
storage:
  data_dir: $work/var/lib/wpexporter
EOF

ran=0 skipped=0 page=""
# The pages whose commands run (docs/zh-CN/security.md: see above).
pages=(docs/running.md docs/deployment.md docs/troubleshooting.md)
for page in docs/zh-CN/*.md; do [ "$page" = docs/zh-CN/security.md ] || pages+=("$page"); done
while IFS=$'\t' read -r where command; do
    # An `export` holds for the rest of its page, as in one shell session.
    if [[ "${where%%:*}" != "$page" ]]; then
        page="${where%%:*}"
        unset WINPOWER_EXPORTER_WINPOWER_PASSWORD
    fi
    local_command="$command"
    if [[ "$where" == *:release ]]; then
        echo "skip ${where%:release}: installs a release (scripts/check-release.sh checks one): $command"; skipped=$((skipped + 1)); continue
    fi
    case "$command" in
        "swift build -c release"*) echo "skip $where: release build (the debug build stands in)"; skipped=$((skipped + 1)); continue ;;
        docker\ *|kubectl\ *|systemctl\ *|journalctl\ *|deploy/stack.sh\ *)
            echo "skip $where: needs a container engine or systemd: $command"; skipped=$((skipped + 1)); continue ;;
        [A-Z_]*=*) echo "skip $where: deploy/.env contents"; skipped=$((skipped + 1)); continue ;;
        "openssl s_client"*) echo "skip $where: needs WinPower's HTTPS server: $command"; skipped=$((skipped + 1)); continue ;;
    esac
    local_command="${local_command//https:\/\/winpower.example.com:8081/http://127.0.0.1:$simulator_port}"
    local_command="${local_command//\/etc\//$work/etc/}"
    local_command="${local_command//\/var\/lib\//$work/var/lib/}"
    local_command="${local_command//\/usr\/local\/bin\//$work/bin/}"
    local_command="${local_command//.build\/release\/wpexporter/$binary}"
    local_command="${local_command//\'the-password\'/admin}"
    local_command="${local_command//\'...\'/admin}"
    local_command="${local_command//--port 8081/--port 0}"
    local_command="${local_command//localhost:9090/127.0.0.1:$demo_port}"
    local_command="${local_command/#swift run -c release wpexporter /wpexporter }"
    if [[ "$local_command" == "wpexporter "* ]]; then
        local_command="$binary ${local_command#wpexporter }"
    fi
    ran=$((ran + 1))
    echo "run  $where: $command"
    case "$local_command" in
        "$binary server"*|"$binary demo"*)
            [[ "$local_command" == *"--port"* ]] || local_command+=" --port 0"
            read -r -a words <<<"$local_command"
            start_background "${words[@]}"
            # The URL is printed once the exporter listens, before its first collections: poll
            # (bounded) until the devices are in /metrics.
            for _ in $(seq 1 100); do
                curl -fsS --max-time 5 -o "$work/metrics.txt" "http://127.0.0.1:$bg_port/metrics"
                grep -q '^winpower_device_connected{' "$work/metrics.txt" && break
                sleep 0.1
            done
            grep -q '^winpower_device_connected{' "$work/metrics.txt" \
                || { echo "FAIL: no device metrics from $where within 10 s"; cat "$work/bg.txt"; exit 1; }
            stop_background
            ;;
        "$binary simulate"*)
            read -r -a words <<<"$local_command"
            start_background "${words[@]}"
            stop_background
            ;;
        *)
            directory="$work/cwd"
            [[ "$local_command" != install\ * && "$local_command" != jsonnet\ * ]] || directory="$work/src"
            (cd "$directory" && bash -c "set -euo pipefail; $local_command") >"$work/out.txt" 2>&1 \
                || { echo "FAIL: $where: $local_command"; cat "$work/out.txt"; exit 1; }
            ;;
    esac
    if [[ "$command" == export\ * ]]; then eval "$local_command"; fi
done < <(python3 - "${pages[@]}" <<'PY'
import re, sys
for path in sys.argv[1:]:
    inside, lines, section = False, [], ""
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("## "):
            section = line[3:].strip()
        if line.lstrip().startswith("```"):
            inside = not inside and line.strip() in ("```sh", "```bash", "```shell")
            continue
        if inside:
            lines.append((number, line.strip(), section))
    command, start = "", 0
    for number, line, section in lines:
        if not command:
            start = number
            release = path.endswith("deployment.md") and section in ("Installing a release", "安装发布版")
        command += line
        if command.endswith("\\"):
            command = command[:-1] + " "
            continue
        command = re.sub(r"\s+", " ", re.sub(r"\s+#.*$", "", command)).strip()
        if command and not command.startswith("#"):
            print(f"{path}:{start}{':release' if release else ''}\t{command}")
        command = ""
PY
)
for pid in "$demo_pid" "$simulator_pid"; do
    kill -TERM "$pid"
    wait "$pid" || { echo "FAIL: the demo or simulator behind the examples did not exit 0"; exit 1; }
done
echo "docs commands: $ran ran, $skipped skipped (listed above with the reason)"

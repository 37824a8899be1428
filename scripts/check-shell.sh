#!/usr/bin/env bash
# `bash -n` and shellcheck on every shell script of the repository (the tracked ones, and any
# under scripts/ and deploy/ not yet added), in CI's gate. Installs shellcheck when missing.
#
#   scripts/check-shell.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ci/tools.sh static   # the shell checker
mapfile -t scripts < <( { git ls-files '*.sh' 2>/dev/null; find scripts deploy -name '*.sh' -type f 2>/dev/null; } | sort -u)
for script in "${scripts[@]}"; do
    [[ -f "$script" ]] || continue
    bash -n "$script"
done
shellcheck "${scripts[@]}"
echo "ok: ${#scripts[@]} shell scripts pass bash -n and shellcheck"

#!/usr/bin/env bash
# Runs every fuzz target of scripts/fuzz/ in turn, sharing a time budget (CI: 120 s in all).
#
#   scripts/fuzz-all.sh [TOTAL_SECONDS]     # default 120; each target gets an equal share, at least 10 s
set -euo pipefail
cd "$(dirname "$0")/.."

total="${1:-120}"
mapfile -t targets < <(scripts/fuzz.sh --list)
share=$(( total / ${#targets[@]} ))
[ "$share" -ge 10 ] || share=10
for target in "${targets[@]}"; do
    scripts/fuzz.sh "$target" "$share"
done
echo "fuzz-all: ${#targets[@]} targets, ${share}s each, no crash, leak or timeout"

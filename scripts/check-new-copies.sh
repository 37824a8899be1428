#!/usr/bin/env bash
# The copies gate (in CI: `.ci/run gate`): no change may write again, to the letter, six or more
# lines that the tree already has — a copy is a concept with two homes (docs/architecture.md,
# "Rules"). It asks the `duplicates` command for the pairs of places one side of which the
# change adds (`--change`), and fails on each pair that is the same to the letter; a pair alike in
# shape only (other names and values) is listed, not failed: it is a place to look, not a verdict.
#
# What counts as the change: everything since BASE, which is the merge base with origin/main when
# HEAD is not on it (a branch), and otherwise the latest release's commit (scripts/release-commit.sh:
# CI builds a clone of main itself, so "since the release" is the change it can see).
#
#   scripts/check-new-copies.sh                # against that base
#   scripts/check-new-copies.sh --base REV     # against another commit
#
# The command reads files as text, always exits 0 and prints a row a pair:
# `D1 a.swift:10-24 ~ b.swift:40-54 [shape] [boilerplate] [(both added)] [(+N more runs)]`, the
# added side first. Where it is not installed the gate says so and passes: nothing else finds copies.
set -euo pipefail
cd "$(dirname "$0")/.."
base=
if [ "${1:-}" = --base ] && [ -n "${2:-}" ]; then
    base=$2
elif [ $# -ne 0 ]; then
    echo "usage: scripts/check-new-copies.sh [--base REV]" >&2
    exit 64
fi
if ! command -v duplicates >/dev/null; then
    echo "check-new-copies: skipped: the duplicates command is not installed"
    exit 0
fi
if [ -z "$base" ]; then
    merge=$(git merge-base HEAD origin/main 2>/dev/null || true)
    if [ -n "$merge" ] && [ "$merge" != "$(git rev-parse HEAD)" ]; then
        base=$merge
    else
        read -r release base < <(scripts/release-commit.sh)
        echo "check-new-copies: the change is everything since $release (${base:0:12})"
    fi
fi
git rev-parse --verify --quiet "$base^{commit}" >/dev/null || { echo "check-new-copies: $base is not a commit" >&2; exit 64; }

report=$(duplicates --change --base "$base" --most 200 --seconds 300)
echo "$report"
# A row whose flags (after the two places) do not say `shape` is the same to the letter.
exact=$(echo "$report" | awk '/^D[0-9]+ / { flags = ""; for (i = 5; i <= NF; i++) flags = flags " " $i; if (flags !~ / shape/) print }')
incomplete=$(echo "$report" | grep -E '^incomplete:|^\(\+[0-9]+ more pairs\)' || true)
status=0
if [ -n "$exact" ]; then
    echo "check-new-copies: the change writes again lines the tree already has, to the letter:" >&2
    echo "$exact" >&2
    echo "check-new-copies: give the code one home (a function, a type, a helper the tests share) and call it from both places" >&2
    status=1
fi
if [ -n "$incomplete" ]; then
    echo "check-new-copies: the search did not read the whole change, so it cannot pass: $incomplete" >&2
    status=1
fi
[ "$status" = 0 ] && echo "check-new-copies: no exact copy added since ${base:0:12}"
exit "$status"

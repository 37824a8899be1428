#!/usr/bin/env bash
# The API-breakage gate (in CI: `.ci/run gate`). The latest release is the commit that added
# CHANGELOG.md's first `## [x.y.z]` heading (scripts/release-commit.sh). Today's public API is
# read from the debug build's modules, and the release's from a debug build of its commit made
# once per machine (git archive, no work tree touched) and kept outside the clone, in
# ${WPEXPORTER_CACHE:-/var/cache/wpexporter-build}/api-baseline/extracted-COMMIT with the
# release's docs/api-stability.md; both by `swift symbolgraph-extract` (scripts/api-list.py
# --graphs: seconds, no second build). scripts/check-api-breakage.py then lists every public
# declaration of the release that is gone or changed, and fails on one the release promised
# stable that CHANGELOG.md's [Unreleased] section does not announce (docs/api-stability.md).
#
#   scripts/check-api-breakage.sh               # against the latest release
#   scripts/check-api-breakage.sh 0.2.0         # against another one
set -euo pipefail
cd "$(dirname "$0")/.."
read -r release commit < <(scripts/release-commit.sh "$@")
cache=${WPEXPORTER_CACHE:-/var/cache/wpexporter-build}/api-baseline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

current="$work/current"
scripts/api-list.py --graphs "$current"
baseline="$cache/extracted-$commit"
# The release's graphs, made once per machine from its commit (git archive, no work tree touched).
if [ ! -f "$baseline/modules" ]; then
    echo "check-api-breakage: building the symbol graphs of $release (${commit:0:12}) once, into $baseline"
    mkdir -p "$cache" "$work/release"
    git archive "$commit" | tar -x -C "$work/release"
    partial="$baseline.partial.$$"
    rm -rf "$partial"
    (cd "$work/release" && swift build >"$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; exit 1; }
    scripts/api-list.py --graphs "$partial" --package "$work/release"
    cp "$work/release/docs/api-stability.md" "$partial/api-stability.md"
    rm -rf "$baseline"
    mv "$partial" "$baseline"
fi
echo "check-api-breakage: the public API of $release (${commit:0:12}) against this build's"
scripts/check-api-breakage.py "$baseline" "$current"

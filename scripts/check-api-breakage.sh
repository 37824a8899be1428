#!/usr/bin/env bash
# The API-breakage gate (in CI: `.ci/run nightly`, after scripts/check-docc.sh, whose symbol
# graphs in .build/docc/symbol-graphs are today's API). The latest release is the commit that
# added CHANGELOG.md's first `## [x.y.z]` heading (scripts/release-commit.sh); its library
# products' symbol graphs are built once per machine from that commit (git archive, no work tree
# touched) and kept outside the clone, in
# ${WPEXPORTER_CACHE:-/var/cache/wpexporter-build}/api-baseline/COMMIT, with the release's
# docs/api-stability.md. scripts/check-api-breakage.py then lists every public
# declaration of the release that is gone or changed, and fails on one the release promised
# stable that CHANGELOG.md's [Unreleased] section does not announce (docs/api-stability.md).
#
#   scripts/check-api-breakage.sh               # against the latest release
#   scripts/check-api-breakage.sh 0.2.0         # against another one
#   scripts/check-api-breakage.sh --from-build [RELEASE]
#                                               # CI's gate: today's graphs from the debug build's
#                                               # modules (scripts/api-list.py --graphs, seconds,
#                                               # no second build); the release's made the same
#                                               # way from its own debug build, once per machine,
#                                               # in api-baseline/extracted-COMMIT
set -euo pipefail
cd "$(dirname "$0")/.."
from_build=false
if [ "${1:-}" = --from-build ]; then from_build=true; shift; fi
read -r release commit < <(scripts/release-commit.sh "$@")
cache=${WPEXPORTER_CACHE:-/var/cache/wpexporter-build}/api-baseline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# graphs_from_build DIR PACKAGE: DIR gets the products' graphs (and `modules`) from a debug build
# of PACKAGE, read by `swift symbolgraph-extract` (--from-build).
graphs_from_build() {
    (cd "$2" && swift build >"$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; exit 1; }
    scripts/api-list.py --graphs "$1" --package "$2"
}

# graphs_emitted DIR PACKAGE: DIR gets the products' graphs (and `modules`) as a build of PACKAGE
# emits them, as scripts/check-docc.sh builds today's.
graphs_emitted() {
    mkdir -p "$2/graphs" "$1"
    (cd "$2" && swift build -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$2/graphs" \
        >"$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; exit 1; }
    scripts/product-modules.sh "$2/Package.swift" >"$1/modules"
    while read -r module; do
        cp "$2/graphs/$module".symbols.json "$1/"
        cp "$2/graphs/$module"@*.symbols.json "$1/" 2>/dev/null || true
    done <"$1/modules"
}

if $from_build; then
    current="$work/current"
    scripts/api-list.py --graphs "$current"
    baseline="$cache/extracted-$commit" make=graphs_from_build today="this build's"
else
    current=.build/docc/symbol-graphs
    [ -d "$current" ] || { echo "check-api-breakage: no symbol graphs in $current: run scripts/check-docc.sh first" >&2; exit 1; }
    baseline="$cache/$commit" make=graphs_emitted today="this commit's"
fi
# The release's graphs, made once per machine from its commit (git archive, no work tree touched).
if [ ! -f "$baseline/modules" ]; then
    echo "check-api-breakage: building the symbol graphs of $release (${commit:0:12}) once, into $baseline"
    mkdir -p "$cache" "$work/release"
    git archive "$commit" | tar -x -C "$work/release"
    partial="$baseline.partial.$$"
    rm -rf "$partial"
    "$make" "$partial" "$work/release"
    cp "$work/release/docs/api-stability.md" "$partial/api-stability.md"
    rm -rf "$baseline"
    mv "$partial" "$baseline"
fi
echo "check-api-breakage: the public API of $release (${commit:0:12}) against $today"
scripts/check-api-breakage.py "$baseline" "$current"

#!/usr/bin/env bash
# The command-line tool uses the libraries' public API only, as an embedder would: its sources
# are type-checked against the built modules under a package name of their own, so nothing
# declared `package` in the libraries is visible to them. A `package` symbol the tool reaches
# fails the check with the compiler's "cannot find … in scope" or "inaccessible due to 'package'
# protection level", naming the file and line. Needs the debug build of `wpexporter` (built here
# when missing; the gate has built it already).
#
#   scripts/check-public-api-use.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product wpexporter >/dev/null
bin=$(swift build --show-bin-path)
sources="$bin/wpexporter.build/sources"
[ -f "$sources" ] || { echo "check-public-api-use: $sources is missing (no build of wpexporter?)" >&2; exit 1; }
if grep -nE '^\s*(@testable\s+import|package\s+import)' Sources/wpexporter/*.swift; then
    echo "check-public-api-use: the command-line tool imports a library with more than its public API" >&2
    exit 1
fi
flags=()
# The C targets' module maps: generated ones in the build directory, written ones in Sources.
for map in "$bin"/*.build/module.modulemap Sources/*/module.modulemap; do
    [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$map")
done
for include in Sources/*/include; do
    [ -d "$include" ] && flags+=(-Xcc -I -Xcc "$include")
done
mapfile -t files <"$sources"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swiftc -typecheck -module-name wpexporter -package-name wpexporter_public_api_check \
        -swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
        -DSWIFT_PACKAGE -I "$bin/Modules" -module-cache-path "$bin/ModuleCache" "${flags[@]}" "${files[@]}" >"$log" 2>&1; then
    grep -E 'error:' "$log" | sort -u >&2 || cat "$log" >&2
    echo "check-public-api-use: the command-line tool reaches API that is not public (above)" >&2
    exit 1
fi
echo "check-public-api-use: ok (${#files[@]} files of Sources/wpexporter use public API only)"

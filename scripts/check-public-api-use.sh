#!/usr/bin/env bash
# The command-line tool and the examples (Examples/: the docs' listings in DocSnippets, the
# example services) use the libraries' public API only, as an embedder would: their sources
# are type-checked against the built modules under a package name of their own, so nothing
# declared `package` in the libraries is visible to them. A `package` symbol the tool reaches
# fails the check with the compiler's "cannot find … in scope" or "inaccessible due to 'package'
# protection level", naming the file and line. Needs their debug build (built here when
# missing; the gate has built them already).
#
#   scripts/check-public-api-use.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The command-line tool, and the examples an embedder reads (docs/embedding.md's and the guides'
# listings in Examples/DocSnippets, the example services): each is checked as a module of its own.
targets=(wpexporter DocSnippets EmbeddedService EmbeddedWinPower InstrumentedService)
for target in "${targets[@]}"; do swift build --product "$target" >/dev/null; done
bin=$(swift build --show-bin-path)
flags=()
# The C targets' module maps: generated ones in the build directory, written ones in Sources.
for map in "$bin"/*.build/module.modulemap Sources/*/module.modulemap; do
    [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$map")
done
for include in Sources/*/include; do
    [ -d "$include" ] && flags+=(-Xcc -I -Xcc "$include")
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
checked=()
for target in "${targets[@]}"; do
    sources="$bin/$target.build/sources"
    [ -f "$sources" ] || { echo "check-public-api-use: $sources is missing (no build of $target?)" >&2; exit 1; }
    mapfile -t files <"$sources"
    if grep -nE '^\s*(@testable\s+import|package\s+import)' "${files[@]}"; then
        echo "check-public-api-use: $target imports a library with more than its public API" >&2
        exit 1
    fi
    if ! swiftc -typecheck -module-name "$target" -package-name wpexporter_public_api_check \
            -swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
            -DSWIFT_PACKAGE -I "$bin/Modules" -module-cache-path "$bin/ModuleCache" "${flags[@]}" "${files[@]}" >"$log" 2>&1; then
        grep -E 'error:' "$log" | sort -u >&2 || cat "$log" >&2
        echo "check-public-api-use: $target reaches API that is not public (above)" >&2
        exit 1
    fi
    checked+=("$target (${#files[@]} files)")
done
list=$(printf '%s, ' "${checked[@]}")
echo "check-public-api-use: ok, public API only: ${list%, }"

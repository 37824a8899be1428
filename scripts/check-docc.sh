#!/usr/bin/env bash
# DocC over every module of every library product, as Swift Package Index builds it (in CI: `.ci/run nightly`).
#
# Extracts every library product's symbol graphs from the debug build's modules
# (`scripts/api-list.py --graphs`, `swift symbolgraph-extract`: seconds, no second build; the
# debug build is made first when missing), then runs the toolchain's `docc convert` on each
# product's graphs. Fails when DocC warns about any product — a link to a symbol that does not
# exist or is not public, a parameter documented that the function does not have or one it
# has left undocumented — naming the file and line. Prints each product's documentation
# coverage (DocC's experimental coverage, brief: the share of types, members and globals with
# an abstract), the figures docs/api-stability.md records; members a protocol gives a type
# (`!=`, a sequence's `map`) carry the protocol's documentation (`--enable-inherited-docs`, as
# .spi.yml asks of Swift Package Index). From that coverage, scripts/check-docc-abstracts.py
# fails on every public symbol declared in the sources without an abstract, naming it with its
# file and line. From the same symbol graphs, scripts/check-api-list.py fails when a product's
# public top-level declaration is not named in docs/api-stability.md's table.
#
#   scripts/check-docc.sh              # every library product
#   scripts/check-docc.sh WPExporter   # some
set -euo pipefail
cd "$(dirname "$0")/.."
command -v docc >/dev/null || { echo "check-docc: no docc in the toolchain" >&2; exit 1; }
products=("$@")
if [ "${#products[@]}" = 0 ]; then
    mapfile -t products < <(scripts/product-modules.sh)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Kept after the run in .build/docc/symbol-graphs (scripts/check-api-list.py reads them too).
graphs=.build/docc/symbol-graphs
rm -rf "$graphs"
swift build --build-tests >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }   # the build the gate makes: a no-op after it
echo "check-docc: the products' symbol graphs from the debug build (.build/docc/symbol-graphs)"
scripts/api-list.py --graphs "$graphs"
status=0
# Every public top-level declaration of a product is named in docs/api-stability.md.
scripts/check-api-list.py "$graphs" "${products[@]}" || status=1
for product in "${products[@]}"; do
    input="$work/$product"
    mkdir -p "$input"
    if ! cp "$graphs/$product.symbols.json" "$input/" 2>/dev/null; then
        echo "check-docc: $product: no symbol graph (the build emitted none for it)" >&2
        status=1
        continue
    fi
    cp "$graphs/$product"@*.symbols.json "$input/" 2>/dev/null || true
    catalog=()
    [ -d "Sources/$product/$product.docc" ] && catalog=("Sources/$product/$product.docc")
    docc convert "${catalog[@]}" --additional-symbol-graph-dir "$input" --fallback-display-name "$product" \
        --fallback-bundle-identifier "org.wpexporter.$product" --output-path "$work/$product.doccarchive" \
        --enable-inherited-docs --experimental-documentation-coverage --coverage-summary-level brief \
        >"$work/$product.log" 2>&1 || { cat "$work/$product.log" >&2; status=1; continue; }
    warnings=$(grep -c '^warning:' "$work/$product.log" || true)
    coverage=$(awk '/^Types|^Members|^Globals/ { printf "%s %s  ", $1, $3 }' "$work/$product.log")
    echo "check-docc: $product: $warnings warnings; abstracts: $coverage"
    if [ "$warnings" != 0 ]; then
        grep -A1 '^warning:' "$work/$product.log" | grep -v '^--$' >&2
        status=1
    fi
    # Every public symbol declared in the sources has an abstract.
    scripts/check-docc-abstracts.py "$product" "$work/$product.doccarchive" "$input" || status=1
done
[ "$status" = 0 ] && echo "check-docc: ok (${#products[@]} products, no warning)"
exit "$status"

#!/usr/bin/env bash
# Fuzzes one parser of outside bytes with libFuzzer (shipped with the Swift toolchain on Linux).
#
#   scripts/fuzz.sh TARGET [SECONDS]     # default 60
#   scripts/fuzz.sh --list               # the targets
#
# A target is a directory scripts/fuzz/TARGET/ holding
#   Fuzzer.swift  the harness (defines LLVMFuzzerTestOneInput with @_cdecl),
#   sources       the parser's source files, one repository-relative path a line (compiled
#                 as one module: their `import WP…` lines are dropped, except those of the
#                 system zlib module, which is linked),
#   corpus/       optional seed inputs.
# The harness is compiled together with those sources (not through the package build) with
# -sanitize=fuzzer,address, then run for SECONDS. Exits non-zero when libFuzzer reports a
# crash, a leak, a timeout (one input over 5 s) or running out of memory (2 GiB); the failing
# input is left in .build/fuzz/TARGET/ (libFuzzer prints its path).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--list" ]; then
    for dir in scripts/fuzz/*/; do basename "$dir"; done
    exit 0
fi
target="${1:?usage: scripts/fuzz.sh TARGET [SECONDS] (scripts/fuzz.sh --list names the targets)}"
seconds="${2:-60}"
dir="scripts/fuzz/$target"
if [ ! -f "$dir/Fuzzer.swift" ] || [ ! -f "$dir/sources" ]; then
    echo "fuzz: no target '$target' (scripts/fuzz.sh --list names the targets)" >&2
    exit 64
fi

work=".build/fuzz/$target"
mkdir -p "$work/corpus"
if [ -d "$dir/corpus" ]; then cp "$dir"/corpus/* "$work/corpus/"; fi
mapfile -t sources < <(grep -v '^[[:space:]]*\(#\|$\)' "$dir/sources")

echo "fuzz $target: building"
module=$(echo "$target" | tr -cd '[:alnum:]')
# All sources are compiled into one module, so imports of the package's own modules (WPLogging,
# ...) are dropped from copies of them (not WPCZlib, the system zlib); `package` declarations
# get a package name.
rm -rf "$work/src" && mkdir -p "$work/src"
copies=()
for source in "${sources[@]}"; do
    copy="$work/src/$(echo "$source" | tr '/' '_')"
    sed -e '/^import WPCZlib$/b' -e '/^import WP[A-Za-z]*$/d' "$source" > "$copy"
    copies+=("$copy")
done
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name "Fuzz$module" \
    -package-name wpfuzz -I Sources/WPCZlib "${copies[@]}" "$dir/Fuzzer.swift" -lz -o "$work/fuzzer"

echo "fuzz $target: running for ${seconds}s"
cd "$work"
"./fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -detect_leaks=1 corpus
echo "fuzz $target: no crash, leak or timeout in ${seconds}s"

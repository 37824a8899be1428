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
#                 system zlib module, which is linked, and of the C targets listed), and the
#                 `.c` files of C targets (Sources/WPCName/x.c: compiled with the same
#                 sanitizers, their headers in Sources/WPCName/include made module WPCName),
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
rm -rf "$work/src" "$work/c" && mkdir -p "$work/src" "$work/c"
copies=()
objects=()
keep='-e /^((public|package|internal)[[:space:]])?import[[:space:]]WPCZlib$/b'
for source in "${sources[@]}"; do
    case "$source" in
    *.c)
        # A C target: its object, and a module map over its public headers for `import WPCName`.
        target_dir=$(dirname "$source")
        name=$(basename "$target_dir")
        clang -c -O1 -g -fsanitize=address,fuzzer-no-link -I "$target_dir/include" "$source" \
            -o "$work/c/$name-$(basename "$source" .c).o"
        objects+=("$work/c/$name-$(basename "$source" .c).o")
        mkdir -p "$work/c/$name"
        { echo "module $name {"
          for header in "$PWD/$target_dir"/include/*.h; do echo "    header \"$header\""; done
          echo "    export *"
          echo "}"; } > "$work/c/$name/module.modulemap"
        keep="$keep -e /^((public|package|internal)[[:space:]])?import[[:space:]]$name\$/b"
        ;;
    esac
done
for source in "${sources[@]}"; do
    case "$source" in *.c) continue ;; esac
    copy="$work/src/$(echo "$source" | tr '/' '_')"
    # shellcheck disable=SC2086
    sed -E $keep -e '/^(@preconcurrency )?((public|package|internal) )?import WP[A-Za-z]*$/d' "$source" > "$copy"
    copies+=("$copy")
done
includes=(-I Sources/WPCZlib)
for module_dir in "$work"/c/*/; do [ -d "$module_dir" ] && includes+=(-I "$module_dir"); done
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name "Fuzz$module" \
    -package-name wpfuzz "${includes[@]}" "${copies[@]}" "$dir/Fuzzer.swift" "${objects[@]}" -lz -ldl -o "$work/fuzzer"

echo "fuzz $target: running for ${seconds}s"
cd "$work"
"./fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -detect_leaks=1 corpus
echo "fuzz $target: no crash, leak or timeout in ${seconds}s"

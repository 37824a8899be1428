#!/usr/bin/env bash
# The exporter's libraries and executable import FoundationEssentials at most, never
# Foundation or FoundationNetworking (on Linux those load libFoundation,
# libFoundationInternationalization and ICU, about 9 MB of RSS; see docs/architecture.md).
# Fails naming every file that does, and, when the debug binary is built, if it needs any
# Foundation library other than libFoundationEssentials.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(WPLogging WPConfig WPMetrics WPStorage WPEnergy WPHTTPClient WPClient WPServer WPScheduler WPProcess
         WPCollector WPSimulator WPSNMP wpexporter)

status=0
for target in "${targets[@]}"; do
    while IFS= read -r file; do
        [ -z "$file" ] && continue
        echo "check-foundation-imports: $file imports Foundation; use FoundationEssentials or the C library"
        status=1
    done < <(grep -lE '^[[:space:]]*(@preconcurrency[[:space:]]+)?((public|package|internal)[[:space:]]+)?import[[:space:]]+(Foundation|FoundationNetworking)[[:space:]]*$' \
                  "Sources/$target"/*.swift || true)
done

binary=.build/debug/wpexporter
if [ -x "$binary" ] && command -v readelf >/dev/null 2>&1; then
    needed=$(readelf -d "$binary" | grep -o 'lib_\{0,1\}Foundation[A-Za-z_]*\.so' | sort -u | tr '\n' ' ')
    echo "check-foundation-imports: $binary needs: $needed"
    for library in $needed; do
        if [ "$library" != libFoundationEssentials.so ]; then
            echo "check-foundation-imports: $binary needs $library; only libFoundationEssentials.so is expected (after a clean build: an incremental one can keep stale link entries)"
            status=1
        fi
    done
fi
[ "$status" = 0 ] && echo "check-foundation-imports: ok"
exit "$status"

#!/usr/bin/env bash
# The exporter's libraries and executable import FoundationEssentials at most, never
# Foundation or FoundationNetworking (on Linux those load libFoundation,
# libFoundationInternationalization and ICU, about 9 MB of RSS; see docs/architecture.md).
# Fails naming every file that does. The URLSession transports are the known exceptions
# until the socket HTTP client replaces them. Also prints the Foundation libraries the debug
# binary needs, when one is built.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed=(
    Sources/WPClient/CurlTransport.swift
    Sources/WPClient/HTTPTransport.swift
    Sources/WPClient/URLSessionTransport.swift
    Sources/WPMetrics/PushTransport.swift
)
targets=(WPLogging WPConfig WPMetrics WPStorage WPEnergy WPClient WPServer WPScheduler
         WPCollector WPSimulator wpexporter)

status=0
for target in "${targets[@]}"; do
    while IFS= read -r file; do
        [ -z "$file" ] && continue
        skip=0
        for exception in "${allowed[@]}"; do [ "$file" = "$exception" ] && skip=1; done
        if [ "$skip" = 0 ]; then
            echo "check-foundation-imports: $file imports Foundation; use FoundationEssentials or the C library"
            status=1
        fi
    done < <(grep -lE '^[[:space:]]*(@preconcurrency[[:space:]]+)?((public|package|internal)[[:space:]]+)?import[[:space:]]+(Foundation|FoundationNetworking)[[:space:]]*$' \
                  "Sources/$target"/*.swift || true)
done

binary=.build/debug/wpexporter
if [ -x "$binary" ] && command -v readelf >/dev/null 2>&1; then
    echo "check-foundation-imports: $binary needs: $(readelf -d "$binary" | grep -o 'libFoundation[A-Za-z_]*\.so' | sort -u | tr '\n' ' ')"
fi
[ "$status" = 0 ] && echo "check-foundation-imports: ok"
exit "$status"

#!/usr/bin/env bash
# Fuzzes the HTTP request parser with libFuzzer (shipped with the Swift toolchain on Linux).
#
#   scripts/fuzz-http.sh [SECONDS]     # default 60
#
# Builds scripts/fuzz/HTTPRequestParserFuzzer.swift together with the parser's sources using
# -sanitize=fuzzer,address, then runs it for SECONDS with a seed corpus. Exits non-zero when
# libFuzzer reports a crash, a leak, a timeout or running out of memory; the failing input is
# left in .build/fuzz-http/ (libFuzzer prints its path).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
work=.build/fuzz-http
mkdir -p "$work/corpus"
cp scripts/fuzz/corpus/* "$work/corpus/"

sources=(
    Sources/WPServer/HTTPHeaders.swift
    Sources/WPServer/HTTPRequest.swift
    Sources/WPServer/HTTPParseError.swift
    Sources/WPServer/HTTPRequestParser.swift
    Sources/WPServer/HTTPRequestParser+Head.swift
    Sources/WPServer/HTTPRequestParser+Semantics.swift
    Sources/WPServer/ChunkedDecoder.swift
    scripts/fuzz/HTTPRequestParserFuzzer.swift
)

echo "fuzz-http: building"
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name HTTPFuzz \
    "${sources[@]}" -o "$work/http-parser-fuzzer"

echo "fuzz-http: running for ${seconds}s"
cd "$work"
# -timeout: one input taking over 5 s is a hang; -rss_limit_mb: memory blow-ups fail too.
./http-parser-fuzzer -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -detect_leaks=1 corpus
echo "fuzz-http: no crash, leak or timeout in ${seconds}s"

#!/usr/bin/env bash
# Every module of every library product a manifest declares, one per line, in order (a product
# may hold a companion module): what scripts/check-docc.sh documents and
# scripts/check-api-breakage.sh compares.
#
#   scripts/product-modules.sh [PACKAGE_SWIFT]    # default: this repository's Package.swift
set -euo pipefail
manifest=${1:-"$(dirname "$0")/../Package.swift"}
grep -oE '\.library\(name: "[A-Za-z]+", targets: \[[^]]*\]' "$manifest" \
    | sed 's/.*targets: \[//; s/\]//' | tr ',' '\n' | tr -d ' "' | grep -v '^$' | awk '!seen[$0]++'

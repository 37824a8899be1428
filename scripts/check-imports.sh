#!/usr/bin/env bash
# Each target's declared dependencies match what its Swift sources import: a module imported
# but not declared (it compiled only because another dependency brings it in), or declared but
# never imported, fails the check, naming the target and the module. System modules (Foundation,
# Glibc, Synchronization, Testing, …) are not dependencies and are ignored. C targets are checked
# like the others; a target without Swift sources (a C target) is skipped. Imports are read at
# the start of a line, outside multi-line string literals.
#
#   scripts/check-imports.sh            # the root package (Package.swift)
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
swift package dump-package >"$manifest"
python3 - "$manifest" <<'PY'
import importlib.util, json, os, re, sys

system = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin",
          "Synchronization", "Dispatch", "Testing", "XCTest", "_Concurrency", "os", "Android"}
package = json.load(open(sys.argv[1]))
targets = {t["name"]: t for t in package["targets"]}
imports_re = re.compile(r'^(?:@testable\s+|@_implementationOnly\s+|@preconcurrency\s+|(?:public|package|internal)\s+)*'
                        r'import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)')

def directory(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])

# A target's declared dependencies, read as scripts/check-architecture.py reads them.
spec = importlib.util.spec_from_file_location("architecture", "scripts/check-architecture.py")
architecture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(architecture)
declared = architecture.declared

problems = []
for name, target in sorted(targets.items()):
    if target["type"] in ("system", "binary", "plugin"):
        continue
    excluded = [os.path.join(directory(target), e) for e in target.get("exclude", [])]
    imported, swift_files = {}, 0
    for root, _, files in os.walk(directory(target)):
        if any(root == e or root.startswith(e + os.sep) for e in excluded):
            continue
        for file in files:
            if not file.endswith(".swift"):
                continue
            swift_files += 1
            path = os.path.join(root, file)
            in_string = False  # inside a """ literal (test scripts in other languages hold imports too)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                if line.count('"""') % 2 == 1:
                    in_string = not in_string
                    continue
                match = None if in_string else imports_re.match(line)
                if match and match.group(1) not in system:
                    imported.setdefault(match.group(1), f"{path}:{number}")
    if swift_files == 0:
        continue
    declared_names = declared(target)
    for module, where in sorted(imported.items()):
        if module not in declared_names and module != name:
            problems.append(f"{where}: target {name} imports {module} but does not declare it in Package.swift")
    for module in sorted(declared_names - set(imported)):
        problems.append(f"Package.swift: target {name} declares {module} but none of its sources imports it")

for problem in problems:
    print("check-imports: " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-imports: ok ({len(targets)} targets)")
PY

#!/usr/bin/env python3
"""docs/architecture.md's module tables against the package description.

The first table (`| target | owns | depends on |`) must have one row per target of the root
package that is not a test or a C target, and its "depends on" cell must name exactly the
target's dependencies (`swift package dump-package`; words after "all" or in parentheses are
notes); the second (`| target | … |` of the C targets) one row per C or system-library target.
Prints each difference with its line and exits 1 when there is one.

    swift package dump-package | scripts/check-architecture.py
"""
import json, os, re, sys

def declared(target):
    """The targets and products `target` depends on, by name (also used by check-imports.sh)."""
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names

def thread_names():
    """Literal thread names in Sources/: name → first place."""
    names = {}
    pattern = re.compile(r'(?:NamedThread\.start\(name: |WorkerQueue\((?:[^)]*?, )?name: )"([^"]+)"')
    for root, _, files in os.walk("Sources"):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(root, file)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                if line.lstrip().startswith("//"):
                    continue
                for name in pattern.findall(line):
                    expanded = [name.replace("\\(kind)", kind) for kind in ("http", "line", "udp")] if "\\(" in name else [name]
                    for each in expanded:
                        names.setdefault(each, f"{path}:{number}")
    return names

def main() -> int:
    package = json.load(sys.stdin)
    targets = {t["name"]: t for t in package["targets"] if t["type"] != "test"}
    c_targets = {name for name, t in targets.items()
                 if t["type"] == "system-target" or name.startswith("WPC") and name[3:4].isupper()}
    lines = open("docs/architecture.md", encoding="utf-8").read().split("\n")
    tables, current = [], None
    for number, line in enumerate(lines, 1):
        if line.startswith("| target |"):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("|"):
            if not line.startswith("|---"):
                current.append((number, [cell.strip() for cell in line.strip("|").split("|")]))
        else:
            current = None
    if len(tables) < 2:
        print("check-architecture: docs/architecture.md lacks its two module tables (| target | …)")
        return 1
    problems = []
    for table, expected in ((tables[0], set(targets) - c_targets), (tables[1], c_targets)):
        seen = {}
        for number, cells in table:
            name = re.sub(r"\s*\(.*\)$", "", cells[0]).strip("`")
            if name not in targets:
                problems.append(f"docs/architecture.md:{number}: {name} is not a target of the package")
                continue
            if name in seen:
                problems.append(f"docs/architecture.md:{number}: {name} again (first at line {seen[name]})")
            seen[name] = number
            if table is tables[0]:
                cell = re.sub(r"\([^)]*\)", "", cells[-1])
                if re.match(r"\s*all\b", cell):
                    continue
                listed = {word for word in re.findall(r"[A-Za-z0-9_]+", cell) if word in targets}
                actual = declared(targets[name])
                if listed != actual:
                    said = []
                    if actual - listed: said.append("missing " + ", ".join(sorted(actual - listed)))
                    if listed - actual: said.append("not a dependency: " + ", ".join(sorted(listed - actual)))
                    problems.append(f"docs/architecture.md:{number}: {name} depends on: " + "; ".join(said))
        for name in sorted(expected - set(seen)):
            problems.append(f"docs/architecture.md: no row for {name} in its table")
    threads = thread_names()
    table = [line for line in lines[lines.index(next(l for l in lines if l.startswith("| thread |"))):]]
    documented = set()
    for line in table[2:]:
        if not line.startswith("|"):
            break
        documented |= set(re.findall(r"`([a-z][a-z-]*)`", line.split("|")[1]))
    for name, where in sorted(threads.items()):
        if name not in documented:
            problems.append(f"{where}: thread `{name}` is not in docs/architecture.md's thread table")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-architecture: {len(problems)} difference(s) between docs/architecture.md and Package.swift")
        return 1
    print(f"check-architecture: ok ({len(targets)} targets, {len(threads)} thread names)")
    return 0

if __name__ == "__main__":
    sys.exit(main())

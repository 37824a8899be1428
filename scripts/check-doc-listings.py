#!/usr/bin/env python3
"""Every Swift listing in a doc comment (a ```swift block in `///` lines) is type-checked against the
built modules, as written: a listing that no longer compiles fails the check with the compiler's
error at the listing's own line in the source file.

    scripts/check-doc-listings.py            # needs the debug build (the gate has made it)
    scripts/check-doc-listings.py --list     # the listings found, a line each

Each module's listings go into one generated file: every listing becomes the body of a function
of its own (`async throws`, so `try` and `await` need no wrapping), whose parameters are the names
the module's listings use without declaring them — a `registry`, a `logger`, a `configuration`.
Those names, their types and any helper types the listings assume are the module's context in
scripts/doc-listings/MODULE.swift: its first line `// parameters: name: Type, …` gives the
parameters (`// parameters FILE.swift: …` lines after it, those of one file's listings, where a
name means another thing there), the rest is Swift placed before the listings (imports,
`fileprivate` helpers). A
listing that declares extensions or protocols (which Swift allows at file scope only) is placed at
file scope instead. `#sourceLocation` maps every line back to the doc comment.

A product's listings are checked as an embedder's file would be (a package name of their own:
nothing `package` is visible); the listings of the internal modules (no product) under the
package's name, since their readers are the package's own code. Warnings are not failures: a
listing may leave a value unused.
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import swift_build

ROOT = Path(__file__).resolve().parent.parent
CONTEXTS = ROOT / "scripts" / "doc-listings"
FILE_SCOPE = re.compile(r"^(extension|protocol|public protocol|@main|@Suite|@Test|import)\b")
# `{ … }` and `{ ... }`: a body the listing leaves out. Checked as `fatalError()`, which fits a
# body of any type.
ELIDED = re.compile(r"(?<=[{\s])(…|\.\.\.)(?=\s*})")


def listings(module: str) -> list[tuple[Path, int, list[str], bool]]:
    """The module's doc-comment listings: the file, the line of the listing's first line (1-based),
    its lines without the comment marker, and whether the declaration it documents is public (or
    open): a listing of a `package` declaration is checked as the package's own code."""
    found = []
    for file in sorted((ROOT / "Sources" / module).rglob("*.swift")):
        lines = file.read_text(encoding="utf-8").splitlines()
        current, pending = None, []
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if not stripped.startswith("///"):
                if pending and stripped and not stripped.startswith("@") and not stripped.startswith("//"):
                    modifiers = re.split(r"[({:=<]", stripped, maxsplit=1)[0].split()
                    exposed = "public" in modifiers or "open" in modifiers
                    found.extend((path, start, body, exposed) for path, start, body in pending)
                    pending = []
                current = None
                continue
            text = stripped[3:]
            text = text[1:] if text.startswith(" ") else text
            if current is None and text.strip() == "```swift":
                current = (file.relative_to(ROOT), number + 1, [])
            elif current is not None and text.strip().startswith("```"):
                pending.append(current)
                current = None
            elif current is not None:
                current[2].append(text)
    return found


def context(module: str) -> tuple[dict[str, tuple[str, int]], str]:
    """The module's listing parameters, each with its line in the context file (under "" for
    every file, or under a file's name for the listings of that file), and the Swift placed
    before its listings."""
    file = CONTEXTS / f"{module}.swift"
    if not file.exists():
        return {"": ("", 1)}, f"import {module}\n"
    parameters, prelude = {}, []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        heading = re.match(r"// parameters(?: ([^:]+))?:(.*)", line)
        if heading and not prelude:
            parameters[heading.group(1) or ""] = (heading.group(2).strip(), number)
        else:
            prelude.append(line)
    if "" not in parameters:
        raise SystemExit(f"check-doc-listings: {file.relative_to(ROOT)}:1: the first line must be `// parameters: name: Type, …`")
    return parameters, "\n".join(prelude) + "\n"


def generated(module: str, found: list[tuple[Path, int, list[str], bool]]) -> str:
    parameters, prelude = context(module)
    context_file = (CONTEXTS / f"{module}.swift").relative_to(ROOT)
    first = len([p for p in parameters if p]) + 2
    out = [f'#sourceLocation(file: "{context_file}", line: {first})', prelude.rstrip("\n"), "#sourceLocation()"]
    for index, (file, line, body, _) in enumerate(found):
        at_file_scope = any(FILE_SCOPE.match(text) for text in body)
        if not at_file_scope:
            names, number = parameters.get(file.name, parameters[""])
            out.append(f'#sourceLocation(file: "{context_file}", line: {number})')
            out.append(f"fileprivate func listing{index}({names}) async throws {{")
        out.append(f'#sourceLocation(file: "{file}", line: {line})')
        out.extend(ELIDED.sub("fatalError()", text) for text in body)
        out.append("#sourceLocation()")
        if not at_file_scope:
            out.append("}")
    return "\n".join(out) + "\n"


def swift_modules() -> tuple[list[str], set[str]]:
    """The package's Swift library modules with doc-comment listings, and its products' modules."""
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                        capture_output=True, text=True).stdout)
    products = {target for product in package["products"] if "library" in product["type"]
                for target in product["targets"]}
    modules = [target["name"] for target in package["targets"]
               if target["type"] == "regular" and any((ROOT / "Sources" / target["name"]).rglob("*.swift"))]
    return modules, products


def swiftpm_package_name(bin_path: Path) -> str:
    """The name SwiftPM compiled the package's modules under (its identity: the checkout's
    directory name), which `package` declarations are visible to."""
    for plan in (bin_path.parent.parent / f"{bin_path.name}.yaml", bin_path.parent / f"{bin_path.name}.yaml"):
        found = re.search(r'"-package-name","([^"]+)"', plan.read_text(encoding="utf-8")) if plan.exists() else None
        if found:
            return found.group(1)
    return ROOT.name.lower()


def main() -> int:
    arguments = sys.argv[1:]
    if arguments not in ([], ["--list"]):
        print(__doc__, file=sys.stderr)
        return 64
    modules, products = swift_modules()
    every = {module: listings(module) for module in modules}
    every = {module: found for module, found in every.items() if found}
    if arguments == ["--list"]:
        for module, found in every.items():
            for file, line, body, exposed in found:
                where = "public API" if exposed and module in products else "package API"
                print(f"{file}:{line}: {module} ({where}): {body[0] if body else ''}")
        return 0
    bin_path = swift_build.bin_path(ROOT)
    flags = ["-typecheck", "-parse-as-library", "-swift-version", "6", "-enable-upcoming-feature", "ExistentialAny",
             "-enable-upcoming-feature", "MemberImportVisibility", "-DSWIFT_PACKAGE", "-I", str(bin_path / "Modules"),
             "-module-cache-path", str(bin_path / "ModuleCache")] + swift_build.c_flags([ROOT], bin_path)
    failed = False
    with tempfile.TemporaryDirectory() as work:
        # A product's listings of public declarations as an embedder's; the others as the package's.
        groups = {"public API of the products": ({m: [x for x in found if x[3]] for m, found in every.items() if m in products},
                                                 "wpexporter_doc_listings"),
                  "package API": ({m: [x for x in found if not x[3] or m not in products] for m, found in every.items()},
                                  swiftpm_package_name(bin_path))}
        for group, (members, package_name) in groups.items():
            members = {module: found for module, found in members.items() if found}
            files = []
            for module, found in members.items():
                path = Path(work) / package_name / f"{module}Listings.swift"
                path.parent.mkdir(exist_ok=True)
                path.write_text(generated(module, found), encoding="utf-8")
                files.append(str(path))
            if not files:
                continue
            result = subprocess.run(["swiftc"] + flags + ["-module-name", "DocListings", "-package-name", package_name] + files,
                                    cwd=ROOT, capture_output=True, text=True)
            output = (result.stdout + result.stderr).splitlines()
            if result.returncode != 0:
                failed = True
                for line in [line for line in output if ": error: " in line] or output[-40:]:
                    print(line.replace(str(ROOT) + "/", ""), file=sys.stderr)
            count = sum(len(found) for found in members.values())
            print(f"check-doc-listings: {group}: {count} listings of {len(members)} modules "
                  f"{'do not all compile (above)' if result.returncode else 'compile'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

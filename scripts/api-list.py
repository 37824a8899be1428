#!/usr/bin/env python3
"""Every public declaration of every library product, members included, one line each in
api/MODULE.txt: what the package promises to embedders, reviewed with each change that moves it.

    scripts/api-list.py           # fails, showing the difference, when api/ is not the build's API (CI: gate)
    scripts/api-list.py --write   # writes api/ from the build
    scripts/api-list.py --integrations [--write]
                                  # the same for the packages under Integrations/, in
                                  # api/integrations/MODULE.txt, from their shared build in
                                  # .build/integrations (CI: consumers, which builds them)
    scripts/api-list.py --graphs DIR [--package PATH]
                                  # writes the products' symbol graphs into DIR (MODULE.symbols.json,
                                  # MODULE@OTHER.symbols.json) and their names into DIR/modules, from
                                  # the debug build of the package at PATH (this one by default):
                                  # what scripts/check-api-breakage.sh and scripts/check-docc.sh read

Reads the debug build's modules (`swift build` first; the gate has built them) with the
toolchain's `swift symbolgraph-extract`, about a second a module, no second build. A line is a
symbol's path and its declaration as the compiler prints it:

    WPMetrics.MetricRegistry.counter(name:help:labelNames:): func counter(name: String, ...) throws -> WPCounter

Members of types, protocol requirements, and extensions of other modules' types (the standard
library's included: `WPServer extends Duration: ...`) are listed; what the compiler synthesizes
(a protocol's default `!=`, memberwise conformances) is not. A public declaration added, removed
or changed makes the check fail until api/ is written again, so the change to the API is part of
the diff a reviewer reads (docs/api-stability.md says which changes a release may make).
The root's modules that no product holds (the foundations WPPOSIX, WPText and WPTime, the codecs,
the built-in front ends; test support aside) must declare nothing public but what INTERNAL_PUBLIC
lists with its reason: the check fails naming the module and its first public declaration.
"""
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import swift_build
import symbol_graph

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "api"


def product_modules(package: Path) -> list[str]:
    out = subprocess.run([str(ROOT / "scripts/product-modules.sh"), str(package / "Package.swift")], check=True,
                         capture_output=True, text=True).stdout
    return [line for line in out.split("\n") if line]


def target_triple() -> str:
    out = subprocess.run(["swift", "-print-target-info"], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return json.loads(out)["target"]["triple"]


def extract_products(package: Path, out: Path, scratch: Path | None = None, also: list[str] = ()) -> list[str]:
    """Every product module's symbol graphs from the debug build of `package` (in its own scratch
    path, or in `scratch`), into out/MODULE/, and those of the modules `also` names beside them
    (one build path, one pool). Returns the product modules."""
    bin_path = swift_build.bin_path(package, scratch)
    modules_dir = bin_path / "Modules"
    products = product_modules(package)
    modules = products + [m for m in also if m not in products]
    missing = [m for m in modules if not (modules_dir / f"{m}.swiftmodule").exists()]
    if missing:
        raise SystemExit(f"api-list: no build of {', '.join(missing)} in {modules_dir}: run swift build first")
    triple = target_triple()
    # The C modules of this package, of the root (a package under Integrations/ depends on it) and
    # of the resolved dependencies (swift-atomics' shims, NIO's).
    checkouts = sorted(((scratch or package / ".build") / "checkouts").glob("*"))
    flags = swift_build.c_flags(list(dict.fromkeys([package, ROOT] + checkouts)), bin_path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda m: extract(m, modules_dir, triple, flags, out / m), modules))
    return products


def extract(module: str, modules_dir: Path, triple: str, flags: list[str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["swift", "symbolgraph-extract", "-module-name", module, "-I", str(modules_dir),
                             "-target", triple, "-minimum-access-level", "public", "-output-dir", str(out)] + flags,
                            capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"api-list: symbolgraph-extract {module} failed:\n{result.stderr[-2000:]}")


def internal_modules(products: list[str]) -> list[str]:
    """The root's Swift library modules that no product holds and that are not test support
    (WPTestSupport, WPTestThreads, the `…Testing` modules): the foundations, the codecs, the
    built-in front ends. Their declarations are `package` at most, so nothing in them is API."""
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True,
                                        text=True, cwd=ROOT).stdout)
    names = []
    for target in package["targets"]:
        name = target["name"]
        if target["type"] != "regular" or name in products or name.startswith("WPTest") or name.endswith("Testing"):
            continue
        if any((ROOT / "Sources" / name).rglob("*.swift")):
            names.append(name)
    return sorted(names)


# Public declarations a module that is no product's may keep, by path prefix, and why.
INTERNAL_PUBLIC = {
    "WPHistory.HistorySettings": "the type of WPExporter's public `ExporterConfiguration.history`, "
                                 "released in 0.4.0 (docs/api-stability.md)",
}


def internal_problems(modules: list[str], graphs: Path) -> list[str]:
    """`MODULE: N public declarations (first: …)` for each internal module (its symbol graphs in
    graphs/MODULE) that declares any INTERNAL_PUBLIC does not list."""
    problems = []
    for module in modules:
        listed = [line for line in lines(module, graphs / module)
                  if not any(line.startswith(prefix + ".") or line.startswith(prefix + ":") for prefix in INTERNAL_PUBLIC)]
        if listed:
            problems.append(f"{module}: {len(listed)} public declarations (first: {listed[0]})")
    return problems


def print_internal_problems(problems: list[str]) -> None:
    print("api-list: modules that are no product's declare public API (make it `package`, or the "
          "module a product: docs/architecture.md, \"Products\"):")
    for problem in problems:
        print(f"  {problem}")


def lines(module: str, graphs: Path) -> list[str]:
    found = set()
    for graph in symbol_graph.graphs(graphs):
        extended = symbol_graph.extended_module(graph)
        for symbol in symbol_graph.exposed_symbols(graph):
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            path = symbol_graph.path(symbol)
            declaration = symbol_graph.declaration(symbol)
            kind = symbol_graph.kind(symbol).removeprefix("swift.")
            prefix = f"{module} extends {extended}: " if extended else f"{module}."
            if kind == "extension":
                continue
            found.add(f"{prefix}{path}: {declaration}")
    return sorted(found)


def main() -> int:
    arguments = sys.argv[1:]
    if arguments[:1] == ["--graphs"] and len(arguments) in (2, 4) and (len(arguments) == 2 or arguments[2] == "--package"):
        out = Path(arguments[1]).resolve()
        package = Path(arguments[3]).resolve() if len(arguments) == 4 else ROOT
        with tempfile.TemporaryDirectory() as work:
            modules = extract_products(package, Path(work))
            out.mkdir(parents=True, exist_ok=True)
            for module in modules:
                for graph in symbol_graph.graphs(Path(work) / module):
                    (out / graph.name).write_bytes(graph.read_bytes())
        (out / "modules").write_text("".join(m + "\n" for m in modules), encoding="utf-8")
        return 0
    integrations = "--integrations" in arguments
    arguments = [a for a in arguments if a != "--integrations"]
    write = arguments == ["--write"]
    if arguments not in ([], ["--write"]):
        print(__doc__, file=sys.stderr)
        return 64
    api = API / "integrations" if integrations else API
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        if integrations:
            modules = []
            for package in sorted(p.parent for p in (ROOT / "Integrations").glob("*/Package.swift")):
                modules += extract_products(package, work, scratch=ROOT / ".build" / "integrations")
            problems = []
        else:
            internal = internal_modules(product_modules(ROOT))
            modules = extract_products(ROOT, work, also=internal)
            problems = internal_problems(internal, work)
        listings = {m: lines(m, work / m) for m in modules}
    where = api.relative_to(ROOT)
    if write:
        api.mkdir(exist_ok=True)
        for old in api.glob("*.txt"):
            if old.stem not in listings:
                old.unlink()
        for module, listed in listings.items():
            (api / f"{module}.txt").write_text("".join(line + "\n" for line in listed), encoding="utf-8")
        print(f"api-list: wrote {where}/ ({sum(map(len, listings.values()))} public declarations, {len(listings)} modules)")
        if problems:
            print_internal_problems(problems)
            return 1
        return 0
    status = 0
    for module, listed in listings.items():
        path = api / f"{module}.txt"
        committed = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        added = sorted(set(listed) - set(committed))
        removed = sorted(set(committed) - set(listed))
        if added or removed:
            status = 1
            print(f"api-list: {where}/{module}.txt is not {module}'s public API:")
            for line in removed[:30]:
                print(f"  - {line}")
            for line in added[:30]:
                print(f"  + {line}")
            if len(added) + len(removed) > 60:
                print(f"  … {len(added) + len(removed) - 60} more")
    if problems:
        status = 1
        print_internal_problems(problems)
    stale = [p.name for p in api.glob("*.txt") if p.stem not in listings]
    if stale:
        status = 1
        print(f"api-list: {where}/ lists modules that are no products: {', '.join(stale)}")
    if status:
        again = "scripts/api-list.py --integrations --write" if integrations else "scripts/api-list.py --write"
        print(f"api-list: run {again} and commit {where}/ with the change "
              "(docs/api-stability.md: what a release may change)", file=sys.stderr)
    else:
        print(f"api-list: {where}/ ok ({sum(map(len, listings.values()))} public declarations of {len(listings)} modules)")
    return status


if __name__ == "__main__":
    sys.exit(main())

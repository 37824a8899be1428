#!/usr/bin/env python3
"""The API-breakage gate: the public declarations of the latest release against today's, over
the symbol graphs (what `swift package diagnose-api-breaking-changes` reports, for `public`
declarations only: `package` ones are in no symbol graph at the public level).

    scripts/check-api-breakage.py BASELINE_DIR CURRENT_DIR

BASELINE_DIR holds the release's symbol graphs (`MODULE.symbols.json`), its
docs/api-stability.md as `api-stability.md` and the names of its library products' modules in
`modules` (one per line); CURRENT_DIR holds today's graphs (scripts/check-api-breakage.sh makes
both). A public declaration of the release is broken when today's modules no longer declare it
(same precise identifier) or declare it with another signature. Every break is printed; a
break of a declaration the release's docs/api-stability.md promised **stable** fails the check
unless CHANGELOG.md's `[Unreleased]` section names it, or names a type its old signature used
and its new one no longer does (a rename announced once explains every signature it touched).
"""
import re
import sys
from pathlib import Path

import symbol_graph
from api_table import named, rows


def public_symbols(graph: Path) -> dict[str, dict]:
    """Precise identifier → {path, kind, declaration, types} of the graph's public symbols."""
    found = {}
    for symbol in symbol_graph.exposed_symbols(graph):
        fragments = symbol.get("declarationFragments", [])
        found[symbol["identifier"]["precise"]] = {
            "path": symbol_graph.path(symbol),
            "kind": symbol["kind"]["displayName"],
            "declaration": symbol_graph.declaration(symbol),
            "types": {f["spelling"] for f in fragments if f.get("kind") == "typeIdentifier"},
        }
    return found


def stable_names(page: str) -> dict[str, tuple[set[str], set[str]]]:
    """Per library row of the promises table: (names in its **stable** part, names in the rest)."""
    promises = {}
    for library, cells in rows(page).items():
        text = " ".join(cells[1:])  # without the platforms
        match = re.search(r"\*\*stable\*\*:(.*?)(\*not yet stable\*|$)", text, re.IGNORECASE | re.DOTALL)
        if match:
            promises[library] = (named(match.group(1)), named(text[:match.start()] + text[match.end(1):]))
        else:
            promises[library] = (set(), named(text))
    return promises


def unreleased(changelog: str) -> set[str]:
    """Every identifier in backticks in the changelog's [Unreleased] section."""
    match = re.search(r"^## \[Unreleased\](.*?)^## \[", changelog, re.MULTILINE | re.DOTALL)
    return named(match.group(1) if match else "")


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    baseline, current = Path(sys.argv[1]), Path(sys.argv[2])
    root = Path(__file__).resolve().parent.parent
    modules = [m for m in (baseline / "modules").read_text().split() if m]
    promises = stable_names((baseline / "api-stability.md").read_text(encoding="utf-8"))
    announced = unreleased((root / "CHANGELOG.md").read_text(encoding="utf-8"))

    now = {}
    for graph in symbol_graph.graphs(current):
        now.update(public_symbols(graph))
    # A declaration whose signature changed may have another precise identifier (a function's
    # includes its types): matched by its path and kind too.
    by_path = {(symbol["path"], symbol["kind"]): symbol for symbol in now.values()}
    breaks, failures = 0, 0
    for module in modules:
        graphs = symbol_graph.graphs(baseline, module)
        if not graphs:
            print(f"check-api-breakage: {module}: the release has no symbol graph", file=sys.stderr)
            failures += 1
            continue
        before = {}
        for graph in graphs:
            before.update(public_symbols(graph))
        stable, other = promises.get(module, (set(), set()))
        for identifier, old in sorted(before.items(), key=lambda item: item[1]["path"]):
            new = now.get(identifier) or by_path.get((old["path"], old["kind"]))
            if new is not None and new["declaration"] == old["declaration"]:
                continue
            breaks += 1
            parts = old["path"].split(".")
            is_stable = parts[0] in stable and not (set(parts[1:]) & other)
            what = "removed" if new is None else "changed"
            explained = bool({parts[0], parts[-1]} & announced)
            if new is not None:
                explained = explained or bool((old["types"] - new["types"]) & announced)
            else:
                explained = explained or bool(set(parts) & announced)
            verdict = ("stable, in the changelog" if explained else "STABLE, NOT IN THE CHANGELOG") if is_stable else "not yet stable"
            detail = f"{old['declaration']}" + ("" if new is None else f"  →  {new['declaration']}")
            print(f"{module}: {what} {old['kind'].lower()} {old['path']} ({verdict}): {detail}")
            if is_stable and not explained:
                failures += 1
    print(f"check-api-breakage: {breaks} public declarations of the release broken, "
          f"{failures} of them stable and not announced in CHANGELOG.md's [Unreleased] section")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

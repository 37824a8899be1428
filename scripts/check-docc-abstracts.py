#!/usr/bin/env python3
"""Every public symbol a product declares has an abstract, as DocC counts it: the symbols its
documentation coverage lists without one (`documentation-coverage.json`, which `docc convert
--experimental-documentation-coverage` writes into the archive) are named with the file and line
of their declaration, and fail the check.

    scripts/check-docc-abstracts.py PRODUCT ARCHIVE GRAPHS_DIR

scripts/check-docc.sh runs it after each product's `docc convert`: ARCHIVE is the product's
.doccarchive, GRAPHS_DIR the directory of the symbol graphs DocC read. A coverage entry names a
page (`doc://…/documentation/PRODUCT/Type/member`); the archive's page gives the symbol's precise
identifier, and the graphs give that symbol's declaration. A symbol the graphs give no
declaration is the compiler's, with no source to document: a raw-value enum's `init(rawValue:)`,
`Codable`'s synthesized members, or a standard-library protocol's default implementation that
has no documentation to inherit (`RawRepresentable`'s `hash(into:)`). DocC counts those without
an abstract too; they are not reported.
"""
import json
import sys
from pathlib import Path

import symbol_graph


def pages(archive: Path) -> dict[str, str]:
    """The precise identifier of each symbol page of the archive, by page reference."""
    found = {}
    for page in (archive / "data" / "documentation").rglob("*.json"):
        node = json.loads(page.read_text(encoding="utf-8"))
        identifier = node.get("metadata", {}).get("externalID")
        if identifier:
            found[node["identifier"]["url"]] = identifier
    return found


def declarations(graphs: Path, root: Path) -> dict[str, tuple[str, str]]:
    """Precise identifier → (path of the symbol, `file:line` of its declaration, or "" for a
    symbol the compiler made)."""
    found = {}
    for graph in symbol_graph.graphs(graphs):
        for symbol in symbol_graph.symbols(graph):
            where = ""
            location = symbol.get("location")
            if location:
                file = Path(location["uri"].removeprefix("file://"))
                if file.is_relative_to(root):
                    file = file.relative_to(root)
                where = f"{file}:{location['position']['line'] + 1}"
            found[symbol["identifier"]["precise"]] = (symbol_graph.path(symbol), where)
    return found


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 64
    product, archive, graphs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    root = Path(__file__).resolve().parent.parent
    coverage = json.loads((archive / "documentation-coverage.json").read_text(encoding="utf-8"))
    missing = [entry for entry in coverage if entry["kind"]["isSymbol"] and not entry["hasAbstract"]]
    if not missing:
        return 0
    identifiers = pages(archive)
    symbols = declarations(graphs, root)
    failures = 0
    for entry in sorted(missing, key=lambda entry: entry["referencePath"]):
        # A page whose symbol cannot be found is reported, by its title, without a place.
        path, where = symbols.get(identifiers.get(entry["referencePath"], ""), (entry["title"], None))
        if where == "":
            continue
        failures += 1
        print(f"check-docc: {product}: public {entry['kind']['name'].lower()} {path} has no abstract"
              f"{f' ({where})' if where else ''}", file=sys.stderr)
    if failures:
        print(f"check-docc: {product}: {failures} public symbol{'s' if failures > 1 else ''} without an abstract: "
              f"give each a /// comment whose first sentence says what it is", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

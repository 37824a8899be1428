#!/usr/bin/env python3
"""docs/api-stability.md against the compiler: every public top-level declaration of every
library product (from its symbol graph) must be named in the product's row of the page's table,
so nothing is public without a stated promise (stable, or not yet stable).

    scripts/check-api-list.py GRAPHS_DIR PRODUCT...

GRAPHS_DIR holds `PRODUCT.symbols.json` as `swift build -Xswiftc -emit-symbol-graph` writes them
(scripts/check-docc.sh builds them and runs this). A declaration is named when its name appears
as a word inside backticks in the row (`Exporter`, `Exporter.Options(logger:)` and
`WebSecurity.load(path:)` name `Exporter` and `WebSecurity`). Extensions of other modules' types
(`PRODUCT@OTHER.symbols.json`) are members, not declarations of the product, and are not listed.
"""
import sys
from pathlib import Path

import symbol_graph
from api_table import named, rows

TOP_LEVEL_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias",
                   "swift.func", "swift.var", "swift.func.op", "swift.macro", "swift.actor"}
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.actor"}


def declarations(graph: Path) -> dict[str, str]:
    """The product's public top-level declarations: name → kind."""
    found = {}
    for symbol in symbol_graph.exposed_symbols(graph):
        if len(symbol["pathComponents"]) != 1:
            continue
        kind = symbol_graph.kind(symbol)
        if kind in TOP_LEVEL_KINDS:
            found[symbol["pathComponents"][0].split("(")[0]] = kind
    return found


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    graphs, products = Path(sys.argv[1]), sys.argv[2:]
    page = Path(__file__).resolve().parent.parent / "docs" / "api-stability.md"
    table = {library: " ".join(cells) for library, cells in rows(page.read_text(encoding="utf-8")).items()}
    problems = 0
    for product in products:
        graph = graphs / f"{product}{symbol_graph.SUFFIX}"
        if not graph.exists():
            print(f"check-api-list: {product}: no symbol graph", file=sys.stderr)
            problems += 1
            continue
        if product not in table:
            print(f"check-api-list: {product} is a product but has no row in docs/api-stability.md", file=sys.stderr)
            problems += 1
            continue
        public = declarations(graph)
        words = named(table[product])
        unlisted = sorted(name for name in public if name not in words)
        for name in unlisted:
            print(f"check-api-list: {product}: public {public[name].removeprefix('swift.')} `{name}` "
                  f"is not in its row of docs/api-stability.md (state its promise there, or make it package)",
                  file=sys.stderr)
        problems += len(unlisted)
        print(f"check-api-list: {product}: {len(public)} public top-level declarations, "
              f"{len(public) - len(unlisted)} in docs/api-stability.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

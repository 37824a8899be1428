"""The symbol graphs that `swift symbolgraph-extract` and `swift build -emit-symbol-graph` write,
read in one place for scripts/api-list.py, scripts/check-api-list.py,
scripts/check-api-breakage.py and scripts/check-docc-abstracts.py.

A module's graph is `MODULE.symbols.json`; its extensions of another module's types are in
`MODULE@OTHER.symbols.json`."""
import json
from pathlib import Path

SUFFIX = ".symbols.json"
EXPOSED = ("public", "open")


def graphs(directory: Path, module: str | None = None) -> list[Path]:
    """The module's graphs in the directory (its own first, then its extensions'), or every
    graph there without a module; sorted."""
    if module is None:
        return sorted(directory.glob(f"*{SUFFIX}"))
    return sorted(directory.glob(f"{module}{SUFFIX}")) + sorted(directory.glob(f"{module}@*{SUFFIX}"))


def extended_module(graph: Path) -> str:
    """The module whose types the graph's symbols extend: "" for a module's own graph."""
    return graph.name[:-len(SUFFIX)].partition("@")[2]


def symbols(graph: Path) -> list[dict]:
    """Every symbol of the graph."""
    return json.loads(graph.read_text(encoding="utf-8"))["symbols"]


def exposed_symbols(graph: Path) -> list[dict]:
    """The graph's public and open symbols."""
    return [symbol for symbol in symbols(graph) if symbol.get("accessLevel") in EXPOSED]


def path(symbol: dict) -> str:
    """The symbol's dotted path: `Type.member(label:)`."""
    return ".".join(symbol["pathComponents"])


def declaration(symbol: dict) -> str:
    """The symbol's declaration as one line, its white space folded."""
    return " ".join("".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", [])).split())


def kind(symbol: dict) -> str:
    """The symbol's kind identifier: `swift.struct`, `swift.func`, …"""
    return symbol["kind"]["identifier"]

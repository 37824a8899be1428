"""docs/api-stability.md's promises table, read by scripts/check-api-list.py and
scripts/check-api-breakage.py: each library's row, and the identifiers a piece of it names."""
import re


def rows(page: str) -> dict[str, list[str]]:
    """Each library's cells after its name (platforms, public API) in the promises table (the
    one headed `| library | platforms |`), by library name; a row may name several libraries,
    and a library named in several rows gets the cells of each."""
    table = {}
    inside = False
    for line in page.splitlines():
        if line.startswith("| library | platforms |"):
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not inside or len(cells) < 3 or set(cells[0]) <= set("-"):
            continue
        for library in re.findall(r"\b(WP[A-Za-z]+)\b", cells[0].split("(")[0]):
            table.setdefault(library, []).extend(cells[1:])
    return table


def named(text: str) -> set[str]:
    """Every identifier inside backticks in the text."""
    words = set()
    for code in re.findall(r"`([^`]+)`", text):
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    return words

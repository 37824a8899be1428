#!/usr/bin/env bash
# Keeps the Chinese pages true to the English ones (in CI: `.ci/run gate`).
#
# A Chinese page (README.zh-CN.md, docs/zh-CN/*.md) that renders an English page starts with
#
#   <!-- translation-of: PATH[#SECTION] sha256:HEX -->
#
# where PATH is the English page from the repository root, SECTION (optional) one of its
# headings as GitHub anchors it (the section runs to the next heading of the same or a higher
# level), and HEX the sha256 of that English text when the page was last brought up to date.
# The check fails when the English text has changed since: the Chinese page must follow in the
# same commit. After updating the translation, `--update` writes the new sha256 into its header.
# Pages without the header are written in Chinese first (the index) and are not compared.
#
# Every relative link of every Chinese page must name a file of the repository, and every
# ```yaml block must parse (PyYAML); their shell commands are run by check-docs-commands.sh.
#
#   scripts/check-translations.sh            # check
#   scripts/check-translations.sh --update   # after updating a translation: record the new sha256
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
import glob, hashlib, os, re, sys

update = sys.argv[1:] == ["--update"]
if sys.argv[1:] and not update:
    sys.exit("usage: scripts/check-translations.sh [--update]")
pages = [p for p in ["README.zh-CN.md"] + sorted(glob.glob("docs/zh-CN/*.md")) if os.path.exists(p)]
header = re.compile(r"\A<!-- translation-of: (\S+) sha256:(\S+) -->\n")

def slug(title):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    title = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return title.replace(" ", "-")

def english(source):
    path, _, anchor = source.partition("#")
    if not os.path.isfile(path):
        raise ValueError(f"{path} does not exist")
    text = open(path, encoding="utf-8").read()
    if not anchor:
        return text
    lines, fenced, start, level = text.splitlines(keepends=True), False, None, 0
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else re.match(r"(#{1,6}) (.*)", line)
        if not heading:
            continue
        if start is None and slug(heading.group(2)) == anchor:
            start, level = index, len(heading.group(1))
        elif start is not None and len(heading.group(1)) <= level:
            return "".join(lines[start:index])
    if start is None:
        raise ValueError(f"{path} has no heading anchored #{anchor}")
    return "".join(lines[start:])

try:
    import yaml
except ImportError:
    sys.exit("check-translations: needs PyYAML (scripts/ci/tools.sh static)")

problems, current, originals = [], [], []
for page in pages:
    text = open(page, encoding="utf-8").read()
    for number, block in ((text[:m.start()].count("\n") + 2, m.group(1)) for m in re.finditer(r"^```yaml\n(.*?)^```", text, re.M | re.S)):
        try:
            yaml.safe_load(block)
        except yaml.YAMLError as error:
            problems.append(f"{page}:{number}: the YAML block does not parse: {error}")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#", 1)[0]))
        if not os.path.exists(resolved):
            problems.append(f"{page}: the link ({target}) names {resolved}, which does not exist")
    match = header.match(text)
    if not match:
        originals.append(page)
        continue
    source, recorded = match.groups()
    try:
        digest = hashlib.sha256(english(source).encode("utf-8")).hexdigest()
    except ValueError as error:
        problems.append(f"{page}: translation-of {source}: {error}")
        continue
    if digest == recorded:
        current.append(page)
    elif update:
        open(page, "w", encoding="utf-8").write(text.replace(match.group(0), f"<!-- translation-of: {source} sha256:{digest} -->\n", 1))
        print(f"{page}: now renders {source} at sha256:{digest[:12]}")
        current.append(page)
    else:
        problems.append(f"{page} renders {source} at sha256:{recorded[:12]}, but {source} is now sha256:{digest[:12]}: "
                        "bring the Chinese page up to date in the same commit, then run scripts/check-translations.sh --update")
for problem in problems:
    print("FAIL: " + problem, file=sys.stderr)
print(f"translations: {len(current)} up to date ({', '.join(current)}); written in Chinese first: {', '.join(originals) or 'none'}")
sys.exit(1 if problems else 0)
PY

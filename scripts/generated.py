"""The one way a generator of this repository writes its files, or with --check says which
committed file differs from what it makes (with a diff) and fails: scripts/gen-kubernetes.py and
scripts/gen-zabbix.py call run() with what they make.

    run("scripts/gen-zabbix.py", "deploy/zabbix", outputs)   # outputs() yields (name, text)
"""
import difflib, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(script, directory, outputs):
    """Writes each (name, text) of outputs() under directory (a path in the repository), or
    checks them with --check; exits 1 when a file is stale under --check, 0 otherwise."""
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit(f"usage: {script} [--check]")
    stale = False
    for name, text in outputs():
        path = os.path.join(ROOT, directory, name)
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if current == text:
            continue
        if check:
            stale = True
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       f"{directory}/{name}", "generated", n=1))
            print(f"FAIL: {directory}/{name} differs from what {script} makes; run {script}")
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w", encoding="utf-8").write(text)
            print(f"wrote {directory}/{name}")
    sys.exit(1 if stale else 0)

"""Where a SwiftPM debug build keeps what the scripts that read its modules need, in one place
for scripts/api-list.py and scripts/check-doc-listings.py: the directory of its products and
the C modules a Swift module of it may import."""
import subprocess
from pathlib import Path


def bin_path(package: Path, scratch: Path | None = None) -> Path:
    """The debug build's products directory of `package` (in its own scratch path, or in `scratch`)."""
    scratch_flags = ["--scratch-path", str(scratch)] if scratch else []
    return Path(subprocess.run(["swift", "build", "--show-bin-path"] + scratch_flags, check=True, capture_output=True,
                               text=True, cwd=package).stdout.strip())


def c_flags(packages: list[Path], bin_path: Path) -> list[str]:
    """The C targets' module maps (generated ones in the build, written ones in Sources) and headers.

    A target is taken from the first of `packages` that has it: another copy of this repository
    (a release's tree, beside the root whose C modules an Integrations/ package needs) would
    otherwise define each of its C modules twice."""
    flags = []
    maps = sorted(bin_path.glob("*.build/module.modulemap"))
    includes = []
    seen = set()
    for package in packages:
        targets = sorted(path for path in package.glob("Sources/*") if path.name not in seen)
        seen.update(path.name for path in targets)
        maps += [target / "module.modulemap" for target in targets if (target / "module.modulemap").is_file()]
        includes += [target / "include" for target in targets if (target / "include").is_dir()]
    for map_file in maps:
        flags += ["-Xcc", f"-fmodule-map-file={map_file}"]
    for include in includes:
        flags += ["-Xcc", "-I", "-Xcc", str(include)]
    return flags

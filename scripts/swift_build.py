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
    """The C targets' module maps (generated ones in the build, written ones in Sources) and headers."""
    flags = []
    maps = sorted(bin_path.glob("*.build/module.modulemap"))
    for package in packages:
        maps += sorted(package.glob("Sources/*/module.modulemap"))
    for map_file in maps:
        flags += ["-Xcc", f"-fmodule-map-file={map_file}"]
    for package in packages:
        for include in sorted(package.glob("Sources/*/include")):
            flags += ["-Xcc", "-I", "-Xcc", str(include)]
    return flags

#!/usr/bin/env bash
# Prints a release's version and the commit that cut it: `VERSION COMMIT`. The release is the
# one named, or the latest: CHANGELOG.md's first `## [x.y.z]` heading; its commit is the one that
# added that heading (releases are cut by that commit: docs/api-stability.md, "Cutting a
# release"). The gates that compare today's tree with the last release use it:
# scripts/check-api-breakage.sh and scripts/check-new-copies.sh.
#
#   scripts/release-commit.sh            # the latest release
#   scripts/release-commit.sh 0.3.0      # another one
set -euo pipefail
cd "$(dirname "$0")/.."
release=${1:-$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)}
[ -n "$release" ] || { echo "release-commit: no '## [x.y.z]' release heading in CHANGELOG.md" >&2; exit 1; }
commit=$(git log --format=%H -S"## [$release]" -- CHANGELOG.md | tail -n 1)
[ -n "$commit" ] || { echo "release-commit: no commit added the heading of $release to CHANGELOG.md" >&2; exit 1; }
echo "$release $commit"

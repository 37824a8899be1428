#!/usr/bin/env bash
# Publishes the packages under Integrations/ as packages of their own, each depending on a
# release of wpexporter by URL and version, so that a service can depend on wpexporter and on
# the integrations it needs by version (docs/embedding.md, "Depending on the integrations").
#
#   scripts/export-integrations.sh WPEXPORTER_URL VERSION DIRECTORY
#
# For each Integrations/<Name>, DIRECTORY/<Name> becomes a git repository holding the package
# as committed at HEAD (uncommitted changes are not exported), with the two lines naming
# wpexporter in its Package.swift changed from this checkout (`path: "../.."`) to
# `.package(url: WPEXPORTER_URL, .upToNextMinor(from: VERSION))` and the package identity SwiftPM derives
# from that URL (its last path component without `.git`). The result is committed and tagged
# VERSION. A DIRECTORY/<Name> that is already a clone of the published repository gets the new
# commit on top of its history; push it and the tag to publish. Nothing in this repository
# changes.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 3 ]; then
    echo "usage: scripts/export-integrations.sh WPEXPORTER_URL VERSION DIRECTORY" >&2
    exit 2
fi
url=$1 version=$2 out=$3
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "export-integrations: VERSION must be x.y.z (a wpexporter release), not '$version'" >&2
    exit 2
fi
case $url in
    '' | *'"'* | *\\*)
        echo "export-integrations: WPEXPORTER_URL must be a non-empty URL without quotes or backslashes" >&2
        exit 2
        ;;
esac
identity=${url%/}
identity=${identity##*/}
identity=${identity%.git}
if ! [[ $identity =~ ^[A-Za-z0-9._-]+$ ]]; then
    echo "export-integrations: cannot derive a package identity from WPEXPORTER_URL '$url'" >&2
    exit 2
fi

dependency_line='let wpexporterDependency: Package.Dependency = .package(name: "wpexporter", path: "../..")'
package_line='let wpexporterPackage = "wpexporter"'
commit=$(git rev-parse HEAD)
mkdir -p "$out"
for manifest in $(git ls-tree --name-only HEAD Integrations/ | sed 's|$|/Package.swift|'); do
    name=$(basename "$(dirname "$manifest")")
    target="$out/$name"
    for line in "$dependency_line" "$package_line"; do
        count=$(git show "HEAD:$manifest" | grep -cxF -- "$line" || true)
        if [ "$count" != 1 ]; then
            echo "export-integrations: $manifest must contain this line exactly once (found $count):" >&2
            echo "  $line" >&2
            exit 1
        fi
    done
    if [ ! -d "$target/.git" ]; then
        git init --quiet "$target"
    fi
    # The published tree is exactly the committed package: remove what the last export had.
    git -C "$target" rm -r --quiet --ignore-unmatch -- . >/dev/null
    git archive "HEAD:Integrations/$name" | tar -x -C "$target"
    awk -v dep="$dependency_line" -v pkg="$package_line" \
        -v newdep="let wpexporterDependency: Package.Dependency = .package(url: \"$url\", .upToNextMinor(from: \"$version\"))" \
        -v newpkg="let wpexporterPackage = \"$identity\"" \
        '$0 == dep { print newdep; next } $0 == pkg { print newpkg; next } { print }' \
        "$target/Package.swift" >"$target/Package.swift.new"
    mv "$target/Package.swift.new" "$target/Package.swift"
    identity_args=()
    if [ -z "$(git -C "$target" config user.email || true)" ]; then
        identity_args=(-c user.name=wpexporter -c user.email=wpexporter@localhost)
    fi
    git -C "$target" add -A .
    git -C "$target" "${identity_args[@]}" commit --quiet --allow-empty \
        -m "$name $version, from wpexporter $commit (Integrations/$name)"
    git -C "$target" tag "$version"
    echo "export-integrations: $target at $version (wpexporter from $url $version)"
done

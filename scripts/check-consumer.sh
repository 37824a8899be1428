#!/usr/bin/env bash
# Builds and tests scripts/consumer, a package that depends on this repository the way a service
# does (docs/embedding.md): a source-control dependency on a version tag, beside swift-system
# 1.8.1 (whose C target CSystem once clashed with ours), with CI=true set as CI systems do. The
# repository is cloned bare into a temporary directory and the tag — the version of
# CHANGELOG.md's latest release — is made in that clone, so nothing here touches the
# repository's own tags. Only committed work is tested (the clone takes HEAD). With the newer
# build system too when `swift build` offers it.
#
# Then the integrations are published into the temporary directory as a release would
# (scripts/export-integrations.sh: one repository per package under Integrations/, depending on
# the tag by URL) and scripts/consumer-integrations, which depends on wpexporter and on them by
# version, is built and tested with the native build system. It shares the first consumer's
# scratch path, so wpexporter's modules, built from the same checkout path, are not rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

version=$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)
if [ -z "$version" ]; then
    echo "check-consumer: no '## [x.y.z]' release heading in CHANGELOG.md" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --bare "$root" "$work/wpexporter.git"
git -C "$work/wpexporter.git" tag "$version" HEAD
cp -R scripts/consumer "$work/consumer"

export CI=true WPEXPORTER_GIT_URL="file://$work/wpexporter.git" WPEXPORTER_VERSION="$version"
systems=(native)
help=$(swift build --help 2>/dev/null || true)   # read whole: grep -q on a pipe would fail it under pipefail
if grep -q -- '--build-system' <<<"$help" && grep -q 'swiftbuild' <<<"$help"; then
    systems+=(swiftbuild)
fi
# SwiftPM itself (swift-package, not the compiler) has been seen to die of SIGSEGV in
# libdispatch during the swiftbuild build on a loaded machine, and to pass on the next try: a
# build that a signal ended is tried once more, saying so; any other failure fails at once.
build_consumer() {  # build_consumer SYSTEM
    local status=0
    (cd "$work/consumer" && swift build --build-tests --build-system "$1" --scratch-path "$work/build-$1") || status=$?
    if [[ $status -gt 128 ]]; then
        echo "check-consumer: swift build ($1) was ended by signal $((status - 128)) (a crash of SwiftPM); building once more"
        status=0
        (cd "$work/consumer" && swift build --build-tests --build-system "$1" --scratch-path "$work/build-$1") || status=$?
    fi
    return "$status"
}
for system in "${systems[@]}"; do
    echo "check-consumer: wpexporter $version as a tagged dependency, CI=$CI, build system $system"
    build_consumer "$system"
    (cd "$work/consumer" && swift test --skip-build --build-system "$system" --scratch-path "$work/build-$system")
done

scripts/export-integrations.sh "file://$work/wpexporter.git" "$version" "$work/integrations" >/dev/null
cp -R scripts/consumer-integrations "$work/consumer-integrations"
echo "check-consumer: the integrations published at $version, depending on wpexporter $version by URL"
(cd "$work/consumer-integrations" && WPEXPORTER_INTEGRATIONS="$work/integrations" \
    swift build --build-tests --scratch-path "$work/build-native" \
    && WPEXPORTER_INTEGRATIONS="$work/integrations" swift test --skip-build --scratch-path "$work/build-native")
echo "check-consumer: ok (${systems[*]}; integrations from a release)"

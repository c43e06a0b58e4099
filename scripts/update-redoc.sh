#!/usr/bin/env bash
# Refreshes the API reference renderer bundled into the binary (/docs):
# Redoc's standalone build, from the npm registry, at the version below.
# The files are committed so that a build needs no network.
set -euo pipefail
version=2.5.4
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "redoc@$version" >/dev/null && tar xzf "redoc-$version.tgz")
cp "$tmp/package/bundles/redoc.standalone.js" "$tmp/package/bundles/redoc.standalone.js.LICENSE.txt" internal/server/reference/
cp "$tmp/package/LICENSE" internal/server/reference/REDOC-LICENSE
echo "internal/server/reference: redoc $version"

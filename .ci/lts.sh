#!/usr/bin/env bash
# The later Node.js LTS lines the service supports besides Node 20 (package.json "engines"): each is
# installed from the npm registry (.ci/node.sh) and runs a subset of the suite on PGlite — the
# unit-level files of the start-up path and one end-to-end file per area (README, "Node.js
# versions"). The whole suite runs on Node 20, twice; this subset catches what a newer Node breaks
# (module loading, the embedded database's WebAssembly, sockets, crypto) in a few minutes.
# Usage: bash .ci/lts.sh            (exit status 1 when any version fails)
set -euo pipefail
cd "$(dirname "$0")/.."

VERSIONS=(22.23.3 24.21.0)
SUBSET=(
  test/config.test.ts              # configuration: every setting, one-line errors
  test/http/envelope.test.ts       # the API's answers and errors
  test/telegrams/classify.test.ts  # telegram classification
  test/conversion/seam.test.ts     # the JSON conversion's seam
  test/db/adapter.test.ts          # PGlite: opened, queried, closed
  test/db/lock-file.test.ts        # the data directory's lock
  test/cli/bundle.test.ts          # the esbuild bundle and its workers
  test/cli/serve.test.ts           # `namazu serve` started, answering, stopped
  test/cli/restart.test.ts         # `npm start`, with and without a build
  test/realtime/endpoint.test.ts   # the WebSocket endpoint
  test/realtime/sdk.test.ts        # the official SDK (@dmdata/sdk-js) on the socket
  test/oauth/authorize-end-to-end.test.ts # OAuth: authorization code with PKCE, end to end
)

failed=()
for version in "${VERSIONS[@]}"; do
  node_bin=$(bash .ci/node.sh "$version")
  echo "== subset on node $("$node_bin" --version) (${#SUBSET[@]} files)"
  started=$SECONDS
  # Its directory first on PATH: what the tests start by name (npm, node) runs on it too.
  if PATH="$(dirname "$node_bin"):$PATH" NAMAZU_TEST_DATABASE_URL= "$node_bin" scripts/run-tests.js "${SUBSET[@]}"; then
    echo "== node $version: passed in $((SECONDS - started)) s"
  else
    echo "== node $version: FAILED after $((SECONDS - started)) s"
    failed+=("$version")
  fi
done
[ ${#failed[@]} -eq 0 ] || {
  echo "== subset failed on node ${failed[*]}"
  exit 1
}

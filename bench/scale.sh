#!/usr/bin/env bash
# Scale benchmark (see bench/scale.ts): raises the open-file limit for the nodes' and the client
# processes' sockets (each stays under it: 15,000 per worker, 12,500 per client process).
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)"
exec node --import tsx bench/scale.ts "$@"

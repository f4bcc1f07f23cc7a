#!/usr/bin/env bash
# Fan-out benchmark (see bench/fanout.ts): raises the open-file limit for thousands of sockets.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)"
exec node --import tsx bench/fanout.ts "$@"

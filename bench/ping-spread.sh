#!/usr/bin/env bash
# Heartbeat benchmark (see bench/ping-spread.ts): raises the open-file limit for its sockets.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)"
exec node --import tsx bench/ping-spread.ts "$@"

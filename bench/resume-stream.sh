#!/usr/bin/env bash
# Resume and server-sent-events benchmark (see bench/resume-stream.ts): raises the open-file limit
# for thousands of connections.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)"
exec node --import tsx bench/resume-stream.ts "$@"

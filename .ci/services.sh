#!/usr/bin/env bash
# Installs (when missing) and starts the servers the tests use, on loopback only:
# PostgreSQL 15 as an unprivileged throwaway cluster, and Redis. Also installs Chromium's headless
# shell, the real browser the page tests drive (test/support/chromium.ts), and nginx, the load
# balancer of the multi-node tests (they start their own on free ports; the package's own service
# is not used), and promtool (Debian package prometheus), which checks the alert rules and the
# dashboard's queries. Prints the environment to export.
# Usage: eval "$(bash .ci/services.sh)"
set -euo pipefail

need=()
command -v redis-server >/dev/null || need+=(redis-server)
# curl and jq: the runnable examples of the docs (test/docs/examples.test.ts).
command -v curl >/dev/null || need+=(curl)
command -v jq >/dev/null || need+=(jq)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/lib/chromium/chromium-headless-shell ] || need_headless_shell=1
NGINX=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null || true)
[ -n "$NGINX" ] || need+=(nginx)
# promtool alone: without the exporters and services the package recommends.
command -v promtool >/dev/null || need_promtool=1
if [ ${#need[@]} -gt 0 ] || [ -n "${need_promtool:-}" ] || [ -n "${need_headless_shell:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  [ ${#need[@]} -eq 0 ] || apt-get install -y -qq "${need[@]}" >&2
  [ -z "${need_promtool:-}" ] || apt-get install -y -qq --no-install-recommends prometheus >&2
  # The full Chromium where a mirror has no headless shell (test/support/chromium.ts takes either).
  [ -z "${need_headless_shell:-}" ] || apt-get install -y -qq chromium-headless-shell >&2 ||
    [ -x /usr/bin/chromium ] || apt-get install -y -qq chromium >&2
fi

NGINX=${NGINX:-/usr/sbin/nginx}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# Free loopback ports (asked of the kernel), unless given.
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
PGPORT=${CI_PG_PORT:-$(free_port)}
REDISPORT=${CI_REDIS_PORT:-$(free_port)}
BASE=$(mktemp -d /tmp/namazu-ci-XXXXXX)
chmod 755 "$BASE"

# PostgreSQL refuses to run as root: the cluster belongs to the 'postgres' user the package made.
RUNAS=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home "$BASE" postgres
  chown postgres "$BASE"
  RUNAS=(runuser -u postgres --)
fi
"${RUNAS[@]}" "$PGBIN/initdb" -D "$BASE/pg" -U namazu --auth=trust -E UTF8 >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$BASE/pg" -l "$BASE/pg.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $BASE -c max_connections=300 -c fsync=off -c synchronous_commit=off" start >/dev/null

redis-server --bind 127.0.0.1 --port "$REDISPORT" --save '' --appendonly no --daemonize yes \
  --logfile "$BASE/redis.log" --dir "$BASE" --pidfile "$BASE/redis.pid" >/dev/null

# Ready when our own server (not another one on the port) answers.
for _ in $(seq 1 50); do
  [ -s "$BASE/redis.pid" ] && redis-cli -p "$REDISPORT" ping >/dev/null 2>&1 && break
  sleep 0.1
done
if ! [ -s "$BASE/redis.pid" ] || ! kill -0 "$(cat "$BASE/redis.pid")" 2>/dev/null; then
  echo "redis-server did not start on 127.0.0.1:$REDISPORT:" >&2
  tail -3 "$BASE/redis.log" >&2
  exit 1
fi

echo "export CI_SERVICES_DIR='$BASE'"
echo "export CI_PGBIN='$PGBIN'"
echo "export NAMAZU_TEST_PG_URL='postgres://namazu@127.0.0.1:$PGPORT/postgres'"
echo "export NAMAZU_TEST_REDIS_URL='redis://127.0.0.1:$REDISPORT'"
echo "export NAMAZU_TEST_NGINX='$NGINX'"

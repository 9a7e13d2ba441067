#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on loopback for the test suite.
# Usage: source .ci/start-postgres.sh   (exports IRIS_TEST_PG_URL)
# Installs Debian's postgresql package if it is missing; runs as the
# unprivileged `postgres` user because initdb refuses root.
set -euo pipefail

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
PG_PORT="${IRIS_TEST_PG_PORT:-54329}"
PG_DIR="$(mktemp -d /tmp/iris-pg.XXXXXX)"
chown postgres:postgres "$PG_DIR"
run_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
run_pg "$PG_BIN/initdb -D $PG_DIR/data -U postgres --auth=trust -E UTF8 >/dev/null"
run_pg "$PG_BIN/pg_ctl -D $PG_DIR/data -l $PG_DIR/log -o '-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off -c max_connections=200' -w start >/dev/null"
run_pg "$PG_BIN/createdb -h 127.0.0.1 -p $PG_PORT -U postgres iris_test"
export IRIS_TEST_PG_URL="postgresql+psycopg://postgres@127.0.0.1:$PG_PORT/iris_test"
export IRIS_TEST_PG_DIR="$PG_DIR"
echo "PostgreSQL ready at $IRIS_TEST_PG_URL"

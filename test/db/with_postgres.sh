#!/usr/bin/env bash
# Runs a command against a real PostgreSQL server of its own: initdb into a fresh folder, the server on a Unix socket
# there (no TCP port), OPMARK_TEST_POSTGRES set to its URL for the command, the server stopped and the folder removed
# at the end, whatever the command does. Exits 77 (ctest's skip) where PostgreSQL's server programs are missing.
#   test/db/with_postgres.sh COMMAND [ARGS...]
set -uo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "with_postgres.sh: no PostgreSQL server (Debian: apt-get install postgresql): skipped" >&2
  exit 77
fi
dir=$(mktemp -d /tmp/opmark_pg.XXXXXX)
as_owner=()
if [ "$(id -u)" -eq 0 ]; then  # the server refuses to run as root: it runs as Debian's postgres user
  if ! id postgres >/dev/null 2>&1; then
    echo "with_postgres.sh: running as root and no postgres user: skipped" >&2
    exit 77
  fi
  chown postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
stop() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$dir"
}
trap stop EXIT
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U opmark --auth=trust --locale=C -E UTF8 >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses='' -k $dir -p 5432 -c fsync=off" start >/dev/null ||
  { cat "$dir/server.log" >&2; exit 1; }
export OPMARK_TEST_POSTGRES="postgresql://opmark@/postgres?host=$dir&port=5432"
"$@"

# Sourced by .ci/run: a throwaway Postgres for the store tests, exported as TEST_POSTGRES_URL.
# Installs the server from Debian packages when it is missing (CI runs as root), initialises a
# cluster in a temp folder owned by an unprivileged user, serves it on a free local port, and
# stops it when the sourcing shell exits. Any failure leaves the variable unset and says why;
# under CI=true the Postgres store tests then fail rather than skip.

lg_pg_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

lg_pg_start() {
  local bindir dir port user
  bindir=$(lg_pg_bindir)
  if [ -z "$bindir" ] || [ ! -x "$bindir/pg_ctl" ]; then
    echo "== postgres: installing the postgresql package"
    if [ "$(id -u)" != 0 ]; then echo "postgres: not installed and not root; store tests on Postgres cannot run"; return 1; fi
    apt-get update -qq >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null 2>&1 || { echo "postgres: apt-get install postgresql failed"; return 1; }
    bindir=$(lg_pg_bindir)
    [ -x "$bindir/pg_ctl" ] || { echo "postgres: pg_ctl not found after install"; return 1; }
  fi
  dir=$(mktemp -d /tmp/loopguard-pg.XXXXXX) || return 1
  user=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    # initdb refuses to run as root.
    user=postgres
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home "$user" >/dev/null 2>&1 || { echo "postgres: no unprivileged user"; return 1; }
    chown "$user" "$dir"
  fi
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  LG_PG_USER=$user
  # Global on purpose: the EXIT trap below runs it after this function's locals are gone.
  lg_pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u "$LG_PG_USER" -- "$@"; else "$@"; fi; }
  lg_pg_as "$bindir/initdb" -D "$dir/data" -U loopguard --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 || { echo "postgres: initdb failed:"; tail -5 "$dir/initdb.log"; return 1; }
  lg_pg_as "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1 || { echo "postgres: server did not start:"; tail -5 "$dir/server.log"; return 1; }
  export TEST_POSTGRES_URL="postgres://loopguard@127.0.0.1:$port/postgres"
  LG_PG_STOP="$bindir/pg_ctl -D $dir/data -m immediate stop"
  trap 'lg_pg_as $LG_PG_STOP >/dev/null 2>&1' EXIT
  echo "== postgres: $("$bindir/postgres" --version) on 127.0.0.1:$port (TEST_POSTGRES_URL)"
}

lg_pg_start || echo "postgres: TEST_POSTGRES_URL is not set"

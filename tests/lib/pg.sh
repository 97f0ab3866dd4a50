# pg.sh -- a real, private PostgreSQL 15 server for a test: initdb and
# pg_ctl in a temporary directory, reachable only through a unix socket in
# that directory (listen_addresses = ''), so nothing collides with another
# test or a system server.  Source it from bash:
#
#   . "$ZK_SOURCE_DIR/tests/lib/pg.sh"
#   pg_start || exit $?            # 77 (skip, reason printed) without the binaries
#   pg_createdb NAME               # -> a database; its URL: "$(pg_url NAME)"
#   ... ; pg_stop                  # also run by the EXIT trap pg_start sets
#
# After pl_init (tests/pipeline/lib.sh, whose EXIT trap pl_cleanup must
# stay last): pg_start, then `pg_trap_before pl_cleanup`
# (tests/pipeline/lib_pg.sh does both).
#
# PostgreSQL refuses to run as root: under root the server runs as the
# `postgres` user of Debian's package (`nobody` without it), and the data
# directory is that user's.  Authentication is `trust` for the superuser
# `zkslot` on the socket only.  fsync is off: the tests never cut the
# power, and a commit does not wait for the disk.
#
# PG_DIR: the temporary directory (socket, data/, log); PG_BIN: the binaries.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_DIR=
PG_AS=()
PG_OPTS=

# pg_start [EXTRA_POSTGRES_OPTIONS...]: initdb + start; 0, 1 failed, 77 no binaries.
pg_start() {
    local b
    for b in initdb pg_ctl postgres createdb psql; do
        if [ ! -x "$PG_BIN/$b" ]; then
            echo "SKIP: no $PG_BIN/$b (Debian package postgresql, tools/deps.sh)"
            return 77
        fi
    done
    PG_DIR=$(mktemp -d /tmp/zkpg.XXXXXX) || return 1
    chmod 0755 "$PG_DIR"
    if [ "$(id -u)" = 0 ]; then
        local u=postgres
        id "$u" >/dev/null 2>&1 || u=nobody
        chown "$u" "$PG_DIR"
        PG_AS=(runuser -u "$u" --)
    fi
    trap pg_stop EXIT
    if ! "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U zkslot --auth=trust \
        --no-sync -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1; then
        echo "pg_start: initdb failed:" >&2
        tail -5 "$PG_DIR/initdb.log" >&2
        return 1
    fi
    PG_OPTS="-c listen_addresses='' -c unix_socket_directories=$PG_DIR -c fsync=off"
    PG_OPTS+=" -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 $*"
    if ! pg_server_start; then
        echo "pg_start: the server did not start:" >&2
        tail -5 "$PG_DIR/log" >&2
        return 1
    fi
}

# pg_trap_before CODE: the EXIT trap becomes pg_stop, then CODE (shell
# code), with $? the exit status the script had and $pg__rc holding it
# (code that runs commands before a function reading $? restores it with
# `(exit $pg__rc)`).
pg_trap_before() {
    # shellcheck disable=SC2064
    # no ERR trap or errexit in here: a failing step must not stop the
    # cleanup, and restoring a status (77 included) is not a failure
    trap "pg__rc=\$?; trap - ERR; set +e; pg_stop; (exit \$pg__rc); $1" EXIT
}

# pg_url DB: the libpq keyword string of database DB on the private server.
pg_url() { echo "host=$PG_DIR user=zkslot dbname=$1"; }

# pg_createdb DB: creates database DB.
pg_createdb() { "$PG_BIN/createdb" -h "$PG_DIR" -U zkslot "$1"; }

# pg_psql DB SQL: runs SQL in DB, prints the rows unaligned (-At).
pg_psql() { "$PG_BIN/psql" -X -q -At -h "$PG_DIR" -U zkslot -d "$1" -c "$2"; }

# pg_server_stop / pg_server_start: the same server stopped and started again
# (a restart mid-run); pg_stop: stopped for good and its directory removed.
pg_server_stop() { "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null; }
pg_server_start() {
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -o "$PG_OPTS" -l "$PG_DIR/log" -w -t 60 \
        start >/dev/null
}
pg_stop() {
    [ -n "$PG_DIR" ] || return 0
    if [ -f "$PG_DIR/data/postmaster.pid" ]; then
        "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
    fi
    rm -rf "$PG_DIR"
    PG_DIR=
}

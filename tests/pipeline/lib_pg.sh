# lib_pg.sh -- a pipeline test's ledger on a private PostgreSQL server
# (tests/lib/pg.sh), and more machines on this host sharing it.  Source it
# after tests/pipeline/lib.sh:
#
#   pl_init NAME || exit 77
#   pl_pg_init ['SHELL CODE']   # server, database zk, $ZKSLOT_LEDGER naming it
#                               # (PL_PG_OPTS: more options of the server's)
#   pl_pg_machine b 2           # machine b: its own pool (2 slots), state dir
#   pl_pg_on b pl_start_synthd --machine b    # any command, run as machine b
#
# The code given runs in the EXIT trap after the server is stopped and
# before pl_cleanup; the machines' pools are destroyed there too.  Skips
# (pl_skip) without PostgreSQL's binaries.
. "$ZK_SOURCE_DIR/tests/lib/pg.sh"

PL_PG_MACHINES=()

pl_pg_init() {
    local r=0
    # shellcheck disable=SC2086
    pg_start ${PL_PG_OPTS:-} || r=$?
    pg_trap_before "pl_pg_machines_destroy; ${1:+$1; }(exit \$pg__rc); pl_cleanup"   # pl_cleanup reads \$?
    [ "$r" != 77 ] || pl_skip "no PostgreSQL server binaries"
    [ "$r" = 0 ] || { pl_bad "pg_start"; pl_done; }
    pg_createdb zk
    export ZKSLOT_LEDGER="host=$PG_DIR user=zkslot dbname=zk"
    PL_PG_LEDGER=$ZKSLOT_LEDGER
}

# pl_pg_roles: docs/ledger.md's roles block ("Roles and grants") applied
# verbatim by the superuser (it makes the roles and database zkslot), then
# passwords required of everyone but the superuser.  Login role zk_WHO's
# URL: postgresql://zk_WHO:WHO-pw-change-me@/zkslot?host=$PG_DIR.  A
# failure is recorded and ends the test.
pl_pg_roles() {
    sed -n '/^<!-- roles.sql:/,/^```$/p' "$ZK_SOURCE_DIR/docs/ledger.md" | sed '1,2d;$d' >"$PL_W/roles.sql"
    grep -q 'CREATE ROLE zk_alice' "$PL_W/roles.sql" || { pl_bad "no roles block in docs/ledger.md"; pl_done; }
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -U zkslot -d zk -f "$PL_W/roles.sql" \
        >"$PL_W/roles.out" 2>&1 || { pl_bad "the docs' roles block: $(cat "$PL_W/roles.out")"; pl_done; }
    printf 'local all zkslot trust\nlocal all all scram-sha-256\n' >"$PG_DIR/data/pg_hba.conf"
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" reload >/dev/null
    sleep 0.5
}

# pl_pg_pool NAME: the path of machine NAME's pool (in /dev/shm, named
# after the test and this shell, so nothing collides).
pl_pg_pool() { echo "/dev/shm/zkslot-test-$PL_NAME-$1-$$.pool"; }

# pl_pg_machine NAME [NSLOTS [SLOT_SIZE]]: another machine on this host:
# its state directory $PL_W/NAME and a tmpfs pool of NSLOTS slots (default
# 2) of SLOT_SIZE (default 4M), destroyed by the EXIT trap.  Its commands
# run through pl_pg_on.  0, or 1 and a failure recorded.
pl_pg_machine() {
    PL_PG_MACHINES+=("$1")
    mkdir -p "$PL_W/$1"
    pl_pg_on "$1" pl_pool "${2:-2}" "${3:-4M}"
}

# pl_pg_on NAME COMMAND [ARGS]: COMMAND (a program or a shell function:
# pl_start_synthd, pl_pool_clean, ...) run as machine NAME: its pool and
# state directory, the server's ledger ($ZKSLOT_LEDGER, else the one
# pl_pg_init made), and $PL_W/NAME.conf as its configuration when that file
# exists (else $ZKSLOT_CONFIG).  The machine's name itself is the caller's
# to give (--machine, $ZKSLOT_MACHINE or [zkslot] machine).
pl_pg_on() {
    local m=$1 conf=$ZKSLOT_CONFIG
    shift
    [ ! -f "$PL_W/$m.conf" ] || conf=$PL_W/$m.conf
    ZKSLOT_POOL=$(pl_pg_pool "$m") ZKSLOT_STATE_DIR=$PL_W/$m \
        ZKSLOT_LEDGER=${ZKSLOT_LEDGER:-$PL_PG_LEDGER} ZKSLOT_CONFIG=$conf "$@"
}

# pl_pg_machines_destroy: every pl_pg_machine's pool destroyed (the EXIT
# trap; stopped daemons are continued first, so that they can be killed).
pl_pg_machines_destroy() {
    local m p
    kill -CONT "${PL_SYNTHD_PIDS[@]}" "${PL_GPUD_PIDS[@]}" 2>/dev/null
    for m in "${PL_PG_MACHINES[@]}"; do
        p=$(pl_pg_pool "$m")
        ZKSLOT_POOL=$p "$ZKSLOT" pool destroy --force >/dev/null 2>&1
        rm -f "$p"
    done
    return 0
}

# pl_pg_client USER URL: a client of the farm as a new user has it: USER
# (not root, made by the caller), a configuration holding only the ledger
# URL and the machine name laptop, no pool and a state directory that does
# not exist ($PL_PG_ABSENT).  Its files go in $C (home: $C/home); its
# commands run through `client CMD ARGS`.
pl_pg_client() {
    PL_PG_CU=$1
    C=$(mktemp -d /tmp/zk-client.XXXXXX)
    chmod 0755 "$C" "$PL_W"
    printf '[ledger]\nurl = %s\n[zkslot]\nmachine = laptop\n' "$2" >"$C/zkslot.conf"
    mkdir "$C/home" && chown "$PL_PG_CU" "$C/home"
    PL_PG_ABSENT=/var/lib/zkslot-absent-$$
}
client() {
    (cd "$C/home" && env -i PATH="$PATH" ZKSLOT_CONFIG="$C/zkslot.conf" \
        ZKSLOT_STATE_DIR="$PL_PG_ABSENT" ZKSLOT_POOL="$PL_PG_ABSENT/pool" \
        setpriv --reuid="$PL_PG_CU" --regid="$PL_PG_CU" --clear-groups -- "$@")
}

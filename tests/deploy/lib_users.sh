# lib_users.sh -- real users for the tests of who may do what: a daemon
# user D (the daemons run as D, umask 0007, as UMask= in the units), an
# operator O in D's group, and such others as a test asks for (an outsider
# X in no group, another member of D's group).  Source it after checking
# the binaries the test runs (`: "${ZKSLOT_SYNTHD:?}"`: this file needs
# only ZK_SOURCE_DIR and ZKSLOT); it sets -u.  Then:
#
#   zku_init NAME [COMMAND...]   # skips (77) without root, useradd,
#                                # setpriv or the COMMANDs; sets DU OU
#                                # (zkNAME-d<pid>, zkNAME-o<pid>), W (a
#                                # 0755 temporary directory in /tmp), the
#                                # private pool, state dir (W/state) and
#                                # config (W/zkslot.conf, empty), and the
#                                # EXIT trap (zku_cleanup) that removes it
#                                # all, the users zku_user made and D's
#                                # synthd directories in /dev/shm included
#   zku_user VAR LETTER [GROUP]  # one more user, zkNAME-LETTER<pid>, in
#                                # GROUP (none: in no group but its own);
#                                # its name in VAR (zku_user XU x: X)
#   as USER UMASK CMD...         # CMD as USER with its groups
#   zku_daemon LOG CMD...        # CMD as D in the background; DPID is its
#                                # pid (the subshell execs), also in PIDS
#   zku_apid                     # zkslot-apid as D (ZKSLOT_APID), serving
#                                # the state directory's socket
#                                # (W/state/api.sock), through which the
#                                # operators' CLI reaches the ledger, the
#                                # daemons' alone; APID its pid, its log
#                                # W/apid.log (a failure when it does not
#                                # serve the socket within 10 s)
#   zku_ready [PID...]           # W/synthd.log and W/gpud.log say ready:
#                                # (else a failure, at once when one of
#                                # the PIDs has exited)
#   bad MSG                      # a failure (fail=1); exit $fail at the end
set -u
: "${ZKSLOT:?}" "${ZK_SOURCE_DIR:?}"
slow=1; [ -n "${ZK_SANITIZE:-}" ] && slow=3
fail=0
PIDS=()
ZKU_USERS=()
bad() { echo "FAIL: $*"; fail=1; }

zku_init() {
    local name=$1 c
    shift
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (useradd, setpriv)"; exit 77; }
    for c in useradd userdel groupdel setpriv "$@"; do
        command -v "$c" >/dev/null || { echo "SKIP: no $c"; exit 77; }
    done
    ZKU_NAME=$name
    DU=zk$name-d$$ OU=zk$name-o$$
    W=$(mktemp -d "/tmp/zk-$name.XXXXXX")
    chmod 0755 "$W"
    export ZKSLOT_POOL=/dev/shm/zkslot-$name-$$.pool
    export ZKSLOT_STATE_DIR=$W/state
    export ZKSLOT_CONFIG=$W/zkslot.conf
    : >"$ZKSLOT_CONFIG"
    chmod 0644 "$ZKSLOT_CONFIG"
    trap zku_cleanup EXIT
    useradd --system -U -M -d /nonexistent -s /usr/sbin/nologin "$DU" || { bad "useradd $DU"; exit 1; }
    useradd -M -d /nonexistent -s /usr/sbin/nologin -G "$DU" "$OU" || { bad "useradd $OU"; exit 1; }
}

zku_user() {
    local u=zk$ZKU_NAME-$2$$
    printf -v "$1" %s "$u"
    ZKU_USERS+=("$u")
    useradd -M -d /nonexistent -s /usr/sbin/nologin ${3:+-G "$3"} "$u" || { bad "useradd $u"; exit 1; }
}

zku_cleanup() {
    local p f
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".data "$ZKSLOT_POOL".key-*   # the key stores gpud built beside it
    # a synthd killed above leaves its witness directory ([synthd]
    # witness_dir, /dev/shm): D's, and D's uid is the next test's D's
    find /dev/shm -maxdepth 1 -name 'zkslot-synthd-*' -user "$DU" -exec rm -rf {} + 2>/dev/null
    for p in "${ZKU_USERS[@]}" "$OU" "$DU"; do userdel "$p" >/dev/null 2>&1; done
    groupdel "$DU" >/dev/null 2>&1
    if [ $fail = 0 ]; then rm -rf "$W"; else
        echo "(kept $W)"
        for f in "$W"/*.log; do [ -f "$f" ] && { echo "==> $f (tail)"; tail -n 20 "$f"; }; done
    fi
}

as() {
    local u=$1 m=$2; shift 2
    (umask "$m"; exec setpriv --reuid="$u" --regid="$u" --init-groups -- "$@")
}

zku_daemon() {
    local log=$1; shift
    (umask 0007; exec setpriv --reuid="$DU" --regid="$DU" --init-groups -- "$@") >"$log" 2>&1 &
    DPID=$!; PIDS+=("$DPID")
}

zku_apid() {
    local i
    zku_daemon "$W/apid.log" "${ZKSLOT_APID:?}" --listen 127.0.0.1:0
    APID=$DPID
    for ((i = 0; i < 100 * slow; i++)); do
        grep -q 'local socket unix:' "$W/apid.log" && [ -S "$ZKSLOT_STATE_DIR/api.sock" ] && return 0
        kill -0 "$APID" 2>/dev/null || break
        sleep 0.1
    done
    bad "zkslot-apid did not serve $ZKSLOT_STATE_DIR/api.sock as $DU: $(tail -n 2 "$W/apid.log")"
}

zku_ready() {
    local i p
    for ((i = 0; i < 300 * slow; i++)); do
        grep -q 'ready:' "$W/synthd.log" && grep -q 'ready:' "$W/gpud.log" && return 0
        for p in "$@"; do kill -0 "$p" 2>/dev/null || break 2; done
        sleep 0.1
    done
    bad "the daemons did not start as $DU"
}

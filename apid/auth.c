/*
 * auth.c -- who is asking (apid.h).  Without a token file (loopback only:
 * main.c refuses anything else) every caller is the machine's own and
 * q->who stays NULL.  With one, every route but /healthz needs
 * "Authorization: Bearer SECRET" naming a token (401 otherwise); the
 * handlers ask token_may_submit (403) and apid_owns for cancels.
 *
 * A token's jobs are stored with the principal "api:NAME" (the ledger's
 * jobs.principal, zk_ledger_submit_opts), set here from the token that
 * authenticated the request and never from the client's text: request ids
 * are per principal (two tokens' "abc" are two jobs, an operator's
 * "api:web:abc" is the operator's own id, no token's), and a cancel tells
 * whose job it is by the principal.  Without tokens the principal is the
 * ledger's default, apid's own user (SQLite) or role (PostgreSQL).
 *
 * On the unix socket, and on a loopback address, the kernel says who
 * connects (SO_PEERCRED; the client's /proc/net/tcp entry: admit.c,
 * peer_uid.c):
 * a caller that is neither root nor apid's own user is "uid:N", with or
 * without a token file, as a token is: its jobs are stored under that
 * principal (the one `zkslot submit` records on an SQLite ledger, so an
 * operator's jobs and request ids from before are still its own), and it
 * sees, fetches and cancels only its own jobs (403 for any other:
 * docs/api.md, "Local users").  It may submit to every key, as an
 * operator's `zkslot submit` on the ledger could.  A bearer token sent on
 * the socket (with a token file) is that token instead.  Root and apid's
 * user are the machine's own, as on loopback.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apid.h"

#define APID_PRINCIPAL_PREFIX "api:"   /* + the token's name */
#define APID_USER_PREFIX "uid:"        /* + a unix socket caller's uid: the principal
                                        * `zkslot submit` on an SQLite ledger records */

void apid_auth_peer(struct apid_req *q, const struct apid_peer *p)
{
    q->peer[0] = 0;
    if (!p || !p->local)
        return;   /* another machine's: its token says who */
    uid_t uid = p->uid;
    if (uid != 0 && uid != geteuid()) {   /* -1 (unknown) too: not the machine's own */
        snprintf(q->peer, sizeof q->peer, APID_USER_PREFIX "%u", (unsigned)uid);
        q->peer_uid = uid;
    }
}

int apid_auth(struct apid *a, const char *authorization, struct apid_req *q,
              struct apid_reply *r)
{
    q->who = NULL;
    if (!a->tokens_path || (q->peer[0] && !authorization))
        return 0;   /* no tokens, or a unix socket's user: the kernel said who */
    if (!authorization || strncasecmp(authorization, "Bearer ", 7))
        return apid_error(r, 401, "unauthorized",
                          "this server needs 'Authorization: Bearer TOKEN' (zkslot token add)");
    const char *secret = authorization + 7;
    while (*secret == ' ')
        secret++;
    pthread_rwlock_rdlock(&a->tokens_lock);
    const struct api_token *t = tokens_find(&a->tokens, secret);
    if (t) {
        q->who_buf = *t;
        q->who = &q->who_buf;
    }
    pthread_rwlock_unlock(&a->tokens_lock);
    if (!q->who)
        return apid_error(r, 401, "unauthorized", "the bearer token is not one of this "
                          "server's (revoked, or never added)");
    return 0;
}

const char *apid_principal(const struct apid_req *q, char *buf, size_t n)
{
    if (!q->who && !q->peer[0])
        return NULL;
    if (q->who)
        snprintf(buf, n, APID_PRINCIPAL_PREFIX "%s", q->who->name);
    else
        snprintf(buf, n, "%s", q->peer);
    return buf;
}

int apid_owns(const struct apid_req *q, const struct zk_ledger_job *j)
{
    if ((!q->who && !q->peer[0]) || (q->who && q->who->cancel_any))
        return 1;
    char p[ZK_LEDGER_PRINCIPAL_MAX + 1];
    return !strcmp(j->principal, apid_principal(q, p, sizeof p));
}

int apid_may_see(const struct apid_req *q, const struct zk_ledger_job *j,
                 struct apid_reply *r)
{
    if (q->who || !q->peer[0] || apid_owns(q, j))
        return 1;
    apid_error(r, 403, "forbidden", "job %lld is not yours: %s sees, fetches and cancels "
               "only its own jobs", (long long)j->id, q->peer);
    return 0;
}

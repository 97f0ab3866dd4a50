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
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "apid.h"

#define APID_PRINCIPAL_PREFIX "api:"   /* + the token's name */

int apid_auth(struct apid *a, const char *authorization, struct apid_req *q,
              struct apid_reply *r)
{
    q->who = NULL;
    if (!a->tokens_path)
        return 0;
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
    if (!q->who)
        return NULL;
    snprintf(buf, n, APID_PRINCIPAL_PREFIX "%s", q->who->name);
    return buf;
}

int apid_owns(const struct apid_req *q, const struct zk_ledger_job *j)
{
    if (!q->who || q->who->cancel_any)
        return 1;
    char p[ZK_LEDGER_PRINCIPAL_MAX + 1];
    return !strcmp(j->principal, apid_principal(q, p, sizeof p));
}

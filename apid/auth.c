/*
 * auth.c -- who is asking (apid.h).  Without a token file (loopback only:
 * main.c refuses anything else) every caller is the machine's own and
 * q->who stays NULL.  With one, every route but /healthz needs
 * "Authorization: Bearer SECRET" naming a token (401 otherwise); the
 * handlers ask token_may_submit (403) and apid_owns for cancels.
 *
 * A job's submitter is recorded in its request id, the one field the
 * ledger keeps from the submitter: a token's jobs are stored under
 * "api:NAME:ID" (ID the client's own request id, or "~" and 16 random hex
 * digits when it gave none), so request ids are per token (two tokens'
 * "abc" are two jobs, and one token cannot learn another's job by its id)
 * and a cancel can tell whose job it is.  Replies show the client's ID.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "apid.h"

#define APID_RID_PREFIX "api:"

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

int apid_request_id(const struct apid_req *q, const char *given, char *buf, size_t n)
{
    if (!q->who) {
        snprintf(buf, n, "%s", given ? given : "");
        return 0;
    }
    char auto_id[20];
    if (!given) {
        unsigned char rnd[8];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            return -1;
        auto_id[0] = '~';
        for (int i = 0; i < 8; i++)
            snprintf(auto_id + 1 + 2 * i, 3, "%02x", rnd[i]);
        given = auto_id;
    }
    int w = snprintf(buf, n, APID_RID_PREFIX "%s:%s", q->who->name, given);
    return w < 0 || (size_t)w >= n || (size_t)w > ZK_LEDGER_REQUEST_ID_MAX ? -1 : 0;
}

int apid_owns(const struct apid_req *q, const char *stored)
{
    if (!q->who || q->who->cancel_any)
        return 1;
    size_t pl = strlen(APID_RID_PREFIX), nl = strlen(q->who->name);
    return !strncmp(stored, APID_RID_PREFIX, pl) && !strncmp(stored + pl, q->who->name, nl) &&
           stored[pl + nl] == ':';
}

const char *apid_request_id_shown(const char *stored)
{
    if (strncmp(stored, APID_RID_PREFIX, strlen(APID_RID_PREFIX)))
        return stored;
    const char *c = strchr(stored + strlen(APID_RID_PREFIX), ':');
    return c ? c + 1 : stored;
}

/*
 * msg.c -- libzkslot's version, code names and the one-line message every
 * call leaves in its caller's buffer (zkslot.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "zk/error.h"
#include "zkslot_internal.h"

/* zkslot.h promises the numbers of zk/error.h */
_Static_assert(ZKSLOT_EBADPARAMS == ZK_EBADPARAMS, "code");
_Static_assert(ZKSLOT_EFORMAT == ZK_EFORMAT, "code");
_Static_assert(ZKSLOT_ELENGTH == ZK_ELENGTH, "code");
_Static_assert(ZKSLOT_ETIMEOUT == ZK_ETIMEOUT, "code");
_Static_assert(ZKSLOT_ESTATE == ZK_ESTATE, "code");
_Static_assert(ZKSLOT_ERANGE == ZK_ERANGE, "code");
_Static_assert(ZKSLOT_ELEDGER == ZK_ELEDGER, "code");
_Static_assert(ZKSLOT_EREJECTED == ZK_EREJECTED, "code");
_Static_assert(ZKSLOT_EUNTRUSTED == ZK_EUNTRUSTED, "code");
_Static_assert(ZKSLOT_ESTATEMENT == ZK_ESTATEMENT, "code");
_Static_assert((int)ZKSLOT_JOB_CANCELED == (int)ZK_JOB_CANCELED &&
               (int)ZKSLOT_JOB_DONE == (int)ZK_JOB_DONE, "state");

ZKSLOT_EXPORT const char *zkslot_version(void)
{
    return ZK_VERSION;
}

ZKSLOT_EXPORT const char *zkslot_strerror(int code)
{
    if (code == ZKSLOT_EJOBFAILED)
        return "the job failed or was canceled";
    return zk_strerror(code);
}

ZKSLOT_EXPORT const char *zkslot_job_state_name(int state)
{
    return zk_job_state_name(state);
}

int zkslot_say(char *msg, size_t n, int code, const char *fmt, ...)
{
    if (msg && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, n, fmt, ap);
        va_end(ap);
    }
    return code;
}

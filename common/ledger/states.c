/*
 * states.c -- the names of partition and job states, of key formats and
 * of priority classes (zk/priority.h), as stored in the
 * ledger's database and printed by `zkslot status` (zk/ledger.h).
 */
#include <string.h>

#include "zk/ledger.h"
#include "zk/priority.h"

_Static_assert(ZK_PART_CANCELED + 1 == ZK_PART_STATE_COUNT, "one count per partition state");
_Static_assert(ZK_JOB_CANCELED + 1 == ZK_JOB_STATE_COUNT, "one count per job state");

static const char *const part_names[ZK_PART_STATE_COUNT] = {
    "queued", "synthesizing", "ready", "proving", "done", "failed", "canceled"
};
static const char *const format_names[ZK_KEY_FORMAT_COUNT] = { "zkey", "bellperson" };
static const char *const job_names[ZK_JOB_STATE_COUNT] = { "queued", "running", "done",
                                                           "failed", "canceled" };

const char *zk_part_state_name(int state)
{
    return state >= 0 && state < ZK_PART_STATE_COUNT ? part_names[state] : "?";
}

const char *zk_job_state_name(int state)
{
    return state >= 0 && state < ZK_JOB_STATE_COUNT ? job_names[state] : "?";
}

int zk_part_state_parse(const char *s)
{
    for (int i = 0; i < ZK_PART_STATE_COUNT; i++)
        if (s && !strcmp(s, part_names[i]))
            return i;
    return -1;
}

int zk_job_state_parse(const char *s)
{
    for (int i = 0; i < ZK_JOB_STATE_COUNT; i++)
        if (s && !strcmp(s, job_names[i]))
            return i;
    return -1;
}

static const char *const prio_names[ZK_PRIO_COUNT] = { "low", "normal", "high", "critical" };

const char *zk_priority_name(int prio)
{
    return prio >= 0 && prio < ZK_PRIO_COUNT ? prio_names[prio] : "?";
}

int zk_priority_parse(const char *s)
{
    for (int i = 0; i < ZK_PRIO_COUNT; i++)
        if (s && !strcmp(s, prio_names[i]))
            return i;
    return -1;
}

const char *zk_key_format_name(int format)
{
    return format >= 0 && format < ZK_KEY_FORMAT_COUNT ? format_names[format] : "?";
}

int zk_key_format_parse(const char *s)
{
    for (int i = 0; s && i < ZK_KEY_FORMAT_COUNT; i++) {
        if (!strcmp(s, format_names[i]))
            return i;
    }
    return -1;
}

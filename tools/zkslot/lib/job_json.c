/*
 * job_json.c -- a job and a partition as JSON (contract in job_json.h).
 */
#include <jansson.h>

#include "job_json.h"

json_t *job_json(const struct zk_ledger_job *j)
{
    json_t *counts = json_object();
    for (int s = 0; s < ZK_PART_STATE_COUNT; s++)
        json_object_set_new(counts, zk_part_state_name(s), json_integer(j->count[s]));
    json_t *o = json_pack("{s:I, s:s, s:I, s:s, s:I, s:o, s:s, s:I, s:I, s:I, s:s}", "id",
                     (json_int_t)j->id, "key", j->key_name, "key_id", (json_int_t)j->key_id,
                     "state", zk_job_state_name(j->state), "nparts", (json_int_t)j->nparts,
                     "counts", counts, "out_dir", j->out_dir, "submitted_ns",
                     (json_int_t)j->submitted_ns, "started_ns", (json_int_t)j->started_ns,
                     "finished_ns", (json_int_t)j->finished_ns, "error", j->error);
    if (o && (json_object_set_new(o, "priority", json_string(zk_priority_name(j->priority))) ||
              json_object_set_new(o, "deadline_ns", j->deadline_ns
                                                        ? json_integer(j->deadline_ns)
                                                        : json_null()) ||
              json_object_set_new(o, "request_id", j->request_id[0]
                                                       ? json_string(j->request_id)
                                                       : json_null()))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *secs(double s)
{
    return s < 0 ? json_null() : json_real(s);
}

json_t *part_json(const struct zk_ledger_part *p)
{
    json_t *owner = p->owner.pid
                        ? json_pack("{s:i, s:I, s:s}", "pid", (int)p->owner.pid, "start",
                                    (json_int_t)p->owner.start, "role", p->owner_role)
                        : json_null();
    json_t *o = json_pack("{s:I, s:i, s:s, s:s, s:i, s:i, s:i, s:o, s:i, s:o, s:o, s:o, s:o,"
                     " s:I, s:I, s:I, s:s}",
                     "id", (json_int_t)p->id, "index", (int)p->index, "state",
                     zk_part_state_name(p->state), "witness", p->witness, "attempts",
                     (int)p->attempts, "errors", (int)p->errors, "proofs", (int)p->proofs,
                     "owner", owner, "slot", (int)p->slot, "synth_s", secs(p->synth_s), "wait_s",
                     secs(p->wait_s), "start_s", secs(p->start_s), "finalize_s",
                     secs(p->finalize_s), "queued_ns", (json_int_t)p->queued_ns, "ready_ns",
                     (json_int_t)p->ready_ns, "done_ns", (json_int_t)p->done_ns, "error",
                     p->error);
    if (o && (json_object_set_new(o, "input", json_boolean(p->has_input)) ||
              json_object_set_new(o, "witness_s", secs(p->witness_s)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}


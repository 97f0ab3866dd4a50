/*
 * job_json.h -- a job and its partitions as JSON, one shape for `zkslot
 * status --json` and zkslot-apid's GET /v1/jobs/{id}: the job's id, key,
 * state, class, deadline, request id, partition counts and times (ns,
 * CLOCK_REALTIME; 0 = not yet); each partition's state, attempts, owner,
 * slot and stage times in seconds (null = not run).
 */
#ifndef ZK_TOOLS_JOB_JSON_H
#define ZK_TOOLS_JOB_JSON_H

#include <jansson.h>

#include "zk/ledger.h"

/* A new object, or NULL when out of memory. */
json_t *job_json(const struct zk_ledger_job *j);
json_t *part_json(const struct zk_ledger_part *p);

#endif /* ZK_TOOLS_JOB_JSON_H */

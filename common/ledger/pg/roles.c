/*
 * roles.c -- who may do what in a ledger on PostgreSQL: four group roles,
 * their grants and row-level security, set up by the schema itself (every
 * migration ends with lpg_roles_apply, in its transaction), so that the
 * grants always match the tables of this zkslot.
 *
 *   zkslot_admin      keys (add, change: a key's generator is run by every
 *                     synthd), and everything else
 *   zkslot_daemon     claims, partition states, results, jobs' states,
 *                     machines and their leases, the daemons' table; every
 *                     column (inputs included); keys read-only
 *   zkslot_submitter  read keys, jobs (their own request ids only: two
 *                     SECURITY DEFINER functions give them) and partitions
 *                     (not inputs); create
 *                     jobs for existing keys, queued, as themselves
 *                     (jobs.submitter = session_user, never chosen), with
 *                     no file named on the proving machines (no out_dir;
 *                     each partition's witness or input in the row); cancel
 *                     their own unfinished jobs; nothing else
 *   zkslot_reader     read keys, jobs, partitions (not inputs), daemons,
 *                     machines
 *
 * A login role gets its rights by membership (GRANT zkslot_submitter TO
 * alice).  The table owner (the role that migrated) is not subject to row
 * security and may do everything, like an administrator.  Submitters'
 * limits are row-level security on jobs and partitions (policies that
 * check the rows a statement inserts or changes) plus column privileges
 * (the columns a submitter may insert or update); the other roles'
 * policies let them see and change every row their grants allow.
 *
 * Inputs (partitions.input) are read by daemons and administrators only;
 * partitions.has_input tells the others whether there is one.  Column
 * lists are read from the catalog when applied, so a column a later
 * migration adds is covered (readable by all; insertable by submitters on
 * jobs and partitions, except ids, the submitter, results and statements).
 *
 * Roles are the cluster's: a migrating role that may create roles
 * (superuser or CREATEROLE) makes the four missing ones (NOLOGIN);
 * otherwise a missing role fails the migration with one line naming it
 * (make them first: docs/ledger.md, "Roles and grants").
 */
#include "ledger/pg/pg_internal.h"

/* 3 -> 4: who submitted each job; whether a partition has an input, for
 * the roles that may not read the input itself */
const char lpg_roles_migration[] =
    "ALTER TABLE jobs ADD COLUMN submitter TEXT NOT NULL DEFAULT session_user;"
    "ALTER TABLE partitions ADD COLUMN has_input BOOLEAN GENERATED ALWAYS AS"
    " (input IS NOT NULL) STORED;";

/*
 * 8 -> 9 (issue 46): a submitter names no file on the proving machines and
 * does not choose its place in the queue.
 *   zkslot_names_files(role)  whether a role may name an output directory
 *                    (a job's out_dir, written there by every gpud): a
 *                    superuser, the tables' owner, zkslot_admin and
 *                    zkslot_daemon members; the daemons ask it of each
 *                    job's submitter (zk_ledger_part_vet)
 *   zkslot_job_insert  a new job's submitted_ns is the database's clock,
 *                    whatever was sent (the aging of docs/scheduling.md
 *                    counts from it), and its out_dir is '' unless the
 *                    session's role may name one (one line saying so)
 * A partition's witness names a file only for a role that may (RLS below:
 * a submitter's partition carries its input or witness, partitions.input).
 */
const char lpg_files_migration[] =
    "CREATE OR REPLACE FUNCTION zkslot_names_files(who TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $f$"
    " SELECT EXISTS (SELECT FROM pg_roles r WHERE r.rolname = who AND (r.rolsuper"
    "  OR r.oid = (SELECT relowner FROM pg_class WHERE oid = 'jobs'::regclass)"
    "  OR pg_has_role(r.oid, 'zkslot_admin', 'MEMBER')"
    "  OR pg_has_role(r.oid, 'zkslot_daemon', 'MEMBER'))) $f$;"
    "CREATE OR REPLACE FUNCTION zkslot_job_insert() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN"
    " NEW.submitted_ns := (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint;"
    " IF NEW.out_dir <> '' AND NOT zkslot_names_files(session_user) THEN"
    "  RAISE EXCEPTION 'jobs.out_dir: role % may not name a directory on the proving"
    " machines (each writes under its own state directory; fetch the results with zkslot"
    " result JOB --out DIR)', session_user USING ERRCODE = 'insufficient_privilege';"
    " END IF; RETURN NEW; END $f$;"
    "DROP TRIGGER IF EXISTS zkslot_job_insert ON jobs;"
    "CREATE TRIGGER zkslot_job_insert BEFORE INSERT ON jobs FOR EACH ROW"
    " EXECUTE FUNCTION zkslot_job_insert();";

/*
 * 10 -> 11 (issue 46): a deadline's admission is the server's.  A client
 * checked it before (submit_admit), so a submitter that INSERTed its job
 * itself queued any deadline, and as a submitter it counted only its own
 * rows ahead (row-level security).  Now:
 *   jobs.deadline_forced  the submitter asked for its deadline to be queued
 *                    past the estimate (--force, "force": true)
 *   zkslot_admit(prio, nparts, deadline)  NULL when a job of nparts
 *                    partitions of class prio can finish by deadline behind
 *                    the live partitions of its class or above, at the
 *                    median stage times of the last 64 done partitions
 *                    over the registered provers (as submit_admit), else
 *                    why not; SECURITY DEFINER: it counts every job
 *   zkslot_job_insert  refuses a deadline that is neither forced nor
 *                    admitted, in one line (check_violation)
 */
const char lpg_admit_migration[] =
    "ALTER TABLE jobs ADD COLUMN deadline_forced BOOLEAN NOT NULL DEFAULT false;"
    "CREATE OR REPLACE FUNCTION zkslot_admit(prio BIGINT, nparts BIGINT, deadline BIGINT)"
    " RETURNS TEXT LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $f$"
    " DECLARE ahead BIGINT; provers BIGINT; n BIGINT; sy FLOAT8; st FLOAT8; fi FLOAT8;"
    " need FLOAT8; left_s FLOAT8; BEGIN"
    " SELECT count(*) INTO ahead FROM partitions p JOIN jobs j ON j.id = p.job_id"
    "  WHERE p.state IN ('queued', 'synthesizing', 'ready', 'proving')"
    "  AND j.state IN ('queued', 'running') AND j.priority >= prio;"
    " SELECT count(*) INTO provers FROM daemons WHERE role = 'gpud';"
    " SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY synth_s),"
    "  percentile_cont(0.5) WITHIN GROUP (ORDER BY start_s),"
    "  percentile_cont(0.5) WITHIN GROUP (ORDER BY finalize_s) INTO n, sy, st, fi"
    "  FROM (SELECT synth_s, start_s, finalize_s FROM partitions WHERE state = 'done'"
    "  AND start_s >= 0 ORDER BY id DESC LIMIT 64) AS d;"
    " IF n = 0 OR provers = 0 THEN RETURN NULL; END IF;"
    " need := sy + (ahead + nparts) * st / provers + fi;"
    " left_s := (deadline - extract(epoch FROM clock_timestamp()) * 1e9) / 1e9;"
    " IF need <= left_s THEN RETURN NULL; END IF;"
    " RETURN format('the deadline cannot be met: %s s left, about %s s needed (%s partition(s)"
    " of its class or above ahead, %s of its own, %s s a partition over %s prover(s), the"
    " median of the last %s); force it to queue it anyway (zkslot submit --force)',"
    "  round(left_s::numeric, 1), round(need::numeric, 1), ahead, nparts, round(st::numeric, 3),"
    "  provers, n); END $f$;"
    "CREATE OR REPLACE FUNCTION zkslot_job_insert() RETURNS trigger LANGUAGE plpgsql AS $f$"
    " DECLARE why TEXT; BEGIN"
    " NEW.submitted_ns := (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint;"
    " IF NEW.out_dir <> '' AND NOT zkslot_names_files(session_user) THEN"
    "  RAISE EXCEPTION 'jobs.out_dir: role % may not name a directory on the proving"
    " machines (each writes under its own state directory; fetch the results with zkslot"
    " result JOB --out DIR)', session_user USING ERRCODE = 'insufficient_privilege';"
    " END IF;"
    " IF NEW.deadline_ns > 0 AND NOT NEW.deadline_forced THEN"
    "  why := zkslot_admit(NEW.priority, NEW.nparts, NEW.deadline_ns);"
    "  IF why IS NOT NULL THEN"
    "   RAISE EXCEPTION 'jobs.deadline_ns: %', why USING ERRCODE = 'check_violation';"
    "  END IF;"
    " END IF; RETURN NEW; END $f$;";

/* the live states a submitter may cancel from */
#define LPG_LIVE "('queued', 'synthesizing', 'ready', 'proving')"

/* One DO block: the roles, then each table's grants and policies from
 * scratch (REVOKE ALL first: applying it again changes nothing). */
static const char roles_sql[] =
    "DO $zk$ DECLARE r TEXT; cols TEXT; may BOOLEAN; BEGIN"
    " SELECT rolsuper OR rolcreaterole INTO may FROM pg_roles WHERE rolname = current_user;"
    " FOREACH r IN ARRAY ARRAY['zkslot_admin', 'zkslot_daemon', 'zkslot_submitter',"
    "  'zkslot_reader'] LOOP"
    "  CONTINUE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = r);"
    "  IF NOT may THEN RAISE EXCEPTION 'role % does not exist and role % may not create it:"
    " make the farm''s roles first (docs/ledger.md, Roles and grants)', r, current_user;"
    "  END IF;"
    "  BEGIN EXECUTE format('CREATE ROLE %I NOLOGIN', r);"
    "  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;"   /* made meanwhile */
    " END LOOP;"
    " REVOKE ALL ON keys, jobs, partitions, daemons, machines, zkslot_schema FROM PUBLIC,"
    "  zkslot_admin, zkslot_daemon, zkslot_submitter, zkslot_reader;"
    " GRANT ALL ON keys, jobs, partitions, daemons, machines TO zkslot_admin;"
    " GRANT SELECT ON keys, jobs, daemons, machines, zkslot_schema TO zkslot_admin,"
    "  zkslot_daemon;"
    " GRANT SELECT ON keys, daemons, machines, zkslot_schema TO zkslot_submitter,"
    "  zkslot_reader;"
    /* every job column but the request's, which are each submitter's own
     * (zkslot_request_id, zkslot_own_request below) */
    " SELECT string_agg(quote_ident(attname), ', ') INTO cols FROM pg_attribute"
    "  WHERE attrelid = 'jobs'::regclass AND attnum > 0 AND NOT attisdropped"
    "  AND attname NOT IN ('request_id', 'request_digest');"
    " EXECUTE format('GRANT SELECT (%s) ON jobs TO zkslot_submitter, zkslot_reader', cols);"
    " GRANT SELECT, UPDATE ON jobs, partitions TO zkslot_daemon;"
    " GRANT SELECT, INSERT, UPDATE ON daemons, machines TO zkslot_daemon;"
    /* every partition column but the input, for reading */
    " SELECT string_agg(quote_ident(attname), ', ') INTO cols FROM pg_attribute"
    "  WHERE attrelid = 'partitions'::regclass AND attnum > 0 AND NOT attisdropped"
    "  AND attname <> 'input';"
    " EXECUTE format('GRANT SELECT (%s) ON partitions TO zkslot_submitter, zkslot_reader', cols);"
    /* what a submit writes: every column but the ids, the submitter and generated ones */
    " SELECT string_agg(quote_ident(attname), ', ') INTO cols FROM pg_attribute"
    "  WHERE attrelid = 'jobs'::regclass AND attnum > 0 AND NOT attisdropped"
    "  AND attname NOT IN ('id', 'submitter') AND attgenerated = '';"
    " EXECUTE format('GRANT INSERT (%s) ON jobs TO zkslot_submitter', cols);"
    " SELECT string_agg(quote_ident(attname), ', ') INTO cols FROM pg_attribute"
    "  WHERE attrelid = 'partitions'::regclass AND attnum > 0 AND NOT attisdropped"
    "  AND attname NOT IN ('id', 'proof_json', 'public_json', 'statement')"
    "  AND attgenerated = '';"
    " EXECUTE format('GRANT INSERT (%s) ON partitions TO zkslot_submitter', cols);"
    /* what a cancel writes */
    " GRANT UPDATE (state, error, started_ns, finished_ns) ON jobs TO zkslot_submitter;"
    " GRANT UPDATE (state, error, done_ns, owner_pid, owner_start, owner_role) ON partitions"
    "  TO zkslot_submitter;"
    " ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;"
    " ALTER TABLE partitions ENABLE ROW LEVEL SECURITY;"
    " DROP POLICY IF EXISTS zkslot_all ON jobs; DROP POLICY IF EXISTS zkslot_all ON partitions;"
    " DROP POLICY IF EXISTS zkslot_read ON jobs; DROP POLICY IF EXISTS zkslot_read ON partitions;"
    " DROP POLICY IF EXISTS zkslot_submit ON jobs;"
    " DROP POLICY IF EXISTS zkslot_submit ON partitions;"
    " DROP POLICY IF EXISTS zkslot_cancel ON jobs;"
    " DROP POLICY IF EXISTS zkslot_cancel ON partitions;"
    " CREATE POLICY zkslot_all ON jobs TO zkslot_admin, zkslot_daemon USING (true);"
    " CREATE POLICY zkslot_all ON partitions TO zkslot_admin, zkslot_daemon USING (true);"
    " CREATE POLICY zkslot_read ON jobs FOR SELECT TO zkslot_submitter, zkslot_reader"
    "  USING (true);"
    " CREATE POLICY zkslot_read ON partitions FOR SELECT TO zkslot_submitter, zkslot_reader"
    "  USING (true);"
    /* a new job: queued, untouched, the submitter's own */
    " CREATE POLICY zkslot_submit ON jobs FOR INSERT TO zkslot_submitter WITH CHECK"
    "  (submitter = session_user AND state = 'queued' AND started_ns = 0 AND finished_ns = 0"
    "  AND error = '' AND out_dir = '');"
    /* its partitions: queued, never claimed, no result, its witness or input
     * in the row (no file named), in a queued job of the submitter */
    " CREATE POLICY zkslot_submit ON partitions FOR INSERT TO zkslot_submitter WITH CHECK"
    "  (state = 'queued' AND input IS NOT NULL AND attempts = 0 AND errors = 0 AND proofs = 0"
    "  AND owner_pid = 0"
    "  AND machine = '' AND error = '' AND proof_json IS NULL AND public_json IS NULL"
    "  AND EXISTS (SELECT FROM jobs j WHERE j.id = job_id AND j.submitter = session_user"
    "  AND j.state = 'queued'));"
    /* a cancel: the submitter's own live job and partitions, to canceled */
    " CREATE POLICY zkslot_cancel ON jobs FOR UPDATE TO zkslot_submitter"
    "  USING (submitter = session_user AND state IN ('queued', 'running'))"
    "  WITH CHECK (state = 'canceled');"
    " CREATE POLICY zkslot_cancel ON partitions FOR UPDATE TO zkslot_submitter"
    "  USING (state IN " LPG_LIVE " AND EXISTS (SELECT FROM jobs j WHERE j.id = job_id"
    "  AND j.submitter = session_user))"
    "  WITH CHECK (state = 'canceled');"
    " END $zk$;"
    /* a job's request id, for whoever may see it: its own submitter, the
     * administrators, the daemons and the owner; NULL for the others */
    "CREATE OR REPLACE FUNCTION zkslot_request_id(job BIGINT) RETURNS TEXT"
    " LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS"
    " $f$ SELECT request_id FROM jobs WHERE id = job AND (submitter = session_user"
    "  OR pg_has_role(session_user, 'zkslot_admin', 'USAGE')"
    "  OR pg_has_role(session_user, 'zkslot_daemon', 'USAGE')"
    "  OR pg_has_role(session_user, (SELECT relowner FROM pg_class"
    "  WHERE oid = 'jobs'::regclass), 'USAGE')) $f$;"
    /* the session's own job of (principal, request id), for a submit */
    "CREATE OR REPLACE FUNCTION zkslot_own_request(who TEXT, rid TEXT)"
    " RETURNS TABLE (id BIGINT, key_id BIGINT, request_digest TEXT)"
    " LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS"
    " $f$ SELECT j.id, j.key_id, j.request_digest FROM jobs j WHERE"
    "  j.submitter = session_user AND j.principal = who AND j.request_id = rid $f$;"
    "REVOKE ALL ON FUNCTION zkslot_request_id(BIGINT), zkslot_own_request(TEXT, TEXT)"
    " FROM PUBLIC;"
    "GRANT EXECUTE ON FUNCTION zkslot_request_id(BIGINT), zkslot_own_request(TEXT, TEXT) TO"
    " zkslot_admin, zkslot_daemon, zkslot_submitter, zkslot_reader;";

int lpg_roles_apply(zk_ledger *l, struct zk_diag *diag)
{
    int r = lpg_cmd(l, roles_sql, NULL, diag);
    return r < 0 ? r : 0;
}

/*
 * test_libzkslot.c -- libzkslot's two faces against a real ledger and
 * pool, without daemons (zkslot.h, docs/library.md).
 *
 * Client: a ledger that is not there, an unknown key, a witness of the
 * wrong curve (nothing queued), inputs for a key without a generator, a submit and its retry by request id,
 * status, result of an unfinished job, cancel, wait on a canceled job.
 * Producer: an unknown key; a partition taken (slot FILLING, partition
 * synthesizing), a corrupted witness refused at publish (ZKSLOT_ERANGE:
 * slot FREE, partition queued again, nothing READY for gpud), a good one
 * published (slot READY, partition ready), abandon, backpressure (no free
 * slot: ZKSLOT_ETIMEOUT), and -ENOENT once every partition is taken.
 * The setup uses the CLI ($ZKSLOT: key add, pool create).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/pool.h"
#include "zk/wtns.h"
#include "zkslot.h"
#include "zktest.h"

static char dir[256], pool_path[256], src[4096];

/* The pool's slots in state st (an observer's count). */
static int slots_in(int st)
{
    zk_pool *h = calloc(1, zk_pool_sizeof());
    struct zk_pool_attach_opts ao = { "test", ZK_POOL_OBSERVER, 0, NULL };
    struct zk_pool_info pi;
    int n = -1;
    if (h && zk_pool_attach(h, pool_path, &ao) == 0) {
        zk_pool_info(h, &pi);
        n = (int)pi.count[st];
        zk_pool_detach(h);
    }
    free(h);
    return n;
}

static int sh(const char *fmt, const char *arg)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, fmt, getenv("ZKSLOT"), arg);
    return system(cmd);
}

static void client(zkslot *z)
{
    char msg[512], wtns[4200], bad[4200];
    int64_t job = 0, again = 0;
    int existing = -1, r;
    struct zkslot_job_status st;
    snprintf(wtns, sizeof wtns, "%s/examples/groth16/bn128/witness.wtns", src);
    snprintf(bad, sizeof bad, "%s/examples/groth16/bls12381/witness.wtns", src);
    const char *good[1] = { wtns }, *wrong[2] = { wtns, bad };

    r = zkslot_submit(z, "nope", good, 1, 0, NULL, &job, NULL, msg, sizeof msg);
    ZT_CHECK(r == -ENOENT && strstr(msg, "no key named 'nope'"), "%d %s", r, msg);
    r = zkslot_submit(z, "ex", wrong, 2, 0, NULL, &job, NULL, msg, sizeof msg);
    ZT_CHECK(r < 0 && strstr(msg, "bls12381/witness.wtns") && strstr(msg, "nothing submitted"),
             "%d %s", r, msg);
    ZT_CHECK(zkslot_status(z, 1, &st, msg, sizeof msg) == -ENOENT && strstr(msg, "no job 1"),
             "a refused submit queued a job: %s", msg);

    char input[4200];
    snprintf(input, sizeof input, "%s/examples/groth16/bn128/input.json", src);
    const char *inputs[1] = { input };
    r = zkslot_submit(z, "ex", inputs, 1, 1, NULL, &job, NULL, msg, sizeof msg);
    ZT_CHECK(r == -ENOEXEC && strstr(msg, "no witness generator"), "%d %s", r, msg);

    struct zkslot_submit_opts o = { 2, 0, "req-1", NULL, 0 };
    r = zkslot_submit(z, "ex", good, 1, 0, &o, &job, &existing, msg, sizeof msg);
    ZT_REQUIRE(r == 0 && job > 0 && existing == 0, , "%d %s", r, msg);
    r = zkslot_submit(z, "ex", good, 1, 0, &o, &again, &existing, msg, sizeof msg);
    ZT_CHECK(r == 0 && again == job && existing == 1, "retry: %d job %lld %s", r,
             (long long)again, msg);
    r = zkslot_status(z, job, &st, msg, sizeof msg);
    ZT_CHECK(r == 0 && st.state == ZKSLOT_JOB_QUEUED && st.nparts == 1 && st.queued == 1 &&
             st.priority == 2 && !strcmp(st.key, "ex") && st.out_dir[0] == '/', "%d %s", r, msg);
    char *proof = NULL, *pub = NULL;
    r = zkslot_result(z, job, 0, &proof, &pub, msg, sizeof msg);
    ZT_CHECK(r == ZKSLOT_ESTATE && strstr(msg, "queued") && !proof, "%d %s", r, msg);
    ZT_CHECK(zkslot_result(z, job, 7, &proof, &pub, msg, sizeof msg) == -ENOENT, "%s", msg);
    r = zkslot_wait(z, job, 0, &st, msg, sizeof msg);
    ZT_CHECK(r == ZKSLOT_ETIMEOUT && strstr(msg, "queued"), "%d %s", r, msg);
    ZT_CHECK(zkslot_cancel(z, job, msg, sizeof msg) == 0, "%s", msg);
    r = zkslot_wait(z, job, -1, &st, msg, sizeof msg);
    ZT_CHECK(r == ZKSLOT_EJOBFAILED && st.state == ZKSLOT_JOB_CANCELED && strstr(msg, "canceled"),
             "%d %s", r, msg);
    ZT_CHECK(zkslot_cancel(z, job, msg, sizeof msg) == ZKSLOT_ESTATE, "%s", msg);

    /* an output directory: made, canonical; one whose partition directory
     * is not a directory refused (gpud would follow nothing there) */
    char out[600], want[600], file[700];
    snprintf(out, sizeof out, "%s/out/../out", dir);
    snprintf(want, sizeof want, "%s/out", dir);
    struct zkslot_submit_opts oo = { -1, 0, NULL, out, 0 };
    r = zkslot_submit(z, "ex", good, 1, 0, &oo, &job, NULL, msg, sizeof msg);
    ZT_CHECK(r == 0 && zkslot_status(z, job, &st, msg, sizeof msg) == 0 &&
             !strcmp(st.out_dir, want), "%d %s", r, st.out_dir);
    snprintf(out, sizeof out, "%s/out-bad", dir);
    snprintf(file, sizeof file, "%s/0", out);
    ZT_REQUIRE(mkdir(out, 0700) == 0 && fclose(fopen(file, "w")) == 0, , "%s", file);
    oo.out_dir = out;
    r = zkslot_submit(z, "ex", good, 1, 0, &oo, &again, NULL, msg, sizeof msg);
    ZT_CHECK(r == -EACCES && strstr(msg, file) && strstr(msg, "nothing submitted"), "%d %s", r,
             msg);
    ZT_CHECK(zkslot_status(z, job + 1, &st, msg, sizeof msg) == -ENOENT,
             "a refused output directory queued a job");
}

static void producer(zkslot *z)
{
    char msg[512], wtns[4200];
    int64_t job = 0, other = 0;
    struct zkslot_job_status st;
    struct zkslot_part *part = NULL, *p2 = NULL, *p3 = NULL;
    zkslot_producer *p = NULL;
    int r = zkslot_producer_open(z, NULL, &p, msg, sizeof msg);
    ZT_REQUIRE(r == 0, , "%d %s", r, msg);
    ZT_CHECK(zkslot_job_create(p, "nope", 2, NULL, &job, msg, sizeof msg) == -ENOENT, "%s", msg);
    /* an older job of the same key, ahead in the ledger's order: the
     * takes below are for `job` and must not touch it */
    r = zkslot_job_create(p, "ex", 2, NULL, &other, msg, sizeof msg);
    ZT_REQUIRE(r == 0 && other > 0, , "%d %s", r, msg);
    r = zkslot_job_create(p, "ex", 3, NULL, &job, msg, sizeof msg);
    ZT_REQUIRE(r == 0 && job > 0, , "%d %s", r, msg);

    /* a witness that is not one: refused, the slot and partition back */
    r = zkslot_part_take(p, job, 1000, &part, msg, sizeof msg);
    ZT_REQUIRE(r == 0 && part->index == 0 && part->curve == ZKSLOT_CURVE_BN254, , "%d %s", r, msg);
    ZT_CHECK(slots_in(ZK_SLOT_FILLING) == 1);
    ZT_CHECK(zkslot_status(z, job, &st, msg, sizeof msg) == 0 && st.synthesizing == 1 &&
             st.queued == 2);
    memset(part->witness, 0xff, part->n_vars * 32);
    r = zkslot_part_publish(p, part, 0, msg, sizeof msg);
    ZT_CHECK(r == ZKSLOT_ERANGE && strstr(msg, "witness value 0"), "%d %s", r, msg);
    ZT_CHECK(slots_in(ZK_SLOT_FILLING) == 0 && slots_in(ZK_SLOT_READY) == 0,
             "a refused partition left in the pool");
    ZT_CHECK(zkslot_status(z, job, &st, msg, sizeof msg) == 0 && st.queued == 3, "%u", st.queued);

    /* the example's witness: published, a, b, c computed here */
    struct zk_wtns w = { 0 };
    snprintf(wtns, sizeof wtns, "%s/examples/groth16/bn128/witness.wtns", src);
    ZT_REQUIRE(zk_wtns_open(&w, wtns, NULL) == 0, , "%s", wtns);
    r = zkslot_part_take(p, job, 1000, &part, msg, sizeof msg);
    ZT_REQUIRE(r == 0 && w.hdr.n_witness == part->n_vars, , "%d %s", r, msg);
    ZT_CHECK(zk_wtns_read_values(&w, 0, part->n_vars, part->witness, NULL) == 0);
    uint32_t slot = part->slot;
    r = zkslot_part_publish(p, part, 0, msg, sizeof msg);
    ZT_CHECK(r == 0, "%d %s", r, msg);
    ZT_CHECK(slots_in(ZK_SLOT_READY) == 1, "slot %u not READY", slot);
    ZT_CHECK(zkslot_status(z, job, &st, msg, sizeof msg) == 0 && st.ready == 1 && st.queued == 2);

    /* abandon: the partition queued again */
    r = zkslot_part_take(p, job, 1000, &part, msg, sizeof msg);
    ZT_REQUIRE(r == 0, , "%d %s", r, msg);
    ZT_CHECK(zkslot_part_abandon(p, part, msg, sizeof msg) == 0, "%s", msg);
    ZT_CHECK(slots_in(ZK_SLOT_FILLING) == 0);
    ZT_CHECK(zkslot_status(z, job, &st, msg, sizeof msg) == 0 && st.queued == 2);

    /* two slots, one READY, one held: no slot for a third (backpressure) */
    r = zkslot_part_take(p, job, 1000, &p2, msg, sizeof msg);
    ZT_REQUIRE(r == 0, , "%d %s", r, msg);
    r = zkslot_part_take(p, job, 200, &p3, msg, sizeof msg);
    ZT_CHECK(r == ZKSLOT_ETIMEOUT && !p3, "%d %s", r, msg);
    ZT_CHECK(zkslot_status(z, job, &st, msg, sizeof msg) == 0 && st.queued == 1,
             "a take that found no slot claimed a partition");
    ZT_CHECK(zk_wtns_read_values(&w, 0, p2->n_vars, p2->witness, NULL) == 0);
    ZT_CHECK(zkslot_part_publish(p, p2, 0, msg, sizeof msg) == 0, "%s", msg);
    zk_wtns_done(&w);
    zkslot_producer_close(p);

    /* the older job was never claimed: queued, no attempt counted */
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)other);
    ZT_CHECK(zkslot_status(z, other, &st, msg, sizeof msg) == 0 && st.queued == 2, "%u",
             st.queued);
    ZT_CHECK(sh("%s status %s --json | grep -Eq '\"attempts\": ?0'", id) == 0,
             "no attempts in zkslot status --json");
    ZT_CHECK(sh("%s status %s --json | grep -Eq '\"attempts\": ?[1-9]'", id) != 0,
             "a take for job %lld claimed a partition of job %s", (long long)job, id);
}

int main(int argc, char **argv)
{
    char path[4400], msg[512];
    zt_init(argc, argv);
    if (!getenv("ZK_SOURCE_DIR") || !getenv("ZKSLOT"))
        zt_skip("ZK_SOURCE_DIR or ZKSLOT not set (run through ctest)");
    snprintf(src, sizeof src, "%s", getenv("ZK_SOURCE_DIR"));
    snprintf(dir, sizeof dir, "/tmp/zk-libzkslot.XXXXXX");
    if (!mkdtemp(dir))
        zt_skip("mkdtemp failed");
    snprintf(pool_path, sizeof pool_path, "/dev/shm/zk-libzkslot-%d.pool", (int)getpid());
    snprintf(path, sizeof path, "%s/none.conf", dir);
    fclose(fopen(path, "w"));
    setenv("ZKSLOT_CONFIG", path, 1);
    snprintf(path, sizeof path, "%s/state", dir);
    setenv("ZKSLOT_STATE_DIR", path, 1);
    setenv("ZKSLOT_POOL", pool_path, 1);

    zkslot *z = NULL;
    snprintf(path, sizeof path, "%s/no/ledger.db", dir);
    int r = zkslot_open(path, NULL, &z, msg, sizeof msg);
    ZT_CHECK(r == -ENOENT && strstr(msg, path) && !z, "%d %s", r, msg);
    ZT_CHECK(zkslot_version()[0] && strcmp(zkslot_strerror(ZKSLOT_ETIMEOUT), "?"));

    snprintf(path, sizeof path, "%s/examples/groth16/bn128/key.zkey", src);
    if (sh("%s key add ex '%s' >/dev/null", path) ||
        sh("%s pool create --slots 2 --slot-size 1M --tmpfs >/dev/null%s", ""))
        zt_fail_at(__FILE__, __LINE__, "setup", " key add / pool create failed");
    else if ((r = zkslot_open(NULL, NULL, &z, msg, sizeof msg)) != 0)
        zt_fail_at(__FILE__, __LINE__, "zkslot_open", " %d %s", r, msg);
    else {
        client(z);
        producer(z);
        zkslot_close(z);
    }
    zk_pool_destroy(pool_path, 1, NULL);
    zt_rmtree(dir);
    return zt_finish();
}

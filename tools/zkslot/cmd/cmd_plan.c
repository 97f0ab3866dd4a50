/*
 * cmd_plan.c -- `zkslot plan`: size a machine for zkslot from its facts (RAM,
 * NUMA nodes, GPUs, huge-page size, cores; detected or given) and a key (or
 * a partition size), and print the configuration with the memory bound it
 * guarantees, the arithmetic shown line by line.
 *
 * The model (docs/plan.md):
 *   slot     = partition bytes (zk_slotfmt_layout) rounded up to the huge page
 *   S        = 2 per gpud (one on the device, one waiting) + one per synth
 *              worker, or --in-flight N
 *   pool     = S x slot                       (partition memory, by construction)
 *   keys     = gpud x key points + synthd x key coefficients
 *              + the key stores resident beside this machine's pool
 *              ($ZKSLOT_POOL, else the default path; zk/keystore.h),
 *              when RAM is this machine's (not --ram); a --key resident
 *              there has its points counted once, in its store: a gpud
 *              serving it maps the store and holds no copy of its own
 *   overhead = daemons x 256 MiB + pool table + 3 witness copies per gpud
 *              (what prove_finalize keeps after the slot is released)
 *   witness  = synth workers x (--witness-memory + the witness file on tmpfs
 *              + 4 KiB of input), when jobs are circuit inputs (0 without)
 *   bound    = pool + keys + overhead + witness  <=  RAM - reserve
 *   reserve  = max(8 GiB, 5% of RAM) unless --reserve
 * --filecoin SHAPE sizes one of Filecoin's circuits from its compiled-in
 * counts (plan_filecoin.h): the slot with the density bitmaps, the points
 * (an upper bound) per gpud, no coefficients in synthd (the circuit is
 * code), and a generator (zkslot-fil-synth synth) per synth worker that
 * holds the assignment and writes it as a .bpa.
 * A configuration whose bound exceeds RAM - reserve is refused (exit 1).
 * Exit 2 on bad flags or files, one line naming the flag or file.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "plan_filecoin.h"
#include "pool/layout.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"
#include "zk/util.h"
#include "zk/zkey.h"

#define GiB (1ULL << 30)
#define MiB (1ULL << 20)
#define PLAN_DAEMON_OVERHEAD (256 * MiB)   /* heap, stacks, libraries of one daemon */
#define PLAN_RESERVE_MIN (8 * GiB)
#define PLAN_RESERVE_PCT 5                 /* % of RAM kept for the OS and the rest */
#define PLAN_KEY_PER_PARTITION 3           /* key estimate without --key/--key-memory */
#define PLAN_MAX_SIZE (1ULL << 50)         /* sizes above 1 PiB are typos (and overflow) */
#define PLAN_MAX_PARTITION (1ULL << 44)    /* 16 TiB: S x slot stays < 2^61 */
#define PLAN_COEF_BYTES 36                 /* synthd: 4-byte signal + 32-byte value */
/* Proofs a gpud holds between slot release and proof.json, each with a copy of
 * its witness: one in the finisher, one handed over, one in the starter
 * waiting to hand over (gpud/starter.c, gpud/finisher.c). */
#define PLAN_PENDING_PER_GPUD 3

/* One machine fact and where it came from. */
struct fact {
    uint64_t v;
    const char *src;                       /* "given", "detected" (this machine),
                                              "derived" (from other facts), "default",
                                              "unknown" (not given, not this machine's) */
    char how[128];                         /* what was read */
};

struct plan {
    struct fact ram, nodes, gpus, hpage, cores;
    int nodes_given;                       /* --numa-nodes: another machine's topology */
    uint64_t partition, witness;           /* partition bytes; its witness region */
    const char *partition_src;
    uint64_t key_gpud, key_synthd;
    uint64_t stores;                       /* resident key stores, bytes */
    uint64_t key_points;                   /* --key: its points' bytes (sections 3, 5-9) */
    uint64_t in_store;                     /* of key_gpud, what the --key's resident store
                                              holds instead of each gpud (0: none) */
    char store[4096];                      /* that store's path */
    const char *key_path;                  /* --key, when in_store */
    const char *key_src;
    uint64_t ngpud, nsynthd, workers, threads, slots, slot;
    uint64_t urgent;                       /* --urgent-slots: [pool] reserve */
    int in_flight_given;
    uint64_t pool, table, keys, daemons, finalize, overhead, bound, reserve, available;
    uint64_t witgen_mem, witgen;           /* --witness-memory; all generators' bytes */
    uint64_t witfile;                      /* the generator's output file (.wtns) */
    int witfile_none;                      /* its output is streamed into the slot (.bpa) */
    const char *witgen_src;                /* "given" or "estimated" (--filecoin) */
    const struct zk_fil_shape *fil;        /* --filecoin */
    int key_synthd_given;                  /* --key-memory G,S named synthd's S */
    const char *reserve_src;
    uint64_t max_slots;                    /* most slots that would fit */
    int fits;
};

static int bad(const char *what, const char *val, const char *why)
{
    fprintf(stderr, "zkslot plan: %s '%s': %s\n", what, val, why);
    return 2;
}

static int parse_count(const char *s, uint64_t max, uint64_t *ret)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -EINVAL;
    *ret = v;
    return 0;
}

/* "1.00 GiB"-style text of a byte count. */
/* Sizes in the plan's arithmetic: two decimals, so that its sums add up. */
static const char *human(uint64_t b, char *buf, size_t n)
{
    return zk_size_human_prec(b, 2, buf, n);
}

/* Exact size text for a flag ("16G", "18434M", "4096K" or bytes). */
static const char *exact(uint64_t b, char *buf, size_t n)
{
    static const struct { uint64_t u; char c; } units[] = {
        { 1ULL << 40, 'T' }, { GiB, 'G' }, { MiB, 'M' }, { 1ULL << 10, 'K' } };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (b && b % units[i].u == 0) {
            snprintf(buf, n, "%llu%c", (unsigned long long)(b / units[i].u), units[i].c);
            return buf;
        }
    }
    snprintf(buf, n, "%llu", (unsigned long long)b);
    return buf;
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* A "kB" line of /proc/meminfo, in bytes; 0 when absent. */
static uint64_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t v = 0;
    size_t kl = strlen(key);

    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = strtoull(line + kl + 1, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

/* Count of directory entries of `dir` named `prefix` followed by a digit
 * (prefix "": any name not starting with a dot). */
static uint64_t count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    uint64_t n = 0;
    size_t pl = strlen(prefix);

    if (!d)
        return 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (pl && (strncmp(e->d_name, prefix, pl) || !isdigit((unsigned char)e->d_name[pl])))
            continue;
        n++;
    }
    closedir(d);
    return n;
}

/* CPUs in a cpulist file ("0-15,32-47"); 0 when unreadable. */
static uint64_t cpulist_count(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[4096];
    uint64_t n = 0;

    if (!f)
        return 0;
    if (fgets(buf, sizeof buf, f)) {
        char *p = buf;
        while (isdigit((unsigned char)*p)) {
            unsigned long a = strtoul(p, &p, 10), b = a;
            if (*p == '-')
                b = strtoul(p + 1, &p, 10);
            if (b >= a)
                n += b - a + 1;
            if (*p != ',')
                break;
            p++;
        }
    }
    fclose(f);
    return n;
}

static void detect(struct plan *p)
{
    if (!p->ram.src) {
        p->ram.v = meminfo("MemTotal");
        p->ram.src = "detected";
        snprintf(p->ram.how, sizeof p->ram.how, "/proc/meminfo MemTotal");
    }
    if (!p->nodes.src) {
        p->nodes.v = count_entries("/sys/devices/system/node", "node");
        p->nodes.src = "detected";
        snprintf(p->nodes.how, sizeof p->nodes.how, "/sys/devices/system/node/node*");
        if (!p->nodes.v) {
            p->nodes.v = 1;
            p->nodes.src = "default";
            snprintf(p->nodes.how, sizeof p->nodes.how, "no NUMA information: 1 node");
        }
    }
    if (!p->gpus.src) {
        p->gpus.v = count_entries("/proc/driver/nvidia/gpus", "");
        p->gpus.src = "detected";
        snprintf(p->gpus.how, sizeof p->gpus.how, "/proc/driver/nvidia/gpus/*");
    }
    if (!p->hpage.src) {
        p->hpage.v = meminfo("Hugepagesize");
        p->hpage.src = "detected";
        snprintf(p->hpage.how, sizeof p->hpage.how, "/proc/meminfo Hugepagesize");
        if (!p->hpage.v) {
            p->hpage.v = 2 * MiB;
            p->hpage.src = "default";
            snprintf(p->hpage.how, sizeof p->hpage.how, "no huge pages reported: 2 MiB");
        }
    }
    if (!p->cores.src && p->nodes_given) {
        /* cores per node is a fact of the machine the node count was given
         * for: this machine's CPUs say nothing about it */
        p->cores.v = 0;
        p->cores.src = "unknown";
        snprintf(p->cores.how, sizeof p->cores.how,
                 "--numa-nodes given without --cores: threads = 0 (synthd counts its node's)");
    } else if (!p->cores.src) {
        /* per node: the smallest node's cpulist (synthd is bound to one node) */
        uint64_t minc = 0;
        char path[128];
        for (uint64_t i = 0; i < 4096; i++) {
            snprintf(path, sizeof path, "/sys/devices/system/node/node%llu/cpulist",
                     (unsigned long long)i);
            if (access(path, R_OK))
                continue;
            uint64_t c = cpulist_count(path);
            if (c && (!minc || c < minc))
                minc = c;
        }
        if (minc && !strcmp(p->nodes.src, "detected")) {
            p->cores.v = minc;
            p->cores.src = "detected";
            snprintf(p->cores.how, sizeof p->cores.how, "/sys/devices/system/node/node*/cpulist");
        } else {
            long n = sysconf(_SC_NPROCESSORS_ONLN);
            p->cores.v = (uint64_t)(n > 0 ? n : 1) / p->nodes.v;
            if (!p->cores.v)
                p->cores.v = 1;
            p->cores.src = "derived";
            snprintf(p->cores.how, sizeof p->cores.how, "this machine's online CPUs / %llu node(s)",
                     (unsigned long long)p->nodes.v);
        }
    }
}

/* Partition, key and generator memory of a Filecoin shape.  Returns 0 or 2. */
static int from_filecoin(struct plan *p, const char *name)
{
    char names[512];
    p->fil = zk_fil_shape_find(name);
    if (!p->fil) {
        zk_fil_shape_names(names, sizeof names);
        fprintf(stderr, "zkslot plan: --filecoin '%s': not one of %s\n", name, names);
        return 2;
    }
    p->partition = zk_fil_slot_bytes(p->fil, &p->witness);
    p->partition_src = "filecoin";
    if (!p->key_src) {
        p->key_gpud = zk_fil_points_bound(p->fil);
        p->key_src = "filecoin";
    }
    if (!p->key_synthd_given)   /* --key-memory G: the gpuds' points; synthd holds none */
        p->key_synthd = 0;
    /* the generator holds the assignment and writes it whole (a .bpa)
     * through a pipe into the slot: no file of it (docs/synthesis.md) */
    p->witfile_none = 1;
    if (!p->witgen_mem) {
        p->witgen_mem = zk_fil_bpa_bytes(p->fil);
        p->witgen_src = "estimated";
    }
    return 0;
}

/* Partition and key memory from a zkey.  Returns 0 or 2 (message printed). */
static int from_key(struct plan *p, const char *path, int key_mem_given)
{
    struct zk_zkey z;
    struct zk_diag d = { "" };
    struct zk_slot_desc desc;
    static const enum zk_zkey_section pts[] = { ZK_ZKEY_SEC_IC, ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1,
                                                ZK_ZKEY_SEC_B2, ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H };
    int r = zk_zkey_open(&z, path, &d);

    if (r) {
        fprintf(stderr, "zkslot plan: %s\n", d.msg[0] ? d.msg : zk_strerror(r));
        return 2;
    }
    p->partition = zk_slotfmt_layout(z.hdr.n_vars, z.hdr.domain_size, &desc);
    p->witness = desc.region_bytes[ZK_SLOTFMT_W];
    p->partition_src = "key";
    /* the points (--key-memory or not: what a resident store holds for the gpuds) */
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        size_t pb = 0;
        uint64_t n = zk_zkey_section_points(&z, pts[i], &pb);
        p->key_points += n * pb;
    }
    if (!key_mem_given) {
        p->key_gpud = p->key_points;
        p->key_synthd = z.hdr.n_coef * PLAN_COEF_BYTES +
                        2 * ((uint64_t)z.hdr.domain_size + 1) * sizeof(uint32_t);
        p->key_src = "key";
    }
    zk_zkey_done(&z);
    if (!p->partition) {
        fprintf(stderr, "zkslot plan: %s: partition size overflows\n", path);
        return 2;
    }
    return 0;
}

/*
 * The --key's own store, when it is resident beside the pool: its points
 * are counted in p->stores, once, and no longer in each gpud's share
 * (p->in_store: the key's points, or all of a smaller --key-memory).  A
 * store that is not there, or refused, changes nothing.
 */
static void key_store(struct plan *p, const char *pool, const char *key)
{
    zk_keystore *s = NULL;
    if (zk_keystore_find(pool, key, 0, &s, NULL))
        return;
    snprintf(p->store, sizeof p->store, "%s", zk_keystore_info(s)->path);
    p->in_store = p->key_points < p->key_gpud ? p->key_points : p->key_gpud;
    p->key_path = key;
    zk_keystore_close(s);
}

/* Pages the pool's header and slot table take (before the first slot). */
static uint64_t table_bytes(uint64_t slots, uint64_t page)
{
    return round_up(POOL_HDR_SIZE + (uint64_t)ZK_POOL_MAX_ATTACH * POOL_ATTACH_SIZE +
                    slots * POOL_SLOT_SIZE, page);
}

static void compute(struct plan *p)
{
    p->ngpud = p->gpus.v ? p->gpus.v : 1;
    p->nsynthd = p->nodes.v;
    p->slot = round_up(p->partition, p->hpage.v);
    if (!p->in_flight_given) {
        /* enough workers that each gpud has one partition being synthesized */
        p->workers = (p->ngpud + p->nsynthd - 1) / p->nsynthd;
        /* the reserved slots come on top: the rest keeps its pipeline */
        p->slots = 2 * p->ngpud + p->workers * p->nsynthd + p->urgent;
    } else {
        uint64_t open = p->slots > p->urgent ? p->slots - p->urgent : 0;
        uint64_t spare = open > 2 * p->ngpud ? open - 2 * p->ngpud : 0;
        /* the slots beyond 2 per gpud feed the workers; no more workers than cores */
        p->workers = spare / p->nsynthd;
        if (p->cores.v && p->workers > p->cores.v)
            p->workers = p->cores.v;
        if (!p->workers)
            p->workers = 1;
    }
    /* cores unknown: 0, synthd's own cores / workers at start (configuration.md) */
    p->threads = p->cores.v ? p->cores.v / p->workers : 0;
    if (p->cores.v && !p->threads)
        p->threads = 1;
    p->pool = p->slots * p->slot;
    p->table = table_bytes(p->slots, p->hpage.v);
    p->keys = p->ngpud * (p->key_gpud - p->in_store) + p->nsynthd * p->key_synthd + p->stores;
    p->daemons = (p->ngpud + p->nsynthd) * PLAN_DAEMON_OVERHEAD;
    p->finalize = p->ngpud * PLAN_PENDING_PER_GPUD * p->witness;
    p->overhead = p->daemons + p->table + p->finalize;
    /* a generator per synth worker, and the .wtns it writes to tmpfs (the
     * witness region plus its 76-byte header) until synthd has read it */
    if (!p->witfile && !p->witfile_none)
        p->witfile = p->witness + 76;
    p->witgen = p->witgen_mem ? p->workers * p->nsynthd * (p->witgen_mem + p->witfile + 4096) : 0;
    p->bound = p->pool + p->keys + p->overhead + p->witgen;
    if (!p->reserve_src) {
        p->reserve = p->ram.v / 100 * PLAN_RESERVE_PCT;
        if (p->reserve < PLAN_RESERVE_MIN)
            p->reserve = PLAN_RESERVE_MIN;
        p->reserve_src = "max(8 GiB, 5% of RAM)";
    }
    p->available = p->ram.v > p->reserve ? p->ram.v - p->reserve : 0;
    p->fits = p->bound <= p->available;
    /* the most slots that fit with the same keys and daemons */
    uint64_t fixed = p->keys + p->daemons + p->finalize + p->witgen;
    p->max_slots = 0;
    if (p->available > fixed) {
        uint64_t s = (p->available - fixed) / p->slot;
        while (s && s * p->slot + table_bytes(s, p->hpage.v) > p->available - fixed)
            s--;
        p->max_slots = s > ZK_POOL_MAX_SLOTS ? ZK_POOL_MAX_SLOTS : s;
    }
}

static void node_list(const struct plan *p, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (uint64_t i = 0; i < p->nodes.v && o + 24 < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%llu", i ? "," : "", (unsigned long long)i);
}

/* Huge pages node i needs: its share of the slots (round-robin), plus the
 * header and table on node 0. */
static uint64_t node_pages(const struct plan *p, uint64_t i)
{
    uint64_t s = p->slots / p->nodes.v + (i < p->slots % p->nodes.v ? 1 : 0);
    uint64_t pages = s * (p->slot / p->hpage.v);
    if (i == 0)
        pages += p->table / p->hpage.v;
    return pages;
}

/*
 * The zkslot.conf block: every value plan decided, complete enough that
 * zkslot-pool.service (`zkslot pool create --exist-ok`, no flags) and both
 * daemons' --check-config accept it as is (tests/plan/test_plan_config.sh).
 * hugepages = auto: the pool takes huge pages when they are reserved and a
 * writable hugetlbfs is mounted, else tmpfs with a warning; no dir, so the
 * automatic choice finds the mount.
 */
static void print_conf(const struct plan *p, FILE *f, const char *indent)
{
    char sz[32], nl[8192];
    /* the pool this machine's tools use: $ZKSLOT_POOL when set */
    const char *pool = getenv("ZKSLOT_POOL");
    fprintf(f, "%s[pool]\n%spath = %s\n", indent, indent,
            pool && *pool ? pool : ZK_POOL_RUN_PATH);
    fprintf(f, "%sslots = %llu\n%sslot_size = %s\n", indent, (unsigned long long)p->slots,
            indent, exact(p->slot, sz, sizeof sz));
    if (p->nodes.v > 1) {
        node_list(p, nl, sizeof nl);
        fprintf(f, "%snuma_nodes = %s\n", indent, nl);
    }
    fprintf(f, "%shugepages = auto\n", indent);
    if (p->urgent)
        fprintf(f, "%sreserve = %llu\n", indent, (unsigned long long)p->urgent);
    fprintf(f, "%s[synthd]\n%sworkers = %llu\n%sthreads = %llu\n", indent, indent,
            (unsigned long long)p->workers, indent, (unsigned long long)p->threads);
    if (p->witgen_mem)
        fprintf(f, "%switness_memory = %s\n", indent, exact(p->witgen_mem, sz, sizeof sz));
    fprintf(f, "%s[gpud]\n%sbackend = %s\n", indent, indent, p->gpus.v ? "cuda" : "cpu");
}

/* The same pool by hand (what the block's [pool] says, as flags). */
static void pool_cmd(const struct plan *p, char *buf, size_t n)
{
    char sz[32], nl[8192];
    node_list(p, nl, sizeof nl);
    snprintf(buf, n, "zkslot pool create --slots %llu --slot-size %s%s%s",
             (unsigned long long)p->slots, exact(p->slot, sz, sizeof sz),
             p->nodes.v > 1 ? " --numa-nodes " : "", p->nodes.v > 1 ? nl : "");
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void print_json(const struct plan *p)
{
    const struct { const char *name; const struct fact *f; } facts[] = {
        { "ram", &p->ram }, { "numa_nodes", &p->nodes }, { "gpus", &p->gpus },
        { "hugepage_size", &p->hpage }, { "cores_per_node", &p->cores } };
    char buf[8448];
    FILE *mf;
    char *conf = NULL;
    size_t conf_len = 0;

    printf("{\n  \"machine\": {");
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        printf("%s\n    \"%s\": {\"value\": %llu, \"source\": \"%s\", \"how\": ", i ? "," : "",
               facts[i].name, (unsigned long long)facts[i].f->v, facts[i].f->src);
        json_str(stdout, facts[i].f->how);
        printf("}");
    }
    printf("\n  },\n");
    if (p->fil)
        printf("  \"filecoin\": {\"shape\": \"%s\", \"registered_proof\": \"%s\", "
               "\"constraints\": %llu, \"inputs\": %llu, \"aux\": %llu, \"rows\": %llu, "
               "\"domain\": %llu, \"partitions\": %llu, \"sectors_per_partition\": %llu, "
               "\"density_bytes\": %llu, \"bpa_bytes\": %llu, \"points_bound\": %llu, "
               "\"source\": \"%s\"},\n", p->fil->name, p->fil->registered,
               (unsigned long long)p->fil->constraints, (unsigned long long)p->fil->inputs,
               (unsigned long long)p->fil->aux, (unsigned long long)zk_fil_rows(p->fil),
               (unsigned long long)zk_fil_domain(p->fil),
               (unsigned long long)p->fil->partitions,
               (unsigned long long)p->fil->sectors_per_partition,
               (unsigned long long)zk_fil_density_bytes(p->fil),
               (unsigned long long)zk_fil_bpa_bytes(p->fil),
               (unsigned long long)zk_fil_points_bound(p->fil), p->fil->source);
    printf("  \"partition_size\": %llu,\n  \"partition_source\": \"%s\",\n"
           "  \"witness_size\": %llu,\n",
           (unsigned long long)p->partition, p->partition_src, (unsigned long long)p->witness);
    printf("  \"key_memory_gpud\": %llu,\n  \"key_memory_synthd\": %llu,\n"
           "  \"key_memory_source\": \"%s\",\n",
           (unsigned long long)(p->key_gpud - p->in_store), (unsigned long long)p->key_synthd,
           p->key_src);
    printf("  \"key_stores_resident\": %llu,\n  \"key_points_in_store\": %llu,\n"
           "  \"key_store\": ", (unsigned long long)p->stores, (unsigned long long)p->in_store);
    json_str(stdout, p->store);
    printf(",\n");
    printf("  \"gpud\": %llu,\n  \"synthd\": %llu,\n  \"synth_workers_per_node\": %llu,\n"
           "  \"synth_threads_per_worker\": %llu,\n",
           (unsigned long long)p->ngpud, (unsigned long long)p->nsynthd,
           (unsigned long long)p->workers, (unsigned long long)p->threads);
    printf("  \"slots\": %llu,\n  \"reserved_slots\": %llu,\n  \"slot_size\": %llu,\n"
           "  \"hugepages_per_node\": [",
           (unsigned long long)p->slots, (unsigned long long)p->urgent,
           (unsigned long long)p->slot);
    for (uint64_t i = 0; i < p->nodes.v; i++)
        printf("%s%llu", i ? ", " : "", (unsigned long long)node_pages(p, i));
    printf("],\n");
    printf("  \"pool\": %llu,\n  \"keys\": %llu,\n  \"overhead\": %llu,\n"
           "  \"overhead_daemons\": %llu,\n  \"overhead_pool_table\": %llu,\n"
           "  \"overhead_finalize\": %llu,\n  \"witness_generators\": %llu,\n"
           "  \"bound\": %llu,\n  \"reserve\": %llu,\n"
           "  \"available\": %llu,\n  \"max_slots_that_fit\": %llu,\n  \"fits\": %s,\n"
           "  \"witness_memory\": %llu,\n  \"witness_file\": %llu,\n",
           (unsigned long long)p->pool, (unsigned long long)p->keys,
           (unsigned long long)p->overhead, (unsigned long long)p->daemons,
           (unsigned long long)p->table, (unsigned long long)p->finalize,
           (unsigned long long)p->witgen, (unsigned long long)p->bound,
           (unsigned long long)p->reserve,
           (unsigned long long)p->available, (unsigned long long)p->max_slots,
           p->fits ? "true" : "false", (unsigned long long)p->witgen_mem,
           (unsigned long long)p->witfile);
    mf = open_memstream(&conf, &conf_len);
    if (mf) {
        print_conf(p, mf, "");
        fclose(mf);
    }
    printf("  \"config\": ");
    json_str(stdout, conf ? conf : "");
    free(conf);
    pool_cmd(p, buf, sizeof buf);
    printf(",\n  \"pool_create\": ");
    json_str(stdout, buf);
    printf("\n}\n");
}

/* What a --filecoin shape assumed, and where the figures come from. */
static void print_filecoin(const struct plan *p)
{
    const struct zk_fil_shape *f = p->fil;
    char a[32], b[32], c[32];
    printf("  filecoin     %s (%s): %llu constraints + %llu input rows = %llu rows, domain "
           "2^%d; %llu inputs (with ONE), %llu aux\n", f->name, f->registered,
           (unsigned long long)f->constraints, (unsigned long long)f->inputs,
           (unsigned long long)zk_fil_rows(f), __builtin_ctzll(zk_fil_domain(f)),
           (unsigned long long)f->inputs, (unsigned long long)f->aux);
    printf("  counts       %s\n", f->source);
    if (f->partitions)
        printf("  partitions   %llu per proof (one slot each)\n",
               (unsigned long long)f->partitions);
    else
        printf("  partitions   ceil(sectors / %llu) per proof (one slot each)\n",
               (unsigned long long)f->sectors_per_partition);
    printf("  slot parts   witness %s (inputs + aux x 32), a, b, c 3 x %s (domain x 32), "
           "densities %s\n", human(p->witness, a, sizeof a),
           human(zk_fil_domain(f) * 32, b, sizeof b),
           human(zk_fil_density_bytes(f), c, sizeof c));
}

static void print_text(const struct plan *p)
{
    char a[32], b[32], c[32], d[32], nl[8192], cmd[8448];
    const struct { const char *name; const struct fact *f; int bytes; } facts[] = {
        { "RAM", &p->ram, 1 }, { "NUMA nodes", &p->nodes, 0 }, { "GPUs", &p->gpus, 0 },
        { "huge page", &p->hpage, 1 }, { "cores/node", &p->cores, 0 } };

    printf("machine:\n");
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        if (!strcmp(facts[i].f->src, "unknown"))
            snprintf(a, sizeof a, "?");
        else if (facts[i].bytes)
            human(facts[i].f->v, a, sizeof a);
        else
            snprintf(a, sizeof a, "%llu", (unsigned long long)facts[i].f->v);
        printf("  %-12s %-12s %s%s%s%s\n", facts[i].name, a, facts[i].f->src,
               facts[i].f->how[0] ? " (" : "", facts[i].f->how, facts[i].f->how[0] ? ")" : "");
    }
    if (p->nodes_given) {
        /* another machine's topology: name what still comes from this one */
        char mine[96] = "";
        size_t o = 0;
        for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
            if (!strcmp(facts[i].f->src, "detected") && o + 16 < sizeof mine)
                o += (size_t)snprintf(mine + o, sizeof mine - o, "%s%s", o ? ", " : "",
                                      facts[i].name);
        }
        if (o)
            printf("  note         --numa-nodes was given, but %s %s this machine's: give "
                   "them too to size another machine\n", mine, strchr(mine, ',') ? "are" : "is");
    }
    printf("workload:\n");
    if (p->fil)
        print_filecoin(p);
    printf("  partition    %s (%s)\n", human(p->partition, a, sizeof a),
           !strcmp(p->partition_src, "key") ? "slot layout of the key's header"
           : !strcmp(p->partition_src, "filecoin")
               ? "slot layout of the counts: header, witness, a, b, c, densities"
               : "--partition-size");
    printf("  key memory   %s per gpud (points), %s per synthd (coefficients) -- %s\n",
           human(p->key_gpud, a, sizeof a), human(p->key_synthd, b, sizeof b),
           !strcmp(p->key_src, "key") ? "from the key's sections"
           : !strcmp(p->key_src, "given") ? "--key-memory"
           : !strcmp(p->key_src, "filecoin")
               ? "ESTIMATED upper bound of the parameters' points (every density set); synthd "
                 "holds no coefficients (the circuit is code): pass --key-memory (the .params "
                 "file's size)"
               : "ESTIMATED as 3 x partition: pass --key-memory");
    if (p->fil)
        printf("  generator    %s per synth worker (%s), its .bpa streamed into the slot "
               "(no file)\n", human(p->witgen_mem, a, sizeof a),
               p->witgen_src ? "ESTIMATED as the assignment it holds: pass --witness-memory"
                             : "--witness-memory");
    if (p->in_store)
        printf("  key store    %s resident in %s: its points (%s) counted once, in the store, "
               "not per gpud (each maps it)\n", p->key_path, p->store,
               human(p->in_store, a, sizeof a));
    printf("recommendation:\n");
    printf("  gpud         %llu (%s)\n", (unsigned long long)p->ngpud,
           p->gpus.v ? "one per GPU, backend cuda" : "no GPU: one gpud with backend cpu");
    if (p->threads)
        printf("  synthd       %llu (one per NUMA node), %llu worker(s) each, "
               "%llu thread(s) per worker\n",
               (unsigned long long)p->nsynthd, (unsigned long long)p->workers,
               (unsigned long long)p->threads);
    else
        printf("  synthd       %llu (one per NUMA node), %llu worker(s) each, threads = 0: "
               "its node's cores / workers, counted by synthd at start (cores per node "
               "not given)\n",
               (unsigned long long)p->nsynthd, (unsigned long long)p->workers);
    if (p->in_flight_given)
        printf("  slots        %llu (--in-flight)\n", (unsigned long long)p->slots);
    else
        printf("  slots        %llu = 2 per gpud x %llu + 1 per synth worker x %llu%s\n",
               (unsigned long long)p->slots, (unsigned long long)p->ngpud,
               (unsigned long long)(p->workers * p->nsynthd),
               p->urgent ? " + the reserved" : "");
    if (p->urgent)
        printf("  reserved     %llu of them for urgent work ([pool] reserve, --urgent-slots):"
               " in the memory bound like any slot\n", (unsigned long long)p->urgent);
    if (p->in_flight_given && p->slots < 2 * p->ngpud + p->nsynthd)
        printf("  note         fewer than 2 per gpud + 1 per synthd: GPUs will wait\n");
    printf("  slot size    %s = partition %s rounded up to the %s huge page\n",
           exact(p->slot, a, sizeof a), human(p->partition, b, sizeof b),
           human(p->hpage.v, c, sizeof c));
    for (uint64_t i = 0; i < p->nodes.v; i++)
        printf("  node %-7llu %llu huge pages (%s)\n", (unsigned long long)i,
               (unsigned long long)node_pages(p, i),
               human(node_pages(p, i) * p->hpage.v, a, sizeof a));
    printf("memory bound:\n");
    printf("  pool     = S x slot = %llu x %s = %s\n", (unsigned long long)p->slots,
           human(p->slot, a, sizeof a), human(p->pool, b, sizeof b));
    char e[32] = "";
    if (p->stores)
        human(p->stores, e, sizeof e);
    printf("  keys     = gpud x points%s + synthd x coefficients%s = %llu x %s + %llu x %s%s%s"
           " = %s\n", p->in_store ? " outside the store" : "",
           p->stores ? " + resident key stores" : "",
           (unsigned long long)p->ngpud, human(p->key_gpud - p->in_store, a, sizeof a),
           (unsigned long long)p->nsynthd, human(p->key_synthd, b, sizeof b),
           p->stores ? " + " : "", e, human(p->keys, c, sizeof c));
    printf("  overhead = daemons x 256 MiB + pool table + gpud x 3 witness copies"
           " = %s + %s + %s = %s\n",
           human(p->daemons, a, sizeof a), human(p->table, b, sizeof b),
           human(p->finalize, c, sizeof c), human(p->overhead, d, sizeof d));
    if (p->witgen_mem) {
        printf("  witness  = synth workers x (generator + witness file + input)"
               " = %llu x (%s + %s + 4 KiB) = %s\n",
               (unsigned long long)(p->workers * p->nsynthd), human(p->witgen_mem, a, sizeof a),
               human(p->witfile, b, sizeof b), human(p->witgen, c, sizeof c));
        printf("  bound    = pool + keys + overhead + witness = %s\n",
               human(p->bound, a, sizeof a));
    } else {
        printf("  bound    = pool + keys + overhead = %s\n", human(p->bound, a, sizeof a));
    }
    printf("  reserve  = %s = %s\n", p->reserve_src, human(p->reserve, a, sizeof a));
    printf("  available = RAM - reserve = %s - %s = %s\n", human(p->ram.v, a, sizeof a),
           human(p->reserve, b, sizeof b), human(p->available, c, sizeof c));
    if (p->fits) {
        printf("  verdict: FITS, bound %s <= available %s (headroom %s)\n",
               human(p->bound, a, sizeof a), human(p->available, b, sizeof b),
               human(p->available - p->bound, c, sizeof c));
        if (p->max_slots > p->slots)
            printf("  room for up to %llu slots of this size (--in-flight %llu): more partitions "
                   "in flight smooth out slow syntheses\n",
                   (unsigned long long)p->max_slots, (unsigned long long)p->max_slots);
        printf("\n/etc/zkslot/zkslot.conf:\n");
        print_conf(p, stdout, "  ");
        printf("\nhuge pages (at boot, e.g. a unit before zkslot-pool.service):\n");
        for (uint64_t i = 0; i < p->nodes.v; i++)
            printf("  echo %llu > /sys/devices/system/node/node%llu/hugepages/"
                   "hugepages-%llukB/nr_hugepages\n",
                   (unsigned long long)node_pages(p, i), (unsigned long long)i,
                   (unsigned long long)(p->hpage.v / 1024));
        pool_cmd(p, cmd, sizeof cmd);
        printf("\npool (zkslot-pool.service runs `zkslot pool create --exist-ok`, which reads "
               "[pool] above; by hand:)\n  %s\n", cmd);
        node_list(p, nl, sizeof nl);
        printf("\nunits: zkslot-synthd@%s%s%s.service", p->nodes.v > 1 ? "{" : "", nl,
               p->nodes.v > 1 ? "}" : "");
        if (p->ngpud > 1)
            printf(", zkslot-gpud@{0..%llu}.service\n", (unsigned long long)(p->ngpud - 1));
        else
            printf(", zkslot-gpud@0.service\n");
    } else {
        printf("  verdict: DOES NOT FIT\n");
    }
}

/* The one-line refusal: the shortfall and what to change. */
static void refuse(const struct plan *p, FILE *f)
{
    char a[32], b[32], c[32], d[32];
    fprintf(f, "zkslot plan: does not fit: bound %s exceeds RAM - reserve %s by %s; ",
            human(p->bound, a, sizeof a), human(p->available, b, sizeof b),
            human(p->bound - p->available, c, sizeof c));
    if (p->pool > p->available)
        fprintf(f, "the pool alone (%llu x %s = %s) is larger than that; ",
                (unsigned long long)p->slots,
                human(p->slot, d, sizeof d), human(p->pool, a, sizeof a));
    if (p->max_slots >= 2)
        fprintf(f, "at most %llu slots of %s fit with these keys: use --in-flight %llu, "
                   "smaller partitions, or more RAM\n",
                (unsigned long long)p->max_slots, human(p->slot, d, sizeof d),
                (unsigned long long)p->max_slots);
    else
        fprintf(f, "keys (%s) and daemons leave room for %llu slot(s) of %s, fewer than the 2 "
                   "a pipeline needs: smaller partitions, less key memory per process "
                   "(--key-memory), or more RAM\n",
                human(p->keys, a, sizeof a), (unsigned long long)p->max_slots,
                human(p->slot, d, sizeof d));
}

int cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {
        { "key", required_argument, NULL, 'k' },
        { "partition-size", required_argument, NULL, 'p' },
        { "filecoin", required_argument, NULL, 'F' },
        { "ram", required_argument, NULL, 'r' },
        { "numa-nodes", required_argument, NULL, 'n' },
        { "gpus", required_argument, NULL, 'g' },
        { "hugepage-size", required_argument, NULL, 'H' },
        { "cores", required_argument, NULL, 'c' },
        { "in-flight", required_argument, NULL, 'i' },
        { "urgent-slots", required_argument, NULL, 'u' },
        { "reserve", required_argument, NULL, 'R' },
        { "key-memory", required_argument, NULL, 'K' },
        { "witness-memory", required_argument, NULL, 'W' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const char *usage =
        "usage: zkslot plan (--key KEY.zkey | --partition-size SIZE | --filecoin SHAPE)\n"
        "                   [--ram SIZE]\n"
        "                   [--numa-nodes N] [--gpus N] [--hugepage-size SIZE] [--cores N]\n"
        "                   [--in-flight N] [--urgent-slots N] [--reserve SIZE]\n"
        "                   [--key-memory SIZE[,SIZE]] [--json]\n"
        "                   [--witness-memory SIZE]\n"
        "  --key-memory G[,S]: key bytes each gpud (G) and each synthd (S, default G) holds\n"
        "  --witness-memory SIZE: jobs are circuit inputs; each witness generator's memory\n"
        "  --filecoin SHAPE: one of Filecoin's circuits (porep-32GiB, window-32GiB, ...)\n";
    struct plan p;
    const char *key = NULL, *fil = NULL;
    int json = 0, o;

    memset(&p, 0, sizeof p);
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        uint64_t v = 0;
        switch (o) {
        case 'k':
            key = optarg;
            break;
        case 'p':
            if (zk_pool_parse_size(optarg, &v) || !v)
                return bad("--partition-size", optarg, "not a size (e.g. 16G, 512M)");
            p.partition = v;
            p.partition_src = "given";
            break;
        case 'F':
            fil = optarg;
            break;
        case 'r':
            if (zk_pool_parse_size(optarg, &v) || !v || v > PLAN_MAX_SIZE)
                return bad("--ram", optarg, "not a size up to 1024T (e.g. 755G)");
            p.ram.v = v;
            p.ram.src = "given";
            break;
        case 'n':
            if (parse_count(optarg, 1024, &v) || !v)
                return bad("--numa-nodes", optarg, "not a node count (1..1024)");
            p.nodes.v = v;
            p.nodes.src = "given";
            p.nodes_given = 1;
            break;
        case 'g':
            if (parse_count(optarg, 1024, &v))
                return bad("--gpus", optarg, "not a GPU count (0..1024)");
            p.gpus.v = v;
            p.gpus.src = "given";
            break;
        case 'H':
            if (zk_pool_parse_size(optarg, &v) || v < 4096 || (v & (v - 1)) || v > PLAN_MAX_SIZE)
                return bad("--hugepage-size", optarg, "not a power-of-two size (2M, 1G)");
            p.hpage.v = v;
            p.hpage.src = "given";
            break;
        case 'c':
            if (parse_count(optarg, 1u << 20, &v) || !v)
                return bad("--cores", optarg, "not a core count per node");
            p.cores.v = v;
            p.cores.src = "given";
            break;
        case 'i':
            if (parse_count(optarg, ZK_POOL_MAX_SLOTS, &v) || !v)
                return bad("--in-flight", optarg, "not a slot count (1..65536)");
            p.slots = v;
            p.in_flight_given = 1;
            break;
        case 'u':
            if (parse_count(optarg, ZK_POOL_MAX_SLOTS - 1, &v))
                return bad("--urgent-slots", optarg, "not a slot count (0..65535)");
            p.urgent = v;
            break;
        case 'R':
            if (zk_pool_parse_size(optarg, &v) || v > PLAN_MAX_SIZE)
                return bad("--reserve", optarg, "not a size up to 1024T (e.g. 8G)");
            p.reserve = v;
            p.reserve_src = "--reserve";
            break;
        case 'K': {
            char tmp[64];
            char *comma;
            uint64_t s = 0;
            snprintf(tmp, sizeof tmp, "%s", optarg);
            comma = strchr(tmp, ',');
            if (comma)
                *comma = 0;
            if (zk_pool_parse_size(tmp, &v) || (comma && zk_pool_parse_size(comma + 1, &s)) ||
                v > PLAN_MAX_SIZE || s > PLAN_MAX_SIZE)
                return bad("--key-memory", optarg, "not a size or SIZE,SIZE (e.g. 47G)");
            p.key_gpud = v;
            p.key_synthd = comma ? s : v;
            p.key_synthd_given = comma != NULL;
            p.key_src = "given";
            break;
        }
        case 'W':
            if (zk_pool_parse_size(optarg, &v) || v == 0 || v > PLAN_MAX_SIZE)
                return bad("--witness-memory", optarg, "not a size (e.g. 4G)");
            p.witgen_mem = v;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            if (optopt)
                fprintf(stderr, "zkslot plan: option '%s' needs a value or is unknown\n",
                        argv[optind - 1]);
            else
                fprintf(stderr, "zkslot plan: unknown option '%s'\n", argv[optind - 1]);
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "zkslot plan: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (p.in_flight_given && p.urgent >= p.slots) {
        fprintf(stderr, "zkslot plan: --urgent-slots %llu: at most --in-flight - 1 (%llu): "
                "some slot must be left for every class\n", (unsigned long long)p.urgent,
                (unsigned long long)(p.slots - 1));
        return 2;
    }
    if (!!key + !!p.partition_src + !!fil != 1) {
        fprintf(stderr, "zkslot plan: give exactly one of --key KEY.zkey, "
                        "--partition-size SIZE and --filecoin SHAPE\n%s", usage);
        return 2;
    }
    if (key && from_key(&p, key, p.key_src != NULL))
        return 2;
    if (fil && from_filecoin(&p, fil))
        return 2;
    if (!key && !fil) {
        /* a partition of n vars and domain d ~ n: witness 32n of ~128n */
        p.witness = p.partition / 4;
        if (!p.key_src) {
            p.key_gpud = p.key_synthd = p.partition * PLAN_KEY_PER_PARTITION;
            p.key_src = "estimated";
        }
    }
    detect(&p);
    const char *pool = getenv("ZKSLOT_POOL");
    if (p.ram.src && !strcmp(p.ram.src, "detected")) { /* this machine's stores, for its RAM */
        pool = pool && *pool ? pool : zk_pool_default_path();
        p.stores = zk_keystore_resident_bytes(pool);
        if (key && p.stores)
            key_store(&p, pool, key);
    }
    if (!p.ram.v) {
        fprintf(stderr, "zkslot plan: /proc/meminfo: no MemTotal; give --ram SIZE\n");
        return 2;
    }
    if (p.partition > PLAN_MAX_PARTITION || p.ram.v > PLAN_MAX_SIZE) {
        fprintf(stderr, "zkslot plan: %s: partition larger than 16 TiB or RAM above 1 PiB\n",
                key ? key : fil ? fil : "--partition-size");
        return 2;
    }
    compute(&p);
    if (json)
        print_json(&p);
    else
        print_text(&p);
    if (!p.fits) {
        refuse(&p, json ? stderr : stdout);
        return 1;
    }
    return 0;
}

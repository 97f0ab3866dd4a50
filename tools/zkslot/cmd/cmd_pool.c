/*
 * cmd_pool.c -- `zkslot pool create|status|check|reap|destroy`.
 *
 * Configuration comes from zk_config (zk/config.h): the file (--config
 * FILE, else $ZKSLOT_CONFIG, else /etc/zkslot/zkslot.conf when present),
 * then the environment, then flags.  The pool path is, in order: --pool
 * PATH, $ZKSLOT_POOL, `path` in section [pool], else zk_pool_default_path().
 * `create` takes its geometry from [pool] slots, slot_size, dir,
 * numa_nodes and hugepages unless flags give it (a NUMA node this machine
 * lacks, or a dir that contradicts hugepages, is refused naming the flag or
 * option: create_precheck); with --exist-ok (or as
 * `ensure`) an existing pool of the same geometry is success, one of
 * another geometry an error.  `destroy` also removes the key stores
 * beside the pool (zk/keystore.h).  Exit codes: 0 ok, 1 check found
 * violations, 2 error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "pool/layout.h"
#include "zk/config.h"
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/pool.h"
#include "zk/priority.h"
#include "zk/util.h"

static const char *config_flag;   /* --config FILE of this invocation */

/*
 * The configuration every subcommand uses: defaults, then the file
 * (--config FILE, else $ZKSLOT_CONFIG, else /etc/zkslot/zkslot.conf when
 * present), then $ZKSLOT_POOL / $ZKSLOT_STATE_DIR.  -1 with the error
 * printed when the file cannot be read or has a bad value.
 */
static int load_config(const char *cmd, struct zk_config *cfg)
{
    struct zk_diag d;
    if (zk_config_resolve(cfg, config_flag, &d) < 0) {
        fprintf(stderr, "zkslot pool %s: %s\n", cmd, d.msg);
        return -1;
    }
    return 0;
}


static void print_hugepage_shortage(const struct zk_pool_create_result *res)
{
    char b[32];
    uint64_t missing = res->pages_needed > res->pages_free ? res->pages_needed - res->pages_free : 0;
    fprintf(stderr,
            "zkslot pool create: not enough huge pages: the pool needs %llu pages of %s,"
            " %llu are free (%llu reserved), %llu missing.\n"
            "  reserve them (as root):  echo %llu > /proc/sys/vm/nr_hugepages\n"
            "  and mount hugetlbfs:     mount -t hugetlbfs none /dev/hugepages\n"
            "  or create the pool on tmpfs without huge pages: --tmpfs\n",
            (unsigned long long)res->pages_needed, zk_size_human(res->page_size, b, sizeof b),
            (unsigned long long)res->pages_free, (unsigned long long)res->pages_reserved,
            (unsigned long long)missing, (unsigned long long)(res->pages_reserved + missing));
}

static const char *backing_name(int b);
static int open_pool(const char *path, zk_pool **ret, unsigned flags);

/* The slot size `want` occupies in a pool of page size `page`. */
static uint64_t rounded(uint64_t want, uint64_t page)
{
    return page ? (want + page - 1) / page * page : want;
}

/*
 * An existing pool at `path` of an older layout (version 2: the slot data
 * in the pool file itself, readable by the group) is destroyed so that
 * create can make it again; its READY partitions are synthesized again
 * from the ledger (the daemons requeue what a lost pool held).  0 when it
 * was destroyed, 1 when the pool is not an old one, 2 when it is but
 * cannot go (explained: processes of the previous release still attached).
 */
static int replace_old(const char *path)
{
    zk_pool *h = malloc(zk_pool_sizeof());
    struct zk_pool_attach_opts o = { .flags = ZK_POOL_OBSERVER };
    unsigned live = 0;
    int r = h ? zk_pool_attach(h, path, &o) : -ENOMEM;
    if (r == 0)
        zk_pool_detach(h);
    free(h);
    if (r != ZK_EVERSION)
        return 1;
    r = zk_pool_destroy(path, 0, &live);
    if (r == ZK_EBUSY) {
        fprintf(stderr, "zkslot pool create: %s has an older layout and %u live process%s"
                        " attached; stop the daemons of the previous release first\n",
                path, live, live == 1 ? "" : "es");
        return 2;
    }
    if (r < 0)
        return 1;   /* compare_existing explains */
    printf("destroyed pool %s of an older layout (slot data in the pool file); its READY"
           " partitions are synthesized again\n", path);
    return 0;
}

/*
 * An existing pool at `path` against the requested geometry: 0 when it
 * matches (printed), 2 when not or when it cannot be read (explained).
 */
static int compare_existing(const char *path, const struct zk_pool_params *p)
{
    zk_pool *h;
    struct zk_pool_info in;
    char b1[32], b2[32], why[512] = "";
    size_t w = 0;
    int r = open_pool(path, &h, ZK_POOL_OBSERVER | ZK_POOL_CHECK_TRUST);
    if (r < 0) {
        fprintf(stderr, "zkslot pool create: %s exists but is not a usable pool;"
                        " destroy it (zkslot pool destroy --force) or choose another path\n", path);
        return 2;
    }
    zk_pool_info(h, &in);
#define WHY(...) (w += (size_t)snprintf(why + w, w < sizeof why ? sizeof why - w : 0, __VA_ARGS__))
    if (in.nslots != p->nslots)
        WHY("; it has %u slots, %u configured", in.nslots, p->nslots);
    if (in.slot_size != rounded(p->slot_size, in.page_size))
        WHY("; its slots are %s, %s configured", zk_size_human(in.slot_size, b1, sizeof b1),
            zk_size_human(p->slot_size, b2, sizeof b2));
    if ((p->flags & ZK_POOL_CREATE_HUGETLB) && in.backing != ZK_POOL_BACKING_HUGETLBFS)
        WHY("; it is on %s, huge pages required (hugepages = yes / --hugetlb)",
            backing_name(in.backing));
    if ((p->flags & ZK_POOL_CREATE_TMPFS) && in.backing != ZK_POOL_BACKING_TMPFS)
        WHY("; it is on %s, tmpfs required (hugepages = no / --tmpfs)", backing_name(in.backing));
    for (uint32_t i = 0; i < in.nslots && i < p->nslots; i++) {
        struct zk_pool_slot_info si;
        int want = p->n_numa_nodes ? p->numa_nodes[i % p->n_numa_nodes] : -1;
        if (zk_pool_slot_info(h, i, &si) == 0 && si.numa_node != want) {
            WHY("; slot %u is placed on NUMA node %d, %d configured", i, si.numa_node, want);
            break;
        }
    }
    if (p->dir) {
        char *real_pool = realpath(path, NULL), *real_dir = realpath(p->dir, NULL);
        const char *slash = real_pool ? strrchr(real_pool, '/') : NULL;
        if (!real_pool || !real_dir || !slash ||
            strlen(real_dir) != (size_t)(slash - real_pool) ||
            strncmp(real_pool, real_dir, (size_t)(slash - real_pool)))
            WHY("; its data is in %s, not in %s", real_pool ? real_pool : path, p->dir);
        free(real_pool);
        free(real_dir);
    }
#undef WHY
    zk_pool_detach(h);
    free(h);
    if (w) {
        fprintf(stderr, "zkslot pool create: pool %s already exists with another geometry%s.\n"
                        "  destroy it first (zkslot pool destroy; partitions in it are lost)"
                        " or change the configuration\n", path, why);
        return 2;
    }
    printf("pool %s already exists, geometry matches: %u slots x %s, %s\n", path, in.nslots,
           zk_size_human(in.slot_size, b1, sizeof b1), backing_name(in.backing));
    if (in.backing != ZK_POOL_BACKING_HUGETLBFS)
        fprintf(stderr, "warning: huge pages are not in use (tmpfs backing); see docs/pool.md\n");
    return 0;
}

#define POOL_HUGETLBFS_MAGIC 0x958458f6L
#define POOL_TMPFS_MAGIC 0x01021994L

/*
 * The causes zk_pool_create folds into ZK_EBADPARAMS, each named with the
 * flag or [pool] option that asked for it: a NUMA node this machine does
 * not have (its nodes listed), a dir whose file system contradicts the
 * hugepages setting, a dir on neither tmpfs nor hugetlbfs.  0 when none
 * applies (printed otherwise, returns 2).
 */
static int create_precheck(const struct zk_pool_params *p, const char *nodes_src,
                           const char *dir_src, int hp, const char *hp_src)
{
    int have = pool_numa_node_count();
    for (unsigned i = 0; i < p->n_numa_nodes; i++) {
        if (p->numa_nodes[i] >= have) {
            char nodes[32];
            if (have == 1)
                snprintf(nodes, sizeof nodes, "node 0 only");
            else
                snprintf(nodes, sizeof nodes, "nodes 0-%d", have - 1);
            fprintf(stderr, "zkslot pool create: %s: NUMA node %d does not exist on this"
                            " machine (it has %s)\n", nodes_src, p->numa_nodes[i], nodes);
            return 2;
        }
    }
    struct statfs sf;
    if (!p->dir || statfs(p->dir, &sf) < 0)
        return 0;   /* no dir, or zk_pool_create names the errno */
    long t = (long)sf.f_type;
    if (t == POOL_HUGETLBFS_MAGIC && hp == ZK_HUGEPAGES_NO) {
        fprintf(stderr, "zkslot pool create: %s %s is a hugetlbfs mount, but %s asks for tmpfs:"
                        " set hugepages = auto or yes, or a tmpfs directory\n", dir_src, p->dir,
                hp_src);
        return 2;
    }
    if (t == POOL_TMPFS_MAGIC && hp == ZK_HUGEPAGES_YES) {
        fprintf(stderr, "zkslot pool create: %s %s is tmpfs, but %s asks for huge pages:"
                        " set hugepages = auto or no, or a hugetlbfs directory\n", dir_src,
                p->dir, hp_src);
        return 2;
    }
    if (t != POOL_HUGETLBFS_MAGIC && t != POOL_TMPFS_MAGIC) {
        fprintf(stderr, "zkslot pool create: %s %s is neither tmpfs nor hugetlbfs"
                        " (a pool on disk would page to disk)\n", dir_src, p->dir);
        return 2;
    }
    return 0;
}

static int do_create(int argc, char **argv)
{
    static const struct option opts[] = {
        { "slots", required_argument, 0, 's' }, { "slot-size", required_argument, 0, 'z' },
        { "path", required_argument, 0, 'd' },  { "numa-nodes", required_argument, 0, 'n' },
        { "pool", required_argument, 0, 'p' },  { "tmpfs", no_argument, 0, 't' },
        { "hugetlb", no_argument, 0, 'H' },     { "exist-ok", no_argument, 0, 'e' },
        { "config", required_argument, 0, 'C' }, { 0, 0, 0, 0 }
    };
    struct zk_pool_params p = { 0 };
    struct zk_pool_create_result res;
    struct zk_config cfg;
    const char *flag = NULL, *dir = NULL, *nodes_s = NULL;
    int nodes[64], c, exist_ok = !strcmp(argv[0], "ensure"), hp_flag = -1;
    uint64_t v;
    char b[32];
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (zk_pool_parse_size(optarg, &v) < 0 || v == 0 || v > ZK_POOL_MAX_SLOTS) {
                fprintf(stderr, "zkslot pool create: bad --slots '%s' (1..%d)\n", optarg,
                        ZK_POOL_MAX_SLOTS);
                return 2;
            }
            p.nslots = (uint32_t)v;
            break;
        case 'z':
            if (zk_pool_parse_size(optarg, &p.slot_size) < 0 || p.slot_size == 0) {
                fprintf(stderr, "zkslot pool create: bad --slot-size '%s' (e.g. 16G, 512M)\n",
                        optarg);
                return 2;
            }
            break;
        case 'd': dir = optarg; break;
        case 'p': flag = optarg; break;
        case 't': hp_flag = ZK_HUGEPAGES_NO; break;
        case 'H': hp_flag = ZK_HUGEPAGES_YES; break;
        case 'e': exist_ok = 1; break;
        case 'C': config_flag = optarg; break;
        case 'n': nodes_s = optarg; break;
        default:
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "zkslot pool create: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (nodes_s && zk_config_parse_nodes(nodes_s, nodes, 64, &p.n_numa_nodes) < 0) {
        fprintf(stderr, "zkslot pool create: bad --numa-nodes '%s' (e.g. 0,1)\n", nodes_s);
        return 2;
    }
    if (load_config("create", &cfg) < 0)
        return 2;
    /* flags override the file */
    if (!p.nslots)
        p.nslots = cfg.pool_slots;
    if (!p.slot_size)
        p.slot_size = cfg.pool_slot_size;
    if (!dir && cfg.pool_dir[0])
        dir = cfg.pool_dir;
    p.dir = dir;
    if (!nodes_s && cfg.pool_numa_nodes[0] &&
        zk_config_parse_nodes(cfg.pool_numa_nodes, nodes, 64, &p.n_numa_nodes) < 0)
        return 2;   /* validated when the file was read */
    if (p.n_numa_nodes)
        p.numa_nodes = nodes;
    int hp = hp_flag >= 0 ? hp_flag : cfg.pool_hugepages;
    if (hp == ZK_HUGEPAGES_NO)
        p.flags |= ZK_POOL_CREATE_TMPFS;
    else if (hp == ZK_HUGEPAGES_YES)
        p.flags |= ZK_POOL_CREATE_HUGETLB;
    char nodes_src[2400], dir_src[1100], hp_src[1100];
    const char *file = cfg.source[0] ? cfg.source : ZK_CONFIG_DEFAULT_PATH;
    if (nodes_s)
        snprintf(nodes_src, sizeof nodes_src, "--numa-nodes %s", nodes_s);
    else
        snprintf(nodes_src, sizeof nodes_src, "%s: [pool] numa_nodes = %s", file,
                 cfg.pool_numa_nodes);
    if (dir == cfg.pool_dir)
        snprintf(dir_src, sizeof dir_src, "%s: [pool] dir", file);
    else
        snprintf(dir_src, sizeof dir_src, "--path");
    if (hp_flag >= 0)
        snprintf(hp_src, sizeof hp_src, "%s", hp_flag == ZK_HUGEPAGES_NO ? "--tmpfs" : "--hugetlb");
    else
        snprintf(hp_src, sizeof hp_src, "[pool] hugepages = %s in %s",
                 hp == ZK_HUGEPAGES_NO ? "no" : hp == ZK_HUGEPAGES_YES ? "yes" : "auto", file);
    if (!p.nslots || !p.slot_size) {
        fprintf(stderr, "zkslot pool create: the %s is not set: give --slots N --slot-size SIZE,"
                        " or set [pool] slots and slot_size in %s\n",
                !p.nslots ? "slot count" : "slot size",
                cfg.source[0] ? cfg.source : ZK_CONFIG_DEFAULT_PATH);
        fprintf(stderr, "usage: zkslot pool create --slots N --slot-size SIZE [--path DIR]"
                        " [--numa-nodes LIST] [--tmpfs|--hugetlb] [--exist-ok] [--pool PATH]"
                        " [--config FILE]\n");
        return 2;
    }
    const char *path = flag ? flag : cfg.pool;
    struct stat pst;
    if (lstat(path, &pst) < 0 && create_precheck(&p, nodes_src, dir_src, hp, hp_src))
        return 2;   /* an existing pool is compared below, not re-checked */
    int r = zk_pool_create(path, &p, &res), old = 1;
    if (r == -EEXIST && exist_ok && (old = replace_old(path)) == 0)
        r = zk_pool_create(path, &p, &res);
    if (old == 2)
        return 2;
    if (r == -EEXIST && exist_ok)
        return compare_existing(path, &p);
    if (r == ZK_ENOHUGEPAGES && res.pages_needed) {
        print_hugepage_shortage(&res);
        return 2;
    }
    if (r < 0) {
        fprintf(stderr, "zkslot pool create: %s: %s%s\n", path, zk_strerror(r),
                r == ZK_EBADPARAMS ? " (the directory must be on tmpfs or hugetlbfs)"
                : r == -EEXIST     ? " (a pool is there already; --exist-ok accepts it)"
                                   : "");
        return 2;
    }
    printf("created pool %s: %u slots x %s, %s in %s\n", path, p.nslots,
           zk_size_human(p.slot_size, b, sizeof b),
           res.backing == ZK_POOL_BACKING_HUGETLBFS ? "huge pages" : "tmpfs", res.file);
    if (res.backing != ZK_POOL_BACKING_HUGETLBFS)
        fprintf(stderr, "warning: huge pages are not in use (tmpfs backing)%s; see docs/pool.md\n",
                res.hugepages_unmounted ? ": huge pages are reserved but no hugetlbfs is mounted"
                                        : "");
    return 0;
}

static int open_pool(const char *path, zk_pool **ret, unsigned flags)
{
    struct zk_diag d;
    struct zk_pool_attach_opts o = { .name = "zkslot", .flags = flags, .diag = &d };
    zk_pool *h = malloc(zk_pool_sizeof());
    if (!h)
        return -ENOMEM;
    int r = zk_pool_attach(h, path, &o);
    if (r < 0) {
        free(h);
        fprintf(stderr, "zkslot pool: %s\n", d.msg);
        return r;
    }
    *ret = h;
    return 0;
}

static char pool_buf[sizeof ((struct zk_config *)0)->pool];

/* The pool is shown with its producers' reserve ([pool] reserve of the
 * configuration read by opt_pool; none with --pool). */
static unsigned pool_reserve;
static int pool_reserve_class;

static const char *opt_pool(int argc, char **argv, int *json, int *force)
{
    const char *flag = NULL;
    struct zk_config cfg;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pool") && i + 1 < argc)
            flag = argv[++i];
        else if (!strncmp(argv[i], "--pool=", 7))
            flag = argv[i] + 7;
        else if (!strcmp(argv[i], "--config") && i + 1 < argc)
            config_flag = argv[++i];
        else if (!strncmp(argv[i], "--config=", 9))
            config_flag = argv[i] + 9;
        else if (json && !strcmp(argv[i], "--json"))
            *json = 1;
        else if (force && !strcmp(argv[i], "--force"))
            *force = 1;
        else {
            fprintf(stderr, "zkslot pool %s: unknown argument '%s'\n", argv[0], argv[i]);
            return NULL;
        }
    }
    if (flag)
        return flag;
    if (load_config(argv[0], &cfg) < 0)
        return NULL;
    memcpy(pool_buf, cfg.pool, sizeof pool_buf);
    pool_reserve = cfg.pool_reserve;
    pool_reserve_class = cfg.pool_reserve_class;
    return pool_buf;
}

static const char *backing_name(int b)
{
    return b == ZK_POOL_BACKING_HUGETLBFS ? "hugetlbfs" : "tmpfs";
}

static json_t *status_json(const char *path, const zk_pool *h, const struct zk_pool_info *in)
{
    static const char *const cn[ZK_PC_COUNT] = {
        "acquired", "published", "abandoned", "claimed", "unclaimed", "released",
        "reaped_filling", "reaped_claimed", "checksum_failures", "resyncs" };
    uint64_t now = (uint64_t)time(NULL) * 1000000000ULL;
    json_t *o = json_object(), *slots = json_array(), *procs = json_array(), *ctr = json_object();
    json_object_set_new(o, "path", json_string(path));
    json_object_set_new(o, "backing", json_string(backing_name(in->backing)));
    json_object_set_new(o, "huge_pages", json_boolean(in->backing == ZK_POOL_BACKING_HUGETLBFS));
    json_object_set_new(o, "page_size", json_integer((json_int_t)in->page_size));
    json_object_set_new(o, "slots", json_integer(in->nslots));
    json_object_set_new(o, "slot_size", json_integer((json_int_t)in->slot_size));
    json_object_set_new(o, "file_size", json_integer((json_int_t)in->file_size));
    json_object_set_new(o, "data_readable", json_boolean(zk_pool_data_readable(h)));
    json_object_set_new(o, "sem_free", json_integer(in->sem_free));
    json_object_set_new(o, "sem_ready", json_integer(in->sem_ready));
    for (int s = 0; s < 4; s++)
        json_object_set_new(o, zk_slot_state_name(s), json_integer(in->count[s]));
    for (int c = 0; c < ZK_PC_COUNT; c++)
        json_object_set_new(ctr, cn[c], json_integer((json_int_t)in->counters[c]));
    json_object_set_new(o, "counters", ctr);
    for (uint32_t i = 0; i < in->nslots; i++) {
        struct zk_pool_slot_info si;
        zk_pool_slot_info(h, i, &si);
        json_t *s = json_object();
        json_object_set_new(s, "index", json_integer(i));
        json_object_set_new(s, "state", json_string(zk_slot_state_name(si.state)));
        json_object_set_new(s, "numa_node", json_integer(si.numa_node));
        json_object_set_new(s, "owner_pid", si.owner_pid ? json_integer(si.owner_pid) : json_null());
        if (si.owner_alive >= 0)
            json_object_set_new(s, "owner_alive", json_boolean(si.owner_alive));
        json_object_set_new(s, "partition", si.partition_id == ZK_POOL_NO_ID
                                                ? json_null() : json_integer((json_int_t)si.partition_id));
        json_object_set_new(s, "key", si.key_id == ZK_POOL_NO_ID
                                          ? json_null() : json_integer((json_int_t)si.key_id));
        json_object_set_new(s, "bytes", json_integer((json_int_t)si.bytes));
        json_object_set_new(s, "reserved", json_boolean(si.reserved));
        json_object_set_new(s, "class", si.state == ZK_SLOT_READY || si.state == ZK_SLOT_CLAIMED
                                            ? json_string(zk_priority_name((int)si.priority))
                                            : json_null());
        json_object_set_new(s, "age_s", json_real(now > si.state_ns ? (double)(now - si.state_ns) / 1e9 : 0));
        json_array_append_new(slots, s);
    }
    json_object_set_new(o, "slot_table", slots);
    for (unsigned i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        struct zk_pool_attach_info ai;
        if (zk_pool_attach_info(h, i, &ai) < 0)
            continue;
        json_t *p = json_object();
        json_object_set_new(p, "pid", json_integer(ai.pid));
        json_object_set_new(p, "name", json_string(ai.name));
        json_object_set_new(p, "alive", json_boolean(ai.alive));
        json_array_append_new(procs, p);
    }
    json_object_set_new(o, "attached", procs);
    return o;
}

static void status_text(const char *path, const zk_pool *h, const struct zk_pool_info *in)
{
    char b1[32], b2[32], b3[32];
    uint64_t now = (uint64_t)time(NULL) * 1000000000ULL;
    printf("pool %s\n  backing: %s, huge pages %s (page %s)\n", path, backing_name(in->backing),
           in->backing == ZK_POOL_BACKING_HUGETLBFS ? "in use" : "NOT in use",
           zk_size_human(in->page_size, b1, sizeof b1));
    printf("  %u slots x %s (file %s)\n", in->nslots, zk_size_human(in->slot_size, b2, sizeof b2),
           zk_size_human(in->file_size, b3, sizeof b3));
    if (!zk_pool_data_readable(h))
        printf("  slot data: not readable by this user (the daemons' user and root only)\n");
    printf("  FREE %u  FILLING %u  READY %u  CLAIMED %u   semaphores: free %d, ready %d\n",
           in->count[0], in->count[1], in->count[2], in->count[3], in->sem_free, in->sem_ready);
    printf("  published %llu, claimed %llu, released %llu, reaped %llu+%llu, checksum failures %llu\n",
           (unsigned long long)in->counters[ZK_PC_PUBLISHED],
           (unsigned long long)in->counters[ZK_PC_CLAIMED],
           (unsigned long long)in->counters[ZK_PC_RELEASED],
           (unsigned long long)in->counters[ZK_PC_REAPED_FILLING],
           (unsigned long long)in->counters[ZK_PC_REAPED_CLAIMED],
           (unsigned long long)in->counters[ZK_PC_CHECKSUM_FAIL]);
    printf("  %-5s %-8s %-4s %-12s %-10s %-10s %10s %9s %s\n", "slot", "state", "node", "owner",
           "partition", "key", "bytes", "age", "class");
    for (uint32_t i = 0; i < in->nslots; i++) {
        struct zk_pool_slot_info si;
        char owner[24] = "-", part[24] = "-", key[24] = "-";
        zk_pool_slot_info(h, i, &si);
        if (si.owner_pid)
            snprintf(owner, sizeof owner, "%d%s", si.owner_pid, si.owner_alive ? "" : " DEAD");
        if (si.partition_id != ZK_POOL_NO_ID)
            snprintf(part, sizeof part, "%llu", (unsigned long long)si.partition_id);
        if (si.key_id != ZK_POOL_NO_ID)
            snprintf(key, sizeof key, "%llu", (unsigned long long)si.key_id);
        printf("  %-5u %-8s %-4d %-12s %-10s %-10s %10s %8.1fs %s%s\n", i,
               zk_slot_state_name(si.state), si.numa_node, owner, part, key,
               zk_size_human(si.bytes, b1, sizeof b1),
               now > si.state_ns ? (double)(now - si.state_ns) / 1e9 : 0.0,
               si.state == ZK_SLOT_READY || si.state == ZK_SLOT_CLAIMED
                   ? zk_priority_name((int)si.priority)
                   : "-",
               si.reserved ? " (reserved)" : "");
    }
    printf("  attached processes: %u live, %u dead\n", in->attached_live, in->attached_dead);
    for (unsigned i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        struct zk_pool_attach_info ai;
        if (zk_pool_attach_info(h, i, &ai) == 0)
            printf("    pid %d %s%s\n", ai.pid, ai.name, ai.alive ? "" : " (dead)");
    }
}

static int do_status(int argc, char **argv)
{
    int json = 0;
    zk_pool *h;
    struct zk_pool_info in;
    const char *path = opt_pool(argc, argv, &json, NULL);
    if (!path)
        return 2;
    if (open_pool(path, &h, ZK_POOL_OBSERVER) < 0)
        return 2;
    zk_pool_set_reserve(h, pool_reserve, pool_reserve_class);
    zk_pool_info(h, &in);
    if (json) {
        json_t *o = status_json(path, h, &in);
        json_dumpf(o, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(o);
    } else {
        status_text(path, h, &in);
    }
    zk_pool_detach(h);
    free(h);
    return 0;
}

static void print_violation(void *ctx, const char *msg)
{
    (void)ctx;
    printf("violation: %s\n", msg);
}

static void print_note(void *ctx, const char *msg)
{
    (void)ctx;
    printf("note: %s\n", msg);
}

static int do_check(int argc, char **argv)
{
    zk_pool *h;
    const char *path = opt_pool(argc, argv, NULL, NULL);
    if (!path || open_pool(path, &h, ZK_POOL_OBSERVER) < 0)
        return 2;
    int n = zk_pool_check_notes(h, print_violation, print_note, NULL);
    zk_pool_detach(h);
    free(h);
    if (n)
        printf("pool %s: %d violation%s\n", path, n, n == 1 ? "" : "s");
    else
        printf("pool %s: healthy\n", path);
    return n ? 1 : 0;
}

static void print_reaped(void *ctx, uint32_t index, int old_state, int32_t pid, uint64_t part)
{
    (void)ctx;
    printf("slot %u: %s by dead process %d -> %s (partition %lld)\n", index,
           zk_slot_state_name(old_state), (int)pid,
           old_state == ZK_SLOT_FILLING ? "FREE" : "READY",
           part == ZK_POOL_NO_ID ? -1LL : (long long)part);
}

static int do_reap(int argc, char **argv)
{
    zk_pool *h;
    struct zk_pool_reap_stats st;
    const char *path = opt_pool(argc, argv, NULL, NULL);
    if (!path || open_pool(path, &h, ZK_POOL_NO_REAP) < 0)
        return 2;
    int r = zk_pool_reap(h, ZK_POOL_REAP_RESYNC, print_reaped, NULL, &st);
    zk_pool_detach(h);
    free(h);
    if (r < 0) {
        fprintf(stderr, "zkslot pool reap: %s\n", zk_strerror(r));
        return 2;
    }
    printf("reaped: %u FILLING -> FREE, %u CLAIMED -> READY, %u dead attach entries;"
           " semaphores %s (free %+d, ready %+d)\n", st.filling_freed, st.claimed_requeued,
           st.attach_cleared, st.resynced ? "resynced" : "left (other processes live)",
           st.free_adjust, st.ready_adjust);
    return 0;
}

static int do_destroy(int argc, char **argv)
{
    int force = 0;
    unsigned live = 0;
    const char *path = opt_pool(argc, argv, NULL, &force);
    if (!path)
        return 2;
    int r = zk_pool_destroy(path, force, &live);
    if (r == ZK_EBUSY) {
        fprintf(stderr, "zkslot pool destroy: %s: %u live process%s attached;"
                        " stop them or use --force\n", path, live, live == 1 ? "" : "es");
        return 2;
    }
    unsigned stores = zk_keystore_remove_all(path);   /* they go with their pool */
    if (stores)
        printf("removed %u key store%s beside the pool\n", stores, stores == 1 ? "" : "s");
    if (r < 0) {
        fprintf(stderr, "zkslot pool destroy: %s: %s\n", path, zk_strerror(r));
        return 2;
    }
    printf("destroyed pool %s%s\n", path, live ? " (forced; attached processes keep their mapping)" : "");
    return 0;
}

int cmd_pool(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } sub[] = { { "create", do_create }, { "status", do_status }, { "check", do_check },
                { "reap", do_reap },     { "destroy", do_destroy },
                { "ensure", do_create } };
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
            if (!strcmp(argv[1], sub[i].name)) {
                optind = 1;
                return sub[i].fn(argc - 1, argv + 1);
            }
        }
    }
    fprintf(stderr,
            "usage: zkslot pool create [--slots N] [--slot-size SIZE] [--path DIR] [--numa-nodes LIST]\n"
            "                          [--tmpfs|--hugetlb] [--exist-ok] [--pool PATH]\n"
            "       zkslot pool ensure ...             (create --exist-ok: an existing pool of\n"
            "                                           the same geometry is success)\n"
            "       zkslot pool status [--json] [--pool PATH]\n"
            "       zkslot pool check [--pool PATH]     (exit 1 on violations)\n"
            "       zkslot pool reap [--pool PATH]      (recover slots of dead processes)\n"
            "       zkslot pool destroy [--force] [--pool PATH]\n"
            "  every subcommand takes --config FILE (else $ZKSLOT_CONFIG, else %s);\n"
            "  create takes its geometry from [pool] slots, slot_size, dir, numa_nodes, hugepages\n"
            "  pool path: --pool, $ZKSLOT_POOL, [pool] path, else %s\n",
            ZK_CONFIG_DEFAULT_PATH, ZK_POOL_RUN_PATH " when " ZK_POOL_RUN_DIR " exists, else "
            ZK_POOL_SHM_PATH);
    return 2;
}

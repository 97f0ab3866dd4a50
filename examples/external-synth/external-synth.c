/*
 * external-synth -- an external synthesizer on libzkslot's producer face
 * (docs/library.md): creates a job for a registered key, writes one
 * partition per witness file into a pool slot, publishes it for gpud, and
 * prints the job id on its last line.  The witness is read from a .wtns
 * here (this program's own reader: it stands for any synthesizer that has
 * the values in memory); the library computes a, b and c from the key.
 *
 *   external-synth [--ledger URL] [--pool PATH] [--job ID] [--hold-ms MS]
 *                  KEY_NAME WITNESS.wtns...
 *
 * --job ID fills the queued partitions of an existing job (partition i
 * from the i-th witness): what a restarted producer does after a crash.
 * --hold-ms MS waits MS after writing each witness, before publishing
 * (a window for a test to kill it mid-write).
 * Exit 0, 1 on a failure (one line on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zkslot.h>

/* The values of a .wtns (snarkjs/circom's format: "wtns", version, the
 * sections: 1 = field size, prime, count; 2 = the values) into *ret
 * (malloc'd, 32 bytes each) and their count. */
static int read_wtns(const char *path, unsigned char **ret, uint64_t *ret_n)
{
    FILE *f = fopen(path, "rb");
    unsigned char magic[4];
    uint32_t version, nsec, n8 = 0, count = 0;
    unsigned char *vals = NULL;
    if (!f) {
        fprintf(stderr, "external-synth: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "wtns", 4) ||
        fread(&version, 4, 1, f) != 1 || fread(&nsec, 4, 1, f) != 1)
        goto bad;
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t type;
        uint64_t size;
        if (fread(&type, 4, 1, f) != 1 || fread(&size, 8, 1, f) != 1)
            goto bad;
        long at = ftell(f);
        if (type == 1) {
            unsigned char prime[64];
            if (fread(&n8, 4, 1, f) != 1 || n8 != 32 || fread(prime, 1, n8, f) != n8 ||
                fread(&count, 4, 1, f) != 1)
                goto bad;
        } else if (type == 2 && n8 && count) {
            if (size != (uint64_t)count * n8 || !(vals = malloc(size)) ||
                fread(vals, 1, size, f) != size)
                goto bad;
        }
        if (fseek(f, at + (long)size, SEEK_SET) != 0)
            goto bad;
    }
    fclose(f);
    if (!vals)
        goto bad_closed;
    *ret = vals;
    *ret_n = count;
    return 0;
bad:
    fclose(f);
bad_closed:
    free(vals);
    fprintf(stderr, "external-synth: %s: not a .wtns with 32-byte values\n", path);
    return -1;
}

int main(int argc, char **argv)
{
    const char *ledger = NULL, *pool = NULL;
    long long job = 0;
    long hold_ms = 0;
    char msg[1024];
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--ledger"))
            ledger = argv[i + 1];
        else if (!strcmp(argv[i], "--pool"))
            pool = argv[i + 1];
        else if (!strcmp(argv[i], "--job"))
            job = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--hold-ms"))
            hold_ms = atol(argv[i + 1]);
        else
            break;
    }
    if (argc - i < 2) {
        fprintf(stderr, "usage: external-synth [--ledger URL] [--pool PATH] [--job ID] "
                "[--hold-ms MS] KEY_NAME WITNESS.wtns...\n");
        return 2;
    }
    const char *key = argv[i];
    char **wtns = argv + i + 1;
    unsigned nw = (unsigned)(argc - i - 1);

    zkslot *z = NULL;
    zkslot_producer *p = NULL;
    int rc = 1;
    if (zkslot_open(ledger, NULL, &z, msg, sizeof msg) < 0 ||
        zkslot_producer_open(z, pool, &p, msg, sizeof msg) < 0) {
        fprintf(stderr, "external-synth: %s\n", msg);
        goto out;
    }
    int64_t id = job;
    if (!id && zkslot_job_create(p, key, nw, NULL, &id, msg, sizeof msg) < 0) {
        fprintf(stderr, "external-synth: %s\n", msg);
        goto out;
    }
    fprintf(stderr, "external-synth: job %lld, %u partition(s)\n", (long long)id, nw);
    for (;;) {
        struct zkslot_part *part;
        int r = zkslot_part_take(p, id, -1, &part, msg, sizeof msg);
        if (r == -ENOENT)   /* every partition taken */
            break;
        if (r < 0) {
            fprintf(stderr, "external-synth: %s\n", msg);
            goto out;
        }
        unsigned char *vals;
        uint64_t n;
        if (part->index >= nw || read_wtns(wtns[part->index], &vals, &n) < 0 ||
            (n != part->n_vars && (free(vals), 1))) {
            fprintf(stderr, "external-synth: partition %u: no witness of %llu values for it\n",
                    part->index, (unsigned long long)part->n_vars);
            zkslot_part_abandon(p, part, msg, sizeof msg);
            goto out;
        }
        memcpy(part->witness, vals, n * 32);   /* straight into the slot */
        free(vals);
        if (hold_ms > 0) {
            fprintf(stderr, "external-synth: partition %u written in slot %u, holding\n",
                    part->index, part->slot);
            struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
        unsigned index = part->index;
        if (zkslot_part_publish(p, part, 0, msg, sizeof msg) < 0) {
            fprintf(stderr, "external-synth: %s\n", msg);
            goto out;
        }
        fprintf(stderr, "external-synth: partition %u published\n", index);
    }
    printf("%lld\n", (long long)id);
    rc = 0;
out:
    zkslot_producer_close(p);
    zkslot_close(z);
    return rc;
}

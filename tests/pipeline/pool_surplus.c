/*
 * pool_surplus.c -- for test_stop_resync.sh: attaches the pool at argv[1]
 * as a writer and posts one `free` permit more than there are FREE slots,
 * the state a take without a permit racing a publish can leave (docs/
 * pool.md), then detaches (a plain detach: no resync).  Exit 0, or 1 with
 * the reason on stderr.
 */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "pool/layout.h"
#include "zk/binfile.h"
#include "zk/pool.h"

int main(int argc, char **argv)
{
    struct zk_diag d = { "" };
    zk_pool *h = calloc(1, zk_pool_sizeof());
    struct zk_pool_attach_opts o = { "surplus", 0, 0, &d };
    if (argc != 2 || !h || zk_pool_attach(h, argv[1], &o)) {
        fprintf(stderr, "pool_surplus: %s\n", argc != 2 ? "usage: pool_surplus POOL" : d.msg);
        return 1;
    }
    sem_post(&h->hdr->sem_free);
    zk_pool_detach(h);
    free(h);
    return 0;
}

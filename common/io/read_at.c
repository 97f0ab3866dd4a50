/*
 * read_at.c -- zk_io_read_at(): read a byte range of a file into caller
 * memory.  The only file of common/io/ that knows about io_uring: with
 * ZK_HAVE_URING, large reads are split into chunks kept in flight on a
 * short-lived ring; without it (or when the ring cannot be set up, e.g. in
 * a sandbox that forbids io_uring) plain pread loops do the work.
 */
#include <errno.h>
#include <unistd.h>

#include "io_internal.h"
#include "zk/error.h"

#if ZK_HAVE_URING
#include <liburing.h>
#endif

#define ZK_IO_CHUNK ((size_t)4 << 20)   /* bytes per request */

static int read_pread(int fd, uint64_t off, uint8_t *dst, size_t len)
{
    while (len) {
        size_t want = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t got = pread(fd, dst, want, (off_t)off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (got == 0)
            return ZK_ETRUNCATED;
        dst += got;
        off += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}

#if ZK_HAVE_URING
#define ZK_IO_DEPTH 8u
#define ZK_IO_URING_MIN ((size_t)16 << 20)  /* smaller reads: pread is cheaper */

struct uring_req {
    uint64_t off;
    uint8_t *dst;
    size_t len;
};

static void queue_req(struct io_uring *ring, int fd, struct uring_req *q)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);   /* depth <= ring size */
    io_uring_prep_read(sqe, fd, q->dst, (unsigned)q->len, q->off);
    io_uring_sqe_set_data(sqe, q);
}

/*
 * Returns 0, ZK_ETRUNCATED, -errno, or 1 when the ring could not be set
 * up at all (the caller then falls back to pread).
 */
static int read_uring(int fd, uint64_t off, uint8_t *dst, size_t len)
{
    struct io_uring ring;
    struct uring_req reqs[ZK_IO_DEPTH];
    unsigned inflight = 0;
    size_t next = 0;    /* bytes of [0, len) handed to a request */
    int rc = 0;

    if (io_uring_queue_init(ZK_IO_DEPTH, &ring, 0) < 0)
        return 1;
    for (unsigned i = 0; i < ZK_IO_DEPTH && next < len; i++) {
        size_t n = len - next < ZK_IO_CHUNK ? len - next : ZK_IO_CHUNK;
        reqs[i] = (struct uring_req){ off + next, dst + next, n };
        queue_req(&ring, fd, &reqs[i]);
        next += n;
        inflight++;
    }
    while (inflight) {
        struct io_uring_cqe *cqe;
        io_uring_submit(&ring);
        int w = io_uring_wait_cqe(&ring, &cqe);
        if (w == -EINTR)
            continue;
        if (w < 0) {
            rc = w;
            break;
        }
        struct uring_req *q = io_uring_cqe_get_data(cqe);
        int res = cqe->res;
        io_uring_cqe_seen(&ring, cqe);
        inflight--;
        if (res == -EINTR || res == -EAGAIN) {
            res = 0;                     /* retry the same range */
        } else if (res < 0 || (res == 0 && q->len)) {
            if (!rc)
                rc = res < 0 ? res : ZK_ETRUNCATED;
            continue;
        }
        q->off += (uint64_t)res;         /* short read: continue the range */
        q->dst += res;
        q->len -= (size_t)res;
        if (rc)
            continue;                    /* drain after an error */
        if (!q->len && next < len) {
            size_t n = len - next < ZK_IO_CHUNK ? len - next : ZK_IO_CHUNK;
            *q = (struct uring_req){ off + next, dst + next, n };
            next += n;
        }
        if (q->len) {
            queue_req(&ring, fd, q);
            inflight++;
        }
    }
    io_uring_queue_exit(&ring);
    return rc;
}
#endif

int zk_io_read_at(int fd, uint64_t off, void *dst, size_t len)
{
#if ZK_HAVE_URING
    if (len >= ZK_IO_URING_MIN) {
        int rc = read_uring(fd, off, dst, len);
        if (rc <= 0)
            return rc;
    }
#endif
    return read_pread(fd, off, dst, len);
}

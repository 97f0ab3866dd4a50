/* test_atomicfile.c -- the one atomic file write (common/util/atomicfile.c):
 * whole or nothing, a symlink planted at the temporary name never followed,
 * and the streamed form (zk_atomic_begin / commit / abort) that
 * `zkslot setup` writes its keys through, and zk_atomic_sync /
 * zk_atomic_commit_all (`zkslot prove`'s two files, one directory sync). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/util.h"
#include "zktest.h"

static char dir[] = "/tmp/zk_atomicfile.XXXXXX";

static char *at(const char *name)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

/* the file's contents ("" when absent, NULL never) */
static const char *slurp(const char *path)
{
    static char buf[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    if (fd >= 0)
        close(fd);
    return buf;
}

static int entries(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 0", dir);
    return system(cmd) != 0;
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    ZT_CHECK(mkdtemp(dir) != NULL);

    /* a new file, then replaced whole */
    ZT_CHECK(zk_write_atomic(at("a"), "one", 3, 0640) == 0);
    ZT_CHECK(!strcmp(slurp(at("a")), "one"));
    ZT_CHECK(zk_write_atomic(at("a"), "second", 6, 0640) == 0);
    ZT_CHECK(!strcmp(slurp(at("a")), "second"));
    ZT_CHECK(zk_write_atomic(at("none/a"), "x", 1, 0640) == -ENOENT);
    ZT_CHECK(zk_write_atomic(at(""), "x", 1, 0640) == -EISDIR);

    /* a symlink planted at this process's temporary name, to a file the
     * process may write: removed, never followed */
    char tmpname[64];
    snprintf(tmpname, sizeof tmpname, "b.tmp.%d", (int)getpid());
    ZT_CHECK(zk_write_atomic(at("victim"), "keep", 4, 0600) == 0);
    ZT_CHECK(symlink(at("victim"), at(tmpname)) == 0);
    ZT_CHECK(zk_write_atomic(at("b"), "new", 3, 0644) == 0);
    ZT_CHECK(!strcmp(slurp(at("victim")), "keep"), "the planted link was followed");
    ZT_CHECK(!strcmp(slurp(at("b")), "new"));
    struct stat st;
    ZT_CHECK(lstat(at("b"), &st) == 0 && S_ISREG(st.st_mode));
    ZT_CHECK(lstat(at(tmpname), &st) < 0 && errno == ENOENT);

    /* streamed: written through the fd, in place only at commit */
    struct zk_atomic_file f;
    ZT_CHECK(zk_atomic_begin(&f, at("c"), 0644) == 0);
    ZT_CHECK(write(f.fd, "stream", 6) == 6);
    ZT_CHECK(access(at("c"), F_OK) < 0, "visible before commit");
    ZT_CHECK(zk_atomic_commit(&f) == 0);
    ZT_CHECK(!strcmp(slurp(at("c")), "stream"));
    /* aborted: the old file stays, no temporary file is left */
    ZT_CHECK(zk_atomic_begin(&f, at("c"), 0644) == 0);
    ZT_CHECK(write(f.fd, "half", 4) == 4);
    zk_atomic_abort(&f);
    ZT_CHECK(!strcmp(slurp(at("c")), "stream"));
    ZT_CHECK(zk_atomic_begin(&f, at("none/c"), 0644) == -ENOENT);
    zk_atomic_abort(&f);      /* harmless after a failed begin */

    /* two files committed together, in order: one synced early, both
     * invisible until the commit, both in place after it */
    struct zk_atomic_file p, q;
    struct zk_atomic_file *pq[2] = { &p, &q };
    size_t failed = 99;
    ZT_CHECK(zk_atomic_begin(&p, at("p"), 0644) == 0);
    ZT_CHECK(zk_atomic_begin(&q, at("q"), 0644) == 0);
    ZT_CHECK(write(q.fd, "public", 6) == 6);
    ZT_CHECK(zk_atomic_sync(&q) == 0);
    ZT_CHECK(write(p.fd, "proof", 5) == 5);
    ZT_CHECK(access(at("p"), F_OK) < 0 && access(at("q"), F_OK) < 0, "visible before commit");
    ZT_CHECK(zk_atomic_commit_all(pq, 2, &failed) == 0);
    ZT_CHECK(!strcmp(slurp(at("p")), "proof"));
    ZT_CHECK(!strcmp(slurp(at("q")), "public"));
    ZT_CHECK(failed == 99, "failed set on success");
    ZT_CHECK(p.fd == -1 && p.dirfd == -1 && q.fd == -1 && q.dirfd == -1, "handles not ended");
    zk_atomic_abort(&p);      /* harmless after a commit */
    /* the second cannot be renamed (a non-empty directory holds its name):
     * the first stays in place, the second's temporary file is removed and
     * its index reported */
    ZT_CHECK(mkdir(at("qd"), 0755) == 0);
    ZT_CHECK(zk_write_atomic(at("qd/x"), "x", 1, 0644) == 0);
    ZT_CHECK(zk_atomic_begin(&p, at("p"), 0644) == 0);
    ZT_CHECK(zk_atomic_begin(&q, at("qd"), 0644) == 0);
    ZT_CHECK(write(p.fd, "proof2", 6) == 6);
    ZT_CHECK(write(q.fd, "public2", 7) == 7);
    ZT_CHECK(zk_atomic_commit_all(pq, 2, &failed) < 0);
    ZT_CHECK(failed == 1, "failed %zu, not the second", failed);
    ZT_CHECK(!strcmp(slurp(at("p")), "proof2"));
    ZT_CHECK(!strcmp(slurp(at("qd/x")), "x"));
    ZT_CHECK(unlink(at("qd/x")) == 0 && rmdir(at("qd")) == 0);
    /* in two directories: each synced, both in place */
    ZT_CHECK(mkdir(at("sub"), 0755) == 0);
    ZT_CHECK(zk_atomic_begin(&p, at("p"), 0644) == 0);
    ZT_CHECK(zk_atomic_begin(&q, at("sub/q"), 0644) == 0);
    ZT_CHECK(write(p.fd, "3", 1) == 1 && write(q.fd, "4", 1) == 1);
    ZT_CHECK(zk_atomic_commit_all(pq, 2, NULL) == 0);
    ZT_CHECK(!strcmp(slurp(at("p")), "3") && !strcmp(slurp(at("sub/q")), "4"));
    ZT_CHECK(unlink(at("sub/q")) == 0 && rmdir(at("sub")) == 0);

    /* nothing but the files written is left in the directory */
    const char *names[] = { "a", "b", "c", "victim", "p", "q" };
    for (size_t i = 0; i < 6; i++)
        ZT_CHECK(unlink(at(names[i])) == 0, "%s", names[i]);
    ZT_CHECK(!entries(), "temporary files left in %s", dir);
    rmdir(dir);
    return zt_finish();
}

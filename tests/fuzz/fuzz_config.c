/*
 * fuzz_config.c -- libFuzzer target for the configuration file reader
 * (zk_config_load, zkslot.conf: what both daemons and the CLI read at
 * start): the bytes are the file (an anonymous memory file read through
 * /proc/self/fd), over the built-in defaults.  A file that is refused must
 * say why on one line naming the file (and a line the file has); one that
 * is accepted leaves NUL-terminated strings and a ledger path that can be
 * formed or is refused as too long.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "zk/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lines in the file: newlines, and a last line without one */
static int fuzz_lines(const uint8_t *data, size_t size)
{
    int n = 0;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n + (size && data[size - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct zk_config c;
    struct zk_diag d;
    char path[64], lp[4096];
    int fd = memfd_create("fuzz-zkslot.conf", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    zk_config_defaults(&c);
    memset(&d, 0, sizeof d);
    int r = zk_config_load(&c, path, 0, &d);
    close(fd);
    if (r) {
        if (!fuzz_diag_ok(&d) || !strstr(d.msg, path))
            abort();      /* a refusal names the file, on one line */
        const char *at = strstr(d.msg, ": line ");
        if (at && atoi(at + 7) > fuzz_lines(data, size))
            abort();      /* and a line the file has */
        return 0;
    }
    if (!memchr(c.pool, 0, sizeof c.pool) || !memchr(c.state_dir, 0, sizeof c.state_dir) ||
        !memchr(c.gpud_backend, 0, sizeof c.gpud_backend))
        abort();          /* every string stays terminated */
    r = zk_config_ledger_path(&c, lp, sizeof lp);
    if (r != 0 && r != -ENAMETOOLONG)
        abort();
    return 0;
}

/*
 * path.c -- the directory part of a path (zk/util.h: zk_path_dir).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "zk/util.h"

int zk_path_dir(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    int n;
    if (!slash)
        n = snprintf(buf, len, ".");
    else if (slash == path)
        n = snprintf(buf, len, "/");
    else
        n = snprintf(buf, len, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

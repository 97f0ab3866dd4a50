/*
 * dynlib.c -- a shared library loaded when first needed, not linked
 * (zk/util.h: zk_dl_open, zk_dl_sym): libpq at the first PostgreSQL ledger
 * open, libmicrohttpd when `zkslot metrics --listen` starts, so every
 * other command starts without mapping them and the TLS, Kerberos and
 * LDAP libraries they pull in.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "zk/util.h"

void *zk_dl_open(const char *soname, char *err, size_t n)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(err, n, "%s", dlerror());
    return h;
}

void *zk_dl_sym(void *h, const char *soname, const char *name, char *err, size_t n)
{
    void *p = dlsym(h, name);
    if (!p)
        snprintf(err, n, "%s: no symbol %s", soname, name);
    return p;
}

/* test_redact.c -- a ledger URL as it may be shown (zk_ledger_url_redact,
 * common/ledger/redact.c): every form of a PostgreSQL password left out,
 * everything else kept, SQLite paths untouched, a short buffer truncated
 * and terminated (issue 36.5). */
#include <string.h>

#include "zk/ledger.h"
#include "zktest.h"

static void check(const char *in, const char *want)
{
    char buf[512];
    const char *got = zk_ledger_url_redact(in, buf, sizeof buf);
    ZT_CHECK(got == buf && !strcmp(got, want), "'%s' -> '%s', expected '%s'", in, got, want);
    ZT_CHECK(!strstr(got, "s3cret"), "'%s' kept the password: '%s'", in, got);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    /* URLs: the user info's password, ?password= wherever it is */
    check("postgresql://zk:s3cret@db.internal:5432/zkslot?sslmode=verify-full",
          "postgresql://zk@db.internal:5432/zkslot?sslmode=verify-full");
    check("postgres://zk:s3cret@/zkslot", "postgres://zk@/zkslot");
    check("postgresql://zk@/x?password=s3cret&host=/run/pg", "postgresql://zk@/x?host=/run/pg");
    check("postgresql://zk@/x?host=/run/pg&password=s3cret", "postgresql://zk@/x?host=/run/pg");
    check("postgresql://zk@/x?a=1&password=s3cret&b=2", "postgresql://zk@/x?a=1&b=2");
    check("postgresql://zk@/x?password=s3cret", "postgresql://zk@/x");
    check("postgresql://db/x?mypassword=kept", "postgresql://db/x?mypassword=kept");
    check("postgresql://zk:s3cret:x@h/d", "postgresql://zk@h/d");   /* a colon in it */
    check("postgresql://a@b:s3cret@h/d", "postgresql://a@b@h/d");    /* the last '@' ends it */
    /* keywords: the value of password, quoted or not, wherever it is */
    check("host=/run/pg password=s3cret dbname=zk", "host=/run/pg dbname=zk");
    check("password=s3cret host=h", "host=h");
    check("host=h password = 's3cret with \\' quote' dbname=zk", "host=h dbname=zk");
    check("host=h password='s3cret'", "host=h");
    check("host=h passwordx=kept", "host=h passwordx=kept");
    /* SQLite: as it is */
    check("/var/lib/zkslot/ledger.db", "/var/lib/zkslot/ledger.db");
    check("sqlite:/a/password=b.db", "sqlite:/a/password=b.db");
    /* a short buffer: truncated, terminated, still without the password */
    char small[12];
    zk_ledger_url_redact("postgresql://zk:s3cret@host/db", small, sizeof small);
    ZT_CHECK(!strcmp(small, "postgresql:"), "'%s'", small);
    return zt_finish();
}

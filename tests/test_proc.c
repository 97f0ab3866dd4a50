/*
 * test_proc.c -- process identity (zk/proc.h): which records of another
 * boot id are of this boot.
 *
 * - the boot time zk_proc_self records is /proc/stat's btime;
 * - as root, a child in a mount namespace of its own with another boot id
 *   bind-mounted over /proc/sys/kernel/random/boot_id (what systemd-nspawn
 *   does; the daemons' ProtectKernelTunables= shows them the kernel's):
 *   alive while it runs, dead once killed;
 * - a record of another boot id and a boot time far from ours is dead even
 *   with a live pid and its start time (pids repeat across boots), and so
 *   is one of another boot id recorded without a boot time (older
 *   records); one with our boot id is judged by pid whatever its boot time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zk/proc.h"
#include "zktest.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

/* btime from /proc/stat; 0 if unreadable. */
static uint64_t stat_btime(void)
{
    FILE *f = fopen("/proc/stat", "r");
    char line[256];
    unsigned long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "btime %llu", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

static void test_btime(void)
{
    struct zk_proc_id me;
    ZT_REQUIRE(zk_proc_self(&me) == 0, );
    uint64_t st = stat_btime();
    ZT_REQUIRE(st > 0, , "no btime in /proc/stat");
    ZT_CHECK(me.btime + 1 >= st && me.btime <= st + 1, "recorded %llu, /proc/stat %llu",
             (unsigned long long)me.btime, (unsigned long long)st);
    ZT_CHECK(zk_proc_btime() == me.btime || zk_proc_btime() + 1 == me.btime ||
             zk_proc_btime() == me.btime + 1);
}

/* Records of other boots, judged against this very process (alive). */
static void test_other_boots(void)
{
    struct zk_proc_id me;
    ZT_REQUIRE(zk_proc_self(&me) == 0 && me.boot && me.btime, );
    uint64_t start_s = me.start / (uint64_t)sysconf(_SC_CLK_TCK);
    struct zk_proc_id prev = me, older = me, view = me, drift = me, moved = me;
    prev.boot ^= 1;
    prev.btime -= start_s + 60;   /* ended a minute before this boot, after our start */
    older.boot ^= 1;
    older.btime = 0;              /* recorded before boot times were */
    view.boot ^= 1;               /* another view of this boot: its time is ours */
    drift.boot ^= 1;
    drift.btime += ZK_PROC_BTIME_SLACK_S;   /* within the slack */
    moved.btime += 86400 * 365;   /* our boot id: the boot time is not asked */
    ZT_CHECK(zk_proc_alive(&me, 64) == 1);
    ZT_CHECK(zk_proc_alive(&prev, 64) == 0, "a previous boot's record: dead, pid and start alike");
    ZT_CHECK(zk_proc_alive(&older, 64) == 0, "another boot id, no boot time: dead");
    ZT_CHECK(zk_proc_alive(&view, 64) == 1, "another view of this boot: alive");
    ZT_CHECK(zk_proc_alive(&drift, 64) == 1, "boot times within the slack: alive");
    ZT_CHECK(zk_proc_alive(&moved, 64) == 1, "our boot id: alive whatever its boot time");
    view.start ^= 1;
    ZT_CHECK(zk_proc_alive(&view, 64) == 0, "another view, another start time: dead");
}

/* Child: its own boot id as systemd-nspawn shows one, then its identity to
 * fd and wait to be killed.  Exits 2 if it cannot set the view up. */
static _Noreturn void nspawn_child(int fd, const char *fake)
{
    struct zk_proc_id id;
    if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
        mount(fake, BOOT_ID_PATH, NULL, MS_BIND, NULL))
        _exit(2);
    if (zk_proc_self(&id) || write(fd, &id, sizeof id) != (ssize_t)sizeof id)
        _exit(1);
    for (;;)
        pause();
}

static void test_nspawn_view(void)
{
    if (geteuid() != 0) {
        printf("# skip the nspawn view: not root\n");
        return;
    }
    struct zk_proc_id me, child;
    ZT_REQUIRE(zk_proc_self(&me) == 0 && me.boot, );
    char fake[] = "/tmp/zk-test-proc-boot_id-XXXXXX";
    int ffd = mkstemp(fake);
    ZT_REQUIRE(ffd >= 0, , "mkstemp: %s", strerror(errno));
    static const char id_text[] = "0badb007-0000-4000-8000-0123456789ab\n";
    ZT_REQUIRE(write(ffd, id_text, sizeof id_text - 1) == (ssize_t)sizeof id_text - 1, );
    close(ffd);
    int p[2];
    ZT_REQUIRE(pipe(p) == 0, );
    pid_t pid = fork();
    ZT_REQUIRE(pid >= 0, );
    if (pid == 0) {
        close(p[0]);
        nspawn_child(p[1], fake);
    }
    close(p[1]);
    ssize_t n = read(p[0], &child, sizeof child);
    close(p[0]);
    if (n != (ssize_t)sizeof child) {
        int st = 0;
        waitpid(pid, &st, 0);
        unlink(fake);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
            printf("# skip the nspawn view: no mount namespace here (%s)\n", strerror(EPERM));
            return;
        }
        ZT_REQUIRE(0, , "the child sent no identity (status %d)", st);
    }
    ZT_CHECK(child.pid == pid && child.boot && child.boot != me.boot,
             "the child reads its own boot id (%llx, ours %llx)",
             (unsigned long long)child.boot, (unsigned long long)me.boot);
    ZT_CHECK(child.btime && (child.btime == me.btime || child.btime + 1 == me.btime ||
                             child.btime == me.btime + 1),
             "one boot time in both views");
    ZT_CHECK(zk_proc_alive(&child, 64) == 1, "a live process of another view: alive");
    ZT_CHECK(zk_proc_alive(&child, 40) == 1, "... on the pool's 40 bits of start time too");
    struct zk_proc_id ghost = child;   /* its pid and start time, a previous boot's */
    ghost.btime -= child.start / (uint64_t)sysconf(_SC_CLK_TCK) + 60;
    ZT_CHECK(zk_proc_alive(&ghost, 64) == 0, "another boot id and boot time: dead");
    kill(pid, SIGKILL);
    int st;
    ZT_CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
    ZT_CHECK(zk_proc_alive(&child, 64) == 0, "killed: dead");
    unlink(fake);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    test_btime();
    test_other_boots();
    test_nspawn_view();
    return zt_finish();
}

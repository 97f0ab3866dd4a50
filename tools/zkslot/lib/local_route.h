/*
 * local_route.h -- the job commands of a user who is not the ledger's
 * (docs/operations.md, "Operators"): the SQLite ledger is the daemons'
 * alone (mode 0600), so `zkslot submit`, `status`, `wait`, `result`,
 * `cancel` and `key list|show` run by anyone else but root go through
 * zkslot-apid's socket of the state directory, <state dir>/api.sock,
 * without being told, as `zkslot --server unix:<state dir>/api.sock`
 * would (remote.h; apid knows the caller from the socket's peer
 * credentials: docs/api.md, "Local users").
 */
#ifndef ZK_TOOLS_LOCAL_ROUTE_H
#define ZK_TOOLS_LOCAL_ROUTE_H

#include "ledger_cli.h"

#define LOCAL_SOCKET_NAME "api.sock"   /* in the state directory */

/*
 * Decides for c (its options parsed; resolved here with lcli_resolve):
 * 0 when the command opens the ledger itself (zkslot --server or
 * $ZKSLOT_SERVER given, a PostgreSQL ledger, root, the ledger's owner, or
 * the state directory's when there is no ledger yet); 1 when it goes to
 * the socket ($ZKSLOT_SERVER set to it, local_routed() true from then
 * on); -1 after one line "zkslot CMD: ..." (no zkslot-apid listens there:
 * what to start; the path is not a socket of the ledger's owner: refused).
 */
int local_route(struct lcli *c);

/* 1 once local_route returned 1. */
int local_routed(void);

/* 1 if c's ledger (resolved) is an SQLite file (or, none yet, a state
 * directory) of another user and this process is not root; else 0. */
int local_foreign(const struct lcli *c);

/* For the views (`zkslot top`, `metrics`): the ledger opened as
 * lcli_open(c, 0) does, or, another user's (local_foreign), resolved only
 * and c->l left NULL: the view shows what is not the ledger's (the
 * pool's control file).  0, or -1 with the message printed. */
int local_view_open(struct lcli *c);

#endif /* ZK_TOOLS_LOCAL_ROUTE_H */

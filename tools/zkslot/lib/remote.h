/*
 * remote.h -- `zkslot --server URL` (or $ZKSLOT_SERVER): submit, status,
 * wait, result, cancel, key list and key show against a remote zkslot-apid instead of the
 * ledger, with the local commands' output and exit codes ($ZKSLOT_TOKEN:
 * the bearer token; for an https:// URL, $ZKSLOT_CA_FILE or `zkslot
 * --ca-file FILE`: the CAs its certificate is checked against instead of
 * the system's).  Each prints one line "zkslot CMD: ..." on failure, the
 * server's error message when it gave one.
 */
#ifndef ZK_TOOLS_REMOTE_H
#define ZK_TOOLS_REMOTE_H

#include <jansson.h>
#include <stdint.h>

/* The server's URL, or NULL when the commands go to the ledger. */
const char *remote_server(void);

/* Circuit inputs (`input`) or .wtns files (sent in base64); 3 when the
 * server refuses the deadline (409 deadline_unmeetable, without force).
 * out_dir (NULL: none): the job's output directory on this machine, for
 * apid's unix socket only (canonical, made and checked by the caller). */
int remote_submit(const char *key, char **files, int n, int input, int priority,
                  int64_t deadline_ns, int force, const char *request_id, const char *out_dir);
/* File `path` (a .wtns) in standard base64 as a JSON string, as submit
 * sends it; NULL after one line on stderr. */
json_t *remote_base64_file(const char *path);
/* `submit --filecoin KIND FILE` to the server: the provider's input
 * itself (POST /v1/jobs "filecoin"), split there by the key's synthesizer;
 * the client needs none. */
int remote_submit_filecoin(const char *key, const char *kind, const char *file, int priority,
                           int64_t deadline_ns, int force, const char *request_id);
int remote_status(int64_t id, int json);      /* id 0: the list */
int remote_wait(int64_t id, double timeout);  /* timeout < 0: none */
int remote_result(int64_t id, const char *out);
int remote_cancel(int64_t id);
/* `key list [--json]` (name NULL) or `key show NAME`: GET /v1/keys[/NAME].
 * The list shows what the server shows (no paths, no generators); show
 * prints the key's JSON with its vk.json.  0, 1 (no such key) or 2. */
int remote_keys(const char *name, int json);

#endif /* ZK_TOOLS_REMOTE_H */

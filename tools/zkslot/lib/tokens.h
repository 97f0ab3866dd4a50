/*
 * tokens.h -- the bearer tokens of zkslot-apid, kept hashed in one text
 * file that `zkslot token add|list|revoke` edits and the daemon reads.
 *
 * One token per line, '#' comments and blank lines ignored:
 *
 *   NAME sha256:HEX keys=KEY[,KEY...]|* cancel=own|any
 *
 * NAME is 1 to 32 of [A-Za-z0-9_.-]; HEX the SHA-256 of the secret (the
 * secret itself is printed once by `zkslot token add` and kept nowhere);
 * keys= the key names the token may submit jobs to ("*": all); cancel=any
 * lets it cancel jobs others submitted.  The file is mode 0600: the
 * daemon refuses one that its group or others may read, or that belongs to
 * another user.
 */
#ifndef ZK_TOOLS_TOKENS_H
#define ZK_TOOLS_TOKENS_H

#include <stddef.h>

#include "zk/sha256.h"

#define TOKENS_DEFAULT_PATH "/etc/zkslot/api-tokens"
#define TOKEN_NAME_MAX 32
#define TOKEN_SECRET_PREFIX "zks_"

struct api_token {
    char name[TOKEN_NAME_MAX + 1];
    char hash[2 * ZK_SHA256_LEN + 1];  /* lowercase hex */
    char keys[1024];                   /* "*" or "a,b,c" */
    int cancel_any;
};

struct api_tokens {
    struct api_token *t;
    unsigned n;
};

/* 1 if s is a valid token name, else 0. */
int token_name_ok(const char *s);

/*
 * Reads path into *ret.  `strict`: refuse a file others than its owner may
 * read or write (-EPERM) or whose owner is not this process's user
 * (-EACCES).  -ENOENT when absent, -EINVAL naming the line of a bad one;
 * one line in msg.  *ret is empty on failure.
 */
int tokens_load(const char *path, int strict, struct api_tokens *ret, char *msg, size_t n);

/* Writes *t to path atomically, mode 0600, keeping the old file's owner
 * and group when it existed.  0 or -errno with msg. */
int tokens_save(const char *path, const struct api_tokens *t, char *msg, size_t n);

/* Adds (name unique: -EEXIST) or removes (-ENOENT) a token. 0 or -errno. */
int tokens_add(struct api_tokens *t, const struct api_token *tok);
int tokens_remove(struct api_tokens *t, const char *name);

void tokens_free(struct api_tokens *t);

/* The token whose secret is `secret` (compared by its hash, every entry
 * looked at), or NULL. */
const struct api_token *tokens_find(const struct api_tokens *t, const char *secret);

/* 1 if tok may submit jobs to key `name`. */
int token_may_submit(const struct api_token *tok, const char *name);

#endif /* ZK_TOOLS_TOKENS_H */

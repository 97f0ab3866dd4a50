/*
 * fil_lib_submit.c -- libzkslot's Filecoin face for test_fil_faces.sh:
 * `fil_lib_submit KIND FILE [KEY]` calls zkslot_submit_filecoin (zkslot.h)
 * on the environment's ledger (ZKSLOT_STATE_DIR, ZKSLOT_CONFIG) and prints
 * the job id; on a refusal its message on stderr and the code on stdout
 * ("refused CODE"), exit 1; 2 on bad usage or an unopened ledger.
 */
#include <inttypes.h>
#include <stdio.h>

#include "zkslot.h"

int main(int argc, char **argv)
{
    char msg[1024];
    zkslot *z = NULL;
    int64_t job = 0;
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: fil_lib_submit KIND FILE [KEY]\n");
        return 2;
    }
    if (zkslot_open(NULL, NULL, &z, msg, sizeof msg) < 0) {
        fprintf(stderr, "fil_lib_submit: %s\n", msg);
        return 2;
    }
    int r = zkslot_submit_filecoin(z, argv[1], argv[2], argc > 3 ? argv[3] : NULL, NULL, &job,
                                   NULL, msg, sizeof msg);
    zkslot_close(z);
    if (r < 0) {
        fprintf(stderr, "%s\n", msg);
        printf("refused %d\n", r);
        return 1;
    }
    printf("%" PRId64 "\n", job);
    return 0;
}

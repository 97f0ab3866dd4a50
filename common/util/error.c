#include <string.h>

#include "zk/error.h"

static const char *const zk_messages[] = {
    [ZK_EBASE - ZK_EBADPARAMS] = "invalid parameters",
    [ZK_EBASE - ZK_EFORMAT] = "not in the expected format",
    [ZK_EBASE - ZK_EBADMAGIC] = "wrong magic number",
    [ZK_EBASE - ZK_EVERSION] = "unsupported format version",
    [ZK_EBASE - ZK_ETRUNCATED] = "file is truncated",
    [ZK_EBASE - ZK_ESECTION_MISSING] = "required section missing",
    [ZK_EBASE - ZK_ESECTION_DUP] = "section duplicated",
    [ZK_EBASE - ZK_ESECTION_SIZE] = "section size does not match the header",
    [ZK_EBASE - ZK_ECURVE] = "unsupported curve (unknown field prime)",
    [ZK_EBASE - ZK_ECURVE_MISMATCH] = "inputs are for different curves",
    [ZK_EBASE - ZK_ENOT_CANONICAL] = "field element not below the modulus",
    [ZK_EBASE - ZK_ENOT_ON_CURVE] = "point not on the curve",
    [ZK_EBASE - ZK_ENOT_IN_GROUP] = "point not in the prime-order subgroup",
    [ZK_EBASE - ZK_EBAD_ENCODING] = "malformed point encoding",
    [ZK_EBASE - ZK_ELENGTH] = "length mismatch",
    [ZK_EBASE - ZK_EPROTOCOL] = "not a Groth16 key",
    [ZK_EBASE - ZK_EJSON] = "malformed JSON",
    [ZK_EBASE - ZK_ECHECKSUM] = "checksum mismatch",
    [ZK_EBASE - ZK_EPOOL_LAYOUT] = "pool layout mismatch",
    [ZK_EBASE - ZK_EBUSY] = "resource busy",
    [ZK_EBASE - ZK_ETIMEOUT] = "timed out",
    [ZK_EBASE - ZK_ECANCELED] = "canceled",
    [ZK_EBASE - ZK_ESTATE] = "wrong state",
    [ZK_EBASE - ZK_ENOHUGEPAGES] = "not enough huge pages reserved",
    [ZK_EBASE - ZK_EDOMAIN] = "domain size out of range",
    [ZK_EBASE - ZK_ERANGE] = "value out of range",
    [ZK_EBASE - ZK_ELEDGER] = "ledger database error",
    [ZK_EBASE - ZK_ENODEV] = "no usable GPU",
    [ZK_EBASE - ZK_EGPU] = "GPU error",
    [ZK_EBASE - ZK_EREJECTED] = "the witness generator rejected the input",
    [ZK_EBASE - ZK_EWITGEN] = "the witness generator failed",
    [ZK_EBASE - ZK_EUNTRUSTED] = "owned by another user or writable by others",
    [ZK_EBASE - ZK_ESTATEMENT] = "not the proof of its job's statement",
    [ZK_EBASE - ZK_EDEADLINE] = "the deadline cannot be met",
};

const char *zk_strerror(int err)
{
    if (err == 0)
        return "success";
    if (err <= ZK_EBASE && err >= ZK_ELAST) {
        const char *m = zk_messages[ZK_EBASE - err];
        return m ? m : "unknown zkslot error";
    }
    if (err < 0 && err > -4096)
        return strerror(-err);
    return "unknown error";
}

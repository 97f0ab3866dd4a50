/*
 * error.h -- the one error scheme of common/.
 *
 * Functions return 0 on success or a negative code: -errno for system
 * failures, or one of the ZK_E* codes below (all <= -10000, far from any
 * errno).  zk_strerror() turns either kind into a static string.
 */
#ifndef ZK_COMMON_ERROR_H
#define ZK_COMMON_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum zk_error {
    ZK_EBASE = -10000,
    ZK_EBADPARAMS = ZK_EBASE,     /* invalid argument combination */
    ZK_EFORMAT = -10001,          /* file is not in the expected format */
    ZK_EBADMAGIC = -10002,        /* wrong magic number */
    ZK_EVERSION = -10003,         /* unsupported format version */
    ZK_ETRUNCATED = -10004,       /* file shorter than its header says */
    ZK_ESECTION_MISSING = -10005, /* a required section is absent */
    ZK_ESECTION_DUP = -10006,     /* a required section occurs twice */
    ZK_ESECTION_SIZE = -10007,    /* a section's size disagrees with the header */
    ZK_ECURVE = -10008,           /* unknown field prime / curve */
    ZK_ECURVE_MISMATCH = -10009,  /* inputs belong to different curves */
    ZK_ENOT_CANONICAL = -10010,   /* field element >= modulus */
    ZK_ENOT_ON_CURVE = -10011,    /* point not on the curve */
    ZK_ENOT_IN_GROUP = -10012,    /* point not in the prime-order subgroup */
    ZK_EBAD_ENCODING = -10013,    /* malformed point encoding / flag bits */
    ZK_ELENGTH = -10014,          /* a count disagrees with another input */
    ZK_EPROTOCOL = -10015,        /* not a Groth16 key */
    ZK_EJSON = -10016,            /* malformed JSON document */
    ZK_ECHECKSUM = -10017,        /* data checksum mismatch */
    ZK_EPOOL_LAYOUT = -10018,     /* pool magic/version/geometry mismatch */
    ZK_EBUSY = -10019,            /* resource in use (attached processes) */
    ZK_ETIMEOUT = -10020,         /* timed wait expired */
    ZK_ECANCELED = -10021,        /* operation canceled by the caller */
    ZK_ESTATE = -10022,           /* object in the wrong state for this call */
    ZK_ENOHUGEPAGES = -10023,     /* not enough huge pages reserved */
    ZK_EDOMAIN = -10024,          /* NTT / domain size out of range */
    ZK_ERANGE = -10025,           /* value out of range (e.g. public input >= r) */
    ZK_ELEDGER = -10026,          /* the ledger database failed (SQLite) */
    ZK_ENODEV = -10027,           /* no usable GPU (or CUDA not built in) */
    ZK_EGPU = -10028,             /* a CUDA call failed (zk_cuda_last_error) */
    ZK_EREJECTED = -10029,        /* the witness generator refused the input */
    ZK_EWITGEN = -10030,          /* the witness generator failed (not the input's fault) */
    ZK_EUNTRUSTED = -10031,       /* a file another user owns or may write */
    ZK_ESTATEMENT = -10032,       /* a result that is not of its job's statement */
    ZK_EDEADLINE = -10033,        /* a deadline the queue ahead cannot let be met */
    ZK_ELAST = -10033
};

/* Static description of a return code (0, -errno or ZK_E*).  Never NULL. */
const char *zk_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_ERROR_H */

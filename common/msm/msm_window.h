/*
 * msm_window.h -- the window choice of an MSM table (common/msm/msm.c),
 * exposed for tests: zk_msm_table_window(n, factor, bits, g2) is the window
 * G_msm_table_build records for n points with `factor` multiples and
 * scalars below 2^bits (g2: 1 for a G2 group).  It depends on these
 * arguments alone.  Cannot fail.
 */
#ifndef ZK_COMMON_MSM_WINDOW_H
#define ZK_COMMON_MSM_WINDOW_H

#include <stddef.h>

unsigned zk_msm_table_window(size_t n, unsigned factor, unsigned bits, int g2);

#endif /* ZK_COMMON_MSM_WINDOW_H */

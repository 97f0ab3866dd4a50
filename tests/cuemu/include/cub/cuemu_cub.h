/*
 * cuemu_cub.h -- a host stand-in for the CUB device algorithm that
 * gpud/cuda/cu_ops.cu uses, with CUB's calling convention (a first call
 * with d_temp == NULL asks for the temporary storage size) and CUB's
 * documented result: a stable LSD radix sort on bits [begin, end) of the
 * keys, run on the stream like any device work.  Every device range is
 * checked against the emulator's allocations, and the temporary storage
 * must be device memory at least as large as what was asked for.
 */
#ifndef ZK_CUEMU_CUB_H
#define ZK_CUEMU_CUB_H

#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda_runtime.h"

namespace cub {

/* bytes of temporary storage the stand-ins ask for: enough to notice a
 * caller that passes less than it was told */
static inline size_t cuemu_temp_bytes(size_t n) { return 256 + 8 * n; }

static inline cudaError_t cuemu_temp(void *d_temp, size_t &bytes, size_t n, bool *query)
{
    cudaError_t e = cuemu_enter("cub");
    *query = d_temp == NULL;
    if (e != cudaSuccess)
        return e;
    if (*query) {
        bytes = cuemu_temp_bytes(n);
        return cudaSuccess;
    }
    if (bytes < cuemu_temp_bytes(n))
        return cudaErrorInvalidValue;
    return cuemu_check_device(d_temp, bytes, "cub temporary storage");
}

struct DeviceRadixSort {
    template <class K, class V, class N>
    static cudaError_t SortPairs(void *d_temp, size_t &bytes, const K *kin, K *kout, const V *vin,
                                 V *vout, N num, int begin_bit = 0, int end_bit = sizeof(K) * 8,
                                 cudaStream_t st = 0)
    {
        bool q;
        size_t n = (size_t)num;
        cudaError_t e = cuemu_temp(d_temp, bytes, n, &q);
        if (e != cudaSuccess || q)
            return e;
        if (begin_bit < 0 || end_bit > (int)sizeof(K) * 8 || begin_bit > end_bit)
            return cudaErrorInvalidValue;
        if ((e = cuemu_check_device(kin, n * sizeof(K), "SortPairs keys in")) ||
            (e = cuemu_check_device(kout, n * sizeof(K), "SortPairs keys out")) ||
            (e = cuemu_check_device(vin, n * sizeof(V), "SortPairs values in")) ||
            (e = cuemu_check_device(vout, n * sizeof(V), "SortPairs values out")))
            return e;
        cuemu_submit(st, [=]() { sort_pairs(kin, kout, vin, vout, n, begin_bit, end_bit); });
        return cudaSuccess;
    }

  private:
    template <class K, class V>
    static void sort_pairs(const K *kin, K *kout, const V *vin, V *vout, size_t n, int begin_bit,
                           int end_bit)
    {
        std::vector<K> k(kin, kin + n), k2(n);
        std::vector<V> v(vin, vin + n), v2(n);
        for (int b = begin_bit; b < end_bit; b += 8) {          /* stable LSD */
            int w = end_bit - b < 8 ? end_bit - b : 8;
            size_t cnt[257] = { 0 };
            K mask = (K)((1u << w) - 1);
            for (size_t i = 0; i < n; i++)
                cnt[((k[i] >> b) & mask) + 1]++;
            for (int d = 0; d < 256; d++)
                cnt[d + 1] += cnt[d];
            for (size_t i = 0; i < n; i++) {
                size_t at = cnt[(k[i] >> b) & mask]++;
                k2[at] = k[i];
                v2[at] = v[i];
            }
            k.swap(k2);
            v.swap(v2);
        }
        if (n) {
            memcpy(kout, k.data(), n * sizeof(K));
            memcpy(vout, v.data(), n * sizeof(V));
        }
    }
};

} // namespace cub

#endif /* ZK_CUEMU_CUB_H */

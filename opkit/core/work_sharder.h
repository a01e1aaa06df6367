// Shard: split a loop over [0, total) across a thread pool by cost per unit,
// as intra-op kernels do.
//
//   auto work = [&](int64_t begin, int64_t end) {
//     for (int64_t i = begin; i < end; ++i) out[i] = in[i] * 2;
//   };
//   Shard(pool->NumThreads(), pool, n, /*cost_per_unit=*/10, work);
#ifndef OPKIT_CORE_WORK_SHARDER_H_
#define OPKIT_CORE_WORK_SHARDER_H_

#include <cstdint>
#include <functional>

#include "opkit/core/export.h"
#include "opkit/core/threadpool.h"

namespace opkit {

// Work (`total * cost_per_unit`) up to this runs inline: a split would not
// pay for the scheduling. Shards are at least this big.
inline constexpr int64_t kMinCostPerShard = 10000;

// Calls `work(begin, end)` over disjoint ranges covering [0, total), using at
// most `max_parallelism` threads of `workers` (the calling thread included)
// and splitting only where the work (`total * cost_per_unit`) pays for the
// scheduling. With max_parallelism <= 1, a null pool, or little work, runs
// `work(0, total)` inline. Returns when every range is done.
OPKIT_EXPORT void Shard(int max_parallelism, ThreadPool* workers, int64_t total,
                        int64_t cost_per_unit,
                        const std::function<void(int64_t, int64_t)>& work);

}  // namespace opkit

#endif  // OPKIT_CORE_WORK_SHARDER_H_

// Shard: split a loop over [0, total) across a thread pool by cost per unit.
#include "opkit/core/work_sharder.h"

#include <algorithm>
#include <atomic>

#include "opkit/core/mutex.h"

namespace opkit {
void Shard(int max_parallelism, ThreadPool* workers, int64_t total,
           int64_t cost_per_unit,
           const std::function<void(int64_t, int64_t)>& work) {
  if (total <= 0) return;
  cost_per_unit = std::max<int64_t>(cost_per_unit, 1);
  const bool tiny = total * static_cast<double>(cost_per_unit) <= kMinCostPerShard;
  if (max_parallelism <= 1 || workers == nullptr || total == 1 || tiny) {
    work(0, total);
    return;
  }
  if (max_parallelism >= workers->NumThreads() + 1) {
    workers->ParallelFor(total, cost_per_unit, work);
    return;
  }
  // Limited parallelism: at most max_parallelism shards, each worth at least
  // kMinCostPerShard, the last run on the calling thread.
  const int64_t by_cost = std::max<int64_t>(
      1, static_cast<int64_t>(total * static_cast<double>(cost_per_unit) / kMinCostPerShard));
  const int64_t num_shards = std::min<int64_t>({max_parallelism, by_cost, total});
  if (num_shards == 1) {
    work(0, total);
    return;
  }
  const int64_t block = (total + num_shards - 1) / num_shards;
  mutex mu;
  condition_variable cv;
  int64_t pending = 0;
  for (int64_t start = block; start < total; start += block) {
    const int64_t limit = std::min(total, start + block);
    {
      mutex_lock l(mu);
      ++pending;
    }
    workers->Schedule([&, start, limit] {
      work(start, limit);
      mutex_lock l(mu);
      if (--pending == 0) cv.notify_all();
    });
  }
  work(0, std::min(total, block));
  mutex_lock l(mu);
  cv.wait(l, [&] { return pending == 0; });
}

}  // namespace opkit

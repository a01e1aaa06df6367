// Shard: split a loop over [0, total) across a thread pool by cost per unit.
#include "opkit/core/work_sharder.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "opkit/core/mutex.h"

namespace opkit {
namespace {

// The caller's wait for the shards it scheduled. Note [Idle spinning] in
// threadpool.h: a thread that sleeps until the last shard is done is woken
// through the kernel, which on a virtual machine can cost more than a
// shard; so the caller first polls the count for as long as the pool's idle
// workers poll for work, then sleeps.
struct ShardWait {
  std::atomic<int64_t> remaining{0};
  mutex mu;
  condition_variable cv;

  void Wait(int64_t spin_us) {
    auto done = [this] { return remaining.load(std::memory_order_acquire) == 0; };
    if (spin_us > 0 && SpinUntil(spin_us, done)) return;
    mutex_lock l(mu);
    cv.wait(l, done);
  }
};

}  // namespace

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
  // Shared with the shards: a shard may still be notifying after the caller
  // saw the count reach zero and returned.
  auto wait = std::make_shared<ShardWait>();
  wait->remaining.store((total - 1) / block, std::memory_order_relaxed);
  for (int64_t start = block; start < total; start += block) {
    const int64_t limit = std::min(total, start + block);
    workers->Schedule([&work, wait, start, limit] {
      work(start, limit);
      if (wait->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        mutex_lock l(wait->mu);
        wait->cv.notify_all();
      }
    });
  }
  work(0, std::min(total, block));
  wait->Wait(workers->idle_spin_us());
}

}  // namespace opkit

// Shard(ctx, total, cost_per_unit, work): core's Shard (work_sharder.h) on
// the intra-op pool of the kernel's device -- the one way built-in kernels
// split work across threads.
//
//   Shard(ctx, rows, /*cost_per_unit=*/cols * 4, [&](int64_t begin, int64_t end) {
//     for (int64_t r = begin; r < end; ++r) ProcessRow(r);
//   });
#ifndef OPKIT_KERNELS_KERNEL_SHARD_H_
#define OPKIT_KERNELS_KERNEL_SHARD_H_

#include <cstdint>
#include <functional>

#include "opkit/core/work_sharder.h"
#include "opkit/device/device.h"
#include "opkit/kernel/op_kernel_context.h"

namespace opkit {

// Element-wise passes over at most this many elements run on the calling
// thread (relu_op.cc, bias_add_op.cc): streaming through them takes about
// as long as waking an intra-op thread.
inline constexpr int64_t kInlineElements = 32768;

// Calls `work(begin, end)` over disjoint ranges covering [0, total), split
// across the intra-op pool of `ctx`'s device as Shard decides from
// `cost_per_unit` (roughly, cycles per unit; a double so that a cost
// computed from large dimensions saturates instead of overflowing); inline
// when `ctx` is null, its device has no pool, or the work is small. Returns
// when all of it is done.
inline void Shard(OpKernelContext* ctx, int64_t total, double cost_per_unit,
                  const std::function<void(int64_t, int64_t)>& work) {
  constexpr double kMaxCost = static_cast<double>(int64_t{1} << 62);
  const int64_t cost = cost_per_unit >= kMaxCost ? int64_t{1} << 62
                       : cost_per_unit >= 1      ? static_cast<int64_t>(cost_per_unit)
                                                 : 1;
  // Shard's own inline case, without the call: most calls of small kernels
  // end here.
  if (static_cast<double>(total) * static_cast<double>(cost) <=
      static_cast<double>(kMinCostPerShard)) {
    if (total > 0) work(0, total);
    return;
  }
  const DeviceBase* device = ctx == nullptr ? nullptr : ctx->device();
  const DeviceBase::CpuWorkerThreads* threads =
      device == nullptr ? nullptr : device->tensorflow_cpu_worker_threads();
  if (threads == nullptr) {
    Shard(1, nullptr, total, cost, work);
    return;
  }
  Shard(threads->num_threads, threads->workers, total, cost, work);
}

}  // namespace opkit

#endif  // OPKIT_KERNELS_KERNEL_SHARD_H_

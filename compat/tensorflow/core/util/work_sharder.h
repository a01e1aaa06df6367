// TensorFlow compatibility: Shard (opkit/core/work_sharder.h), which splits
// [0, total) into pieces run on the device's intra-op pool.
//
//   auto* threads = context->device()->tensorflow_cpu_worker_threads();
//   Shard(threads->num_threads, threads->workers, n, /*cost_per_unit=*/100,
//         [&](int64 begin, int64 end) {
//           for (int64 i = begin; i < end; ++i) out(i) = 2 * in(i);
//         });
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_WORK_SHARDER_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_WORK_SHARDER_H_

#include "opkit/core/work_sharder.h"
#include "tensorflow/core/platform/threadpool.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_WORK_SHARDER_H_

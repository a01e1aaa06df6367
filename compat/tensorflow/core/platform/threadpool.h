// TensorFlow compatibility: thread::ThreadPool, the pool kernels get from
// ctx->device()->tensorflow_cpu_worker_threads()->workers (opkit::ThreadPool).
//
//   thread::ThreadPool* pool =
//       ctx->device()->tensorflow_cpu_worker_threads()->workers;
//   pool->ParallelFor(n, /*cost_per_unit=*/1000,
//                     [&](int64 begin, int64 end) { ... });
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_THREADPOOL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_THREADPOOL_H_

#include "opkit/core/threadpool.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace thread {

using ::opkit::ThreadPool;

}  // namespace thread
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_THREADPOOL_H_

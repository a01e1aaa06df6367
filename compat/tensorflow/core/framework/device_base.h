// TensorFlow compatibility: DeviceBase (opkit/device/device.h), what
// ctx->device() returns, with tensorflow_cpu_worker_threads() for Shard.
//
//   auto* threads = ctx->device()->tensorflow_cpu_worker_threads();
//   Shard(threads->num_threads, threads->workers, n, cost, work);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_DEVICE_BASE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_DEVICE_BASE_H_

#include "opkit/device/device.h"
#include "tensorflow/core/platform/threadpool.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_DEVICE_BASE_H_

// TensorFlow compatibility: mutex, mutex_lock, tf_shared_lock and
// condition_variable in namespace tensorflow (they are opkit's, from
// opkit/core/mutex.h), with the annotation macros.
//
//   class CountOp : public OpKernel {
//     ...
//     void Compute(OpKernelContext* ctx) override {
//       mutex_lock l(mu_);
//       ++calls_;
//     }
//     mutex mu_;
//     int64 calls_ TF_GUARDED_BY(mu_) = 0;
//   };
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_MUTEX_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_MUTEX_H_

#include "opkit/core/mutex.h"
#include "tensorflow/core/platform/thread_annotations.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_MUTEX_H_

// TensorFlow compatibility: thread::ThreadPool (older include path).
// Includes tensorflow/core/platform/threadpool.h, where newer TensorFlow keeps it.
//
//   #include "tensorflow/core/lib/core/threadpool.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_THREADPOOL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_THREADPOOL_H_

#include "tensorflow/core/platform/threadpool.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_THREADPOOL_H_

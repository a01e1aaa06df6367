// TensorFlow compatibility: core::RefCounted.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/refcount.h.
//
//   #include "xla/tsl/platform/refcount.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_REFCOUNT_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_REFCOUNT_H_

#include "tensorflow/core/platform/refcount.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_REFCOUNT_H_

// TensorFlow compatibility: core::RefCounted.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/refcount.h.
//
//   #include "tensorflow/tsl/platform/refcount.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_REFCOUNT_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_REFCOUNT_H_

#include "tensorflow/core/platform/refcount.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_REFCOUNT_H_

// TensorFlow compatibility: core::RefCounted (older include path).
// Includes tensorflow/core/platform/refcount.h, where newer TensorFlow keeps it.
//
//   #include "tensorflow/core/lib/core/refcount.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_REFCOUNT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_REFCOUNT_H_

#include "tensorflow/core/platform/refcount.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_REFCOUNT_H_

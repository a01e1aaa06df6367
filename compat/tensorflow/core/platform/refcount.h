// TensorFlow compatibility: core::RefCounted and core::ScopedUnref
// (opkit/resource/refcount.h), the base of resources.
//
//   class Counter : public core::RefCounted { ... };
//   Counter* c = new Counter;   // count 1
//   core::ScopedUnref unref(c);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_REFCOUNT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_REFCOUNT_H_

#include "opkit/resource/refcount.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_REFCOUNT_H_

// TensorFlow compatibility: the thread-safety annotation macros.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/thread_annotations.h.
//
//   #include "xla/tsl/platform/thread_annotations.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_THREAD_ANNOTATIONS_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_THREAD_ANNOTATIONS_H_

#include "tensorflow/core/platform/thread_annotations.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_THREAD_ANNOTATIONS_H_

// TensorFlow compatibility: the thread-safety annotation macros.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/thread_annotations.h.
//
//   #include "tensorflow/tsl/platform/thread_annotations.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_THREAD_ANNOTATIONS_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_THREAD_ANNOTATIONS_H_

#include "tensorflow/core/platform/thread_annotations.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_THREAD_ANNOTATIONS_H_

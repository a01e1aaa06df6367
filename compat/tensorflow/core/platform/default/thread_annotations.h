// TensorFlow compatibility: the thread-safety annotation macros.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/thread_annotations.h.
//
//   #include "tensorflow/core/platform/default/thread_annotations.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_THREAD_ANNOTATIONS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_THREAD_ANNOTATIONS_H_

#include "tensorflow/core/platform/thread_annotations.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_THREAD_ANNOTATIONS_H_

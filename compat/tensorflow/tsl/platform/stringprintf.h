// TensorFlow compatibility: strings::Printf and Appendf.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/stringprintf.h.
//
//   #include "tensorflow/tsl/platform/stringprintf.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRINGPRINTF_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRINGPRINTF_H_

#include "tensorflow/core/platform/stringprintf.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRINGPRINTF_H_

// TensorFlow compatibility: strings::Printf and Appendf.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/stringprintf.h.
//
//   #include "xla/tsl/platform/stringprintf.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_STRINGPRINTF_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_STRINGPRINTF_H_

#include "tensorflow/core/platform/stringprintf.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_STRINGPRINTF_H_

// TensorFlow compatibility: strings::Printf and Appendf.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/stringprintf.h.
//
//   #include "tsl/platform/stringprintf.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_STRINGPRINTF_H_
#define OPKIT_COMPAT_TSL_PLATFORM_STRINGPRINTF_H_

#include "tensorflow/core/platform/stringprintf.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_STRINGPRINTF_H_

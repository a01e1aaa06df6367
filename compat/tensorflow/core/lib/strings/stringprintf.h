// TensorFlow compatibility: strings::Printf and Appendf.
// At the older include path, where TensorFlow 1.x kept it; includes
// tensorflow/core/platform/stringprintf.h.
//
//   #include "tensorflow/core/lib/strings/stringprintf.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STRINGPRINTF_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STRINGPRINTF_H_

#include "tensorflow/core/platform/stringprintf.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STRINGPRINTF_H_

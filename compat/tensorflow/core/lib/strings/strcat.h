// TensorFlow compatibility: strings::StrCat (older include path).
// Includes tensorflow/core/platform/strcat.h, where newer TensorFlow keeps it.
//
//   #include "tensorflow/core/lib/strings/strcat.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STRCAT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STRCAT_H_

#include "tensorflow/core/platform/strcat.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STRCAT_H_

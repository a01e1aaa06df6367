// TensorFlow compatibility: strings::StrCat and StrAppend.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/strcat.h.
//
//   #include "tensorflow/tsl/platform/strcat.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRCAT_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRCAT_H_

#include "tensorflow/core/platform/strcat.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRCAT_H_

// TensorFlow compatibility: strings::StrCat and StrAppend.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/strcat.h.
//
//   #include "xla/tsl/platform/strcat.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_STRCAT_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_STRCAT_H_

#include "tensorflow/core/platform/strcat.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_STRCAT_H_

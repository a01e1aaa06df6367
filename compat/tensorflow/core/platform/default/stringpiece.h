// TensorFlow compatibility: StringPiece.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/stringpiece.h.
//
//   #include "tensorflow/core/platform/default/stringpiece.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STRINGPIECE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STRINGPIECE_H_

#include "tensorflow/core/platform/stringpiece.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STRINGPIECE_H_

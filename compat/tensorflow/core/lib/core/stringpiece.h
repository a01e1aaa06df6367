// TensorFlow compatibility: StringPiece (older include path).
// Includes tensorflow/core/platform/stringpiece.h, where newer TensorFlow keeps it.
//
//   #include "tensorflow/core/lib/core/stringpiece.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_STRINGPIECE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_STRINGPIECE_H_

#include "tensorflow/core/platform/stringpiece.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_STRINGPIECE_H_

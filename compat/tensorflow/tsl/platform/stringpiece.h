// TensorFlow compatibility: StringPiece.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/stringpiece.h.
//
//   #include "tensorflow/tsl/platform/stringpiece.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRINGPIECE_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRINGPIECE_H_

#include "tensorflow/core/platform/stringpiece.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STRINGPIECE_H_

// TensorFlow compatibility: StringPiece.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/stringpiece.h.
//
//   #include "xla/tsl/platform/stringpiece.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_STRINGPIECE_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_STRINGPIECE_H_

#include "tensorflow/core/platform/stringpiece.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_STRINGPIECE_H_

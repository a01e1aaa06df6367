// TensorFlow compatibility: StringPiece.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/stringpiece.h.
//
//   #include "tsl/platform/stringpiece.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_STRINGPIECE_H_
#define OPKIT_COMPAT_TSL_PLATFORM_STRINGPIECE_H_

#include "tensorflow/core/platform/stringpiece.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_STRINGPIECE_H_

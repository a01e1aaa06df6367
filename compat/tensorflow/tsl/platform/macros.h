// TensorFlow compatibility: TF_PREDICT_FALSE and the other helper macros.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/macros.h.
//
//   #include "tensorflow/tsl/platform/macros.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_MACROS_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_MACROS_H_

#include "tensorflow/core/platform/macros.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_MACROS_H_

// TensorFlow compatibility: TF_PREDICT_FALSE and the other helper macros.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/macros.h.
//
//   #include "tsl/platform/macros.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_MACROS_H_
#define OPKIT_COMPAT_TSL_PLATFORM_MACROS_H_

#include "tensorflow/core/platform/macros.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_MACROS_H_

// TensorFlow compatibility: the element types beyond the fixed-width
// integers: half, bfloat16, complex64, complex128 and the quantized qint8,
// quint8, qint16, quint16, qint32 (opkit/tensor/numeric_types.h).
//
//   complex64 c(1, 2);
//   half h(1.5f);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NUMERIC_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NUMERIC_TYPES_H_

#include "opkit/tensor/numeric_types.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NUMERIC_TYPES_H_

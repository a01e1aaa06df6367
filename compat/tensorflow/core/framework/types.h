// TensorFlow compatibility: DataType and its helpers (DataTypeToEnum,
// DataTypeString, RealNumberTypes, ...), DeviceType and the DEVICE_CPU /
// DEVICE_GPU names, from opkit/tensor/types.h and device_type.h.
//
//   DataType dt = DataTypeToEnum<float>::v();     // DT_FLOAT
//   DataTypeString(dt);                           // "float"
//   DeviceType cpu(DEVICE_CPU);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TYPES_H_

#include "opkit/device/device_type.h"
#include "opkit/tensor/types.h"
#include "tensorflow/core/framework/numeric_types.h"
#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TYPES_H_

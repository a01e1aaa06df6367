// TensorFlow compatibility: Tensor (opkit/tensor/tensor.h): a typed,
// shaped, ref-counted buffer whose flat<T>(), vec<T>(), matrix<T>(),
// tensor<T, N>() and scalar<T>() are Eigen TensorMaps; a DT_RESOURCE
// tensor holds ResourceHandles (scalar<ResourceHandle>()), as in TensorFlow.
//
//   Tensor t(DT_INT32, TensorShape({3}));
//   auto v = t.flat<int32>();
//   v(0) = 5;
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_

#include "opkit/tensor/allocator.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor.pb.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/tensor_types.h"
#include "tensorflow/core/framework/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_

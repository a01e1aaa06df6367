// TensorFlow compatibility: Variant (opkit/tensor/variant.h), the element of
// a DT_VARIANT tensor.
//
//   ctx->input(0).scalar<Variant>()().get<MyValue>();
// opkit's Variant has no Encode/Decode: variant tensors are not serialised.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_VARIANT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_VARIANT_H_

#include "opkit/tensor/variant.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_VARIANT_H_

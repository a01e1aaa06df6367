// TensorFlow compatibility: TensorFormat and its helpers, as TensorFlow's
// util/tensor_format.h names them (opkit/tensor/tensor_format.h):
// FORMAT_NHWC / FORMAT_NCHW, FormatFromString, ToString, GetTensorDim,
// GetTensorDimIndex, ShapeFromFormat, GetConvnetDataFormatAttrString.
//
//   string data_format;
//   OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
//   OP_REQUIRES(ctx, FormatFromString(data_format, &data_format_),
//               errors::InvalidArgument("Invalid data format"));
//   const int64 rows = GetTensorDim(input.shape(), data_format_, 'H');
//
// NHWC and NCHW only: the vectorised layouts (NCHW_VECT_C, ...) are not
// there, and FormatFromString rejects them.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_TENSOR_FORMAT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_TENSOR_FORMAT_H_

#include "opkit/tensor/tensor_format.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/lib/gtl/array_slice.h"
#include "tensorflow/core/lib/gtl/inlined_vector.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_TENSOR_FORMAT_H_

// CheckPoolingPadding: the explicit padding of a pooling op must be smaller
// than its window, checked by the pooling shape functions and kernels alike.
//
//   OPKIT_RETURN_IF_ERROR(CheckValidPadding(padding, explicit_paddings, format));
//   OPKIT_RETURN_IF_ERROR(
//       CheckPoolingPadding(padding, explicit_paddings, ksize, format));
#ifndef OPKIT_SHAPE_POOLING_PADDING_H_
#define OPKIT_SHAPE_POOLING_PADDING_H_

#include <cstdint>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/tensor/tensor_format.h"

namespace opkit {
namespace shape_inference {

// For EXPLICIT `padding` (after CheckValidPadding vouched for 8 values):
// each spatial padding must be smaller than the window along its dimension
// (`ksize`, 4 values in `format`), else a window could lie wholly in the
// padding and pool no input at all (TensorFlow refuses it too).
// InvalidArgument naming the value and the window; OK for SAME and VALID.
// Defined in nn_shape_fns.cc, next to CheckValidPadding.
OPKIT_EXPORT Status CheckPoolingPadding(
    Padding padding, const std::vector<int64_t>& explicit_paddings,
    const std::vector<int32_t>& ksize, TensorFormat format);

}  // namespace shape_inference
}  // namespace opkit

#endif  // OPKIT_SHAPE_POOLING_PADDING_H_

// Helpers for the windowed NN kernels (convolution, pooling) and the kernels
// that take a data_format attr: output sizes with TensorFlow's rules and
// messages, computed without overflow, and the 4-D layouts.
//
//   int64_t out_rows, pad_top, pad_bottom;
//   OP_REQUIRES_OK(ctx, GetWindowedOutputSizeVerbose(
//                           in_rows, filter_rows, /*dilation_rate=*/1, stride,
//                           Padding::SAME, &out_rows, &pad_top, &pad_bottom));
//
// Header-only: these are used by kernels inside libopkit_ops.so and are not
// part of opkit's exported API.
#ifndef OPKIT_KERNELS_OPS_UTIL_H_
#define OPKIT_KERNELS_OPS_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/status.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/tensor/tensor_format.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {

using shape_inference::CheckValidPadding;
using shape_inference::Padding;

// The output size of one windowed dimension, and the padding before and
// after it. For EXPLICIT, *padding_before / *padding_after are inputs (the
// caller's explicit amounts, which must be >= 0); for SAME they are computed
// (the odd unit goes after); for VALID they are 0. Errors, as TensorFlow's:
// "Stride must be > 0, but got 0", "Dilation rate must be >= 1, but got 0",
// "Computed output size would be negative: -1 [input_size: 1,
// effective_filter_size: 3, stride: 1]"; and, where TensorFlow would
// overflow, "... overflows int64" naming the values.
inline Status GetWindowedOutputSizeVerbose(int64_t input_size,
                                           int64_t filter_size,
                                           int64_t dilation_rate,
                                           int64_t stride,
                                           Padding padding_type,
                                           int64_t* output_size,
                                           int64_t* padding_before,
                                           int64_t* padding_after) {
  if (stride <= 0) {
    return errors::InvalidArgument("Stride must be > 0, but got ", stride);
  }
  if (dilation_rate < 1) {
    return errors::InvalidArgument("Dilation rate must be >= 1, but got ",
                                   dilation_rate);
  }
  if (input_size < 0 || filter_size < 0) {
    return errors::InvalidArgument(
        "Window input size and filter size must be >= 0, but got ",
        input_size, " and ", filter_size);
  }
  int64_t effective_filter_size;
  if (filter_size == 0) {
    // TensorFlow's formula gives 1 - dilation_rate; an empty window is 0
    // wide however it is dilated only when the dilation is 1, so keep the
    // formula's value for a faithful output size.
    effective_filter_size = 1 - dilation_rate;
  } else if (__builtin_mul_overflow(filter_size - 1, dilation_rate,
                                    &effective_filter_size) ||
             __builtin_add_overflow(effective_filter_size, 1,
                                    &effective_filter_size)) {
    return errors::InvalidArgument("Dilated window of size ", filter_size,
                                   " with dilation rate ", dilation_rate,
                                   " overflows int64");
  }
  switch (padding_type) {
    case Padding::VALID:
    case Padding::EXPLICIT: {
      int64_t padded = input_size;
      if (padding_type == Padding::EXPLICIT) {
        if (*padding_before < 0 || *padding_after < 0) {
          return errors::InvalidArgument(
              "Explicit padding must be nonnegative, but got ",
              *padding_before, " and ", *padding_after);
        }
        if (__builtin_add_overflow(padded, *padding_before, &padded) ||
            __builtin_add_overflow(padded, *padding_after, &padded)) {
          return errors::InvalidArgument("Padding ", input_size, " by ",
                                         *padding_before, " and ",
                                         *padding_after, " overflows int64");
        }
      } else {
        *padding_before = *padding_after = 0;
      }
      const int64_t diff = padded - effective_filter_size;
      // TensorFlow truncates (diff + stride) / stride toward zero.
      const int64_t out = diff >= 0 ? diff / stride + 1
                                    : (diff + stride) / stride;
      if (out < 0) {
        return errors::InvalidArgument(
            "Computed output size would be negative: ", out,
            " [input_size: ", input_size,
            ", effective_filter_size: ", effective_filter_size,
            ", stride: ", stride, "]");
      }
      *output_size = out;
      return OkStatus();
    }
    case Padding::SAME: {
      const int64_t out = input_size / stride + (input_size % stride != 0);
      *output_size = out;
      // (out - 1) * stride + effective_filter_size - input_size, clamped at
      // 0 (out - 1 may be -1 for an empty input).
      int64_t span;
      if (__builtin_mul_overflow(out - 1, stride, &span) ||
          __builtin_add_overflow(span, effective_filter_size, &span)) {
        return errors::InvalidArgument("Window of size ",
                                       effective_filter_size, " at stride ",
                                       stride, " overflows int64");
      }
      const int64_t needed = span - input_size > 0 ? span - input_size : 0;
      *padding_before = needed / 2;
      *padding_after = needed - *padding_before;
      return OkStatus();
    }
  }
  return errors::InvalidArgument("Unknown padding type ",
                                 static_cast<int>(padding_type));
}

// A 4-D shape from its parts in `format`; InvalidArgument when the element
// count overflows.
inline Status ShapeFromFormat(TensorFormat format, int64_t n, int64_t h,
                              int64_t w, int64_t c, TensorShape* shape) {
  if (format == TensorFormat::kNHWC) {
    return TensorShape::BuildTensorShape({n, h, w, c}, shape);
  }
  return TensorShape::BuildTensorShape({n, c, h, w}, shape);
}

// The taps [*first, *last) of a window starting at `origin` (possibly
// negative), with `taps` taps `dilation` apart, that fall inside [0, size):
// the part of a convolution or pooling window over real input, padding left
// out.
inline void ValidTaps(int64_t origin, int64_t size, int64_t taps, int64_t dilation,
                      int64_t* first, int64_t* last) {
  *first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
  *last = origin >= size ? 0 : std::min(taps, (size - origin + dilation - 1) / dilation);
  if (*last < *first) *last = *first;
}

}  // namespace opkit

#endif  // OPKIT_KERNELS_OPS_UTIL_H_

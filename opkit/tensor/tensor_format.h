// TensorFormat: the layout of a 4-D image tensor (NHWC or NCHW), as the
// data_format attr of convolution, pooling and bias ops names it, and where
// each dimension sits in it. Shape functions and kernels read it the same way.
#ifndef OPKIT_TENSOR_TENSOR_FORMAT_H_
#define OPKIT_TENSOR_TENSOR_FORMAT_H_

#include <string>

namespace opkit {

enum class TensorFormat { kNHWC, kNCHW };

// "NHWC" or "NCHW"; false for anything else (the caller words the error, as
// TensorFlow's kernels and shape functions each do).
inline bool FormatFromString(const std::string& s, TensorFormat* format) {
  if (s == "NHWC") {
    *format = TensorFormat::kNHWC;
    return true;
  }
  if (s == "NCHW") {
    *format = TensorFormat::kNCHW;
    return true;
  }
  return false;
}

inline const char* ToString(TensorFormat format) {
  return format == TensorFormat::kNHWC ? "NHWC" : "NCHW";
}

// The index of dimension `dim` ('N', 'H', 'W' or 'C') of a 4-D value in
// `format`; -1 for any other letter.
inline int FormatDimIndex(TensorFormat format, char dim) {
  switch (dim) {
    case 'N':
      return 0;
    case 'H':
      return format == TensorFormat::kNHWC ? 1 : 2;
    case 'W':
      return format == TensorFormat::kNHWC ? 2 : 3;
    case 'C':
      return format == TensorFormat::kNHWC ? 3 : 1;
    default:
      return -1;
  }
}

}  // namespace opkit

#endif  // OPKIT_TENSOR_TENSOR_FORMAT_H_

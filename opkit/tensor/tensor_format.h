// TensorFormat: the layout of a 4-D image tensor (NHWC or NCHW), as the
// data_format attr of convolution, pooling and bias ops names it, and where
// each dimension sits in it. Shape functions and kernels read it the same way.
//
// TensorFlow's names for the same (tensor_format.h there) work too, for any
// number of spatial dimensions:
//
//   TensorFormat f;
//   OP_REQUIRES(ctx, FormatFromString(data_format, &f), ...);
//   const int64_t h = GetTensorDim(input.shape(), f, 'H');
//   const int32_t stride_w = GetTensorDim(strides_, f, 'W');   // a vector
//   TensorShape out = ShapeFromFormat(f, batch, out_h, out_w, depth);
//   REGISTER_OP(...).Attr(GetConvnetDataFormatAttrString());
//
// Only NHWC and NCHW (and their N-D forms, NDHWC / NCDHW) exist here; the
// vectorised and filter layouts of TensorFlow do not.
#ifndef OPKIT_TENSOR_TENSOR_FORMAT_H_
#define OPKIT_TENSOR_TENSOR_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {

enum class TensorFormat { kNHWC, kNCHW };

// TensorFlow's enumerator names.
inline constexpr TensorFormat FORMAT_NHWC = TensorFormat::kNHWC;
inline constexpr TensorFormat FORMAT_NCHW = TensorFormat::kNCHW;

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

// --- TensorFlow's names ------------------------------------------------------

// The attr spec of a convolution's data_format, for REGISTER_OP(...).Attr().
inline std::string GetConvnetDataFormatAttrString() {
  return "data_format: { 'NHWC', 'NCHW' } = 'NHWC' ";
}
inline std::string GetConvnet3dDataFormatAttrString() {
  return "data_format: { 'NDHWC', 'NCDHW' } = 'NDHWC' ";
}

// Where the batch, feature and i-th spatial dimension sit in a value of
// `num_dims` dimensions.
inline int GetTensorBatchDimIndex(int /*num_dims*/, TensorFormat /*format*/) {
  return 0;
}
inline int GetTensorFeatureDimIndex(int num_dims, TensorFormat format) {
  return format == TensorFormat::kNHWC ? num_dims - 1 : 1;
}
inline int GetTensorSpatialDims(int num_dims, TensorFormat /*format*/) {
  return num_dims - 2;
}
inline int GetTensorSpatialDimIndex(int /*num_dims*/, TensorFormat format,
                                    int spatial_dim) {
  return format == TensorFormat::kNHWC ? spatial_dim + 1 : spatial_dim + 2;
}

// The index of `dimension` in a value of `num_total_dims` dimensions:
// 'N', 'C', the spatial dimensions by number ('0', '1', '2') or by letter
// counted from the last spatial one ('H', 'W' and, 5-D, 'D'). -1 for any
// other letter (TensorFlow aborts there).
inline int GetTensorDimIndex(TensorFormat format, char dimension,
                             int num_total_dims) {
  const int spatial = num_total_dims - 2;
  int spatial_dim = -1;
  switch (dimension) {
    case 'N':
      return 0;
    case 'C':
      return GetTensorFeatureDimIndex(num_total_dims, format);
    case '0':
    case '1':
    case '2':
      spatial_dim = dimension - '0';
      break;
    case 'D':
      spatial_dim = spatial - 3;
      break;
    case 'H':
      spatial_dim = spatial - 2;
      break;
    case 'W':
      spatial_dim = spatial - 1;
      break;
    default:
      return -1;
  }
  if (spatial_dim < 0 || spatial_dim >= spatial) return -1;
  return GetTensorSpatialDimIndex(num_total_dims, format, spatial_dim);
}
// For a value with NUM_SPATIAL_DIMS spatial dimensions (default: 2, 4-D).
template <int NUM_SPATIAL_DIMS = 2>
int GetTensorDimIndex(TensorFormat format, char dimension) {
  return GetTensorDimIndex(format, dimension, NUM_SPATIAL_DIMS + 2);
}

// The index of dimension `dim` ('N', 'H', 'W' or 'C') of a 4-D value in
// `format`; -1 for any other letter.
inline int FormatDimIndex(TensorFormat format, char dim) {
  return GetTensorDimIndex(format, dim, 4);
}

// The size of `dimension` in `shape` laid out in `format`. The dimension
// must exist (checked).
inline int64_t GetTensorDim(const TensorShape& shape, TensorFormat format,
                            char dimension) {
  const int index = GetTensorDimIndex(format, dimension, shape.dims());
  OPKIT_CHECK(index >= 0 && index < shape.dims())
      << "Invalid dimension '" << dimension << "' for a " << shape.dims()
      << "-D shape in format " << ToString(format);
  return shape.dim_size(index);
}
// The per-dimension attribute (strides, ksize, dilations) for `dimension`.
template <typename T>
T GetTensorDim(absl::Span<const T> attributes, TensorFormat format,
               char dimension) {
  const int num_dims = static_cast<int>(attributes.size());
  const int index = GetTensorDimIndex(format, dimension, num_dims);
  OPKIT_CHECK(index >= 0 && index < num_dims)
      << "Invalid dimension '" << dimension << "' for " << num_dims
      << " attribute values in format " << ToString(format);
  return attributes[index];
}
template <typename T>
T GetTensorDim(const std::vector<T>& attributes, TensorFormat format,
               char dimension) {
  return GetTensorDim(absl::Span<const T>(attributes), format, dimension);
}

// The shape of `N` values of `spatial` sizes and `C` features in `format`.
inline TensorShape ShapeFromFormat(TensorFormat format, int64_t N,
                                   absl::Span<const int64_t> spatial,
                                   int64_t C) {
  const int num_dims = static_cast<int>(spatial.size()) + 2;
  std::vector<int64_t> dims(num_dims);
  dims[GetTensorBatchDimIndex(num_dims, format)] = N;
  for (int i = 0; i < static_cast<int>(spatial.size()); ++i) {
    dims[GetTensorSpatialDimIndex(num_dims, format, i)] = spatial[i];
  }
  dims[GetTensorFeatureDimIndex(num_dims, format)] = C;
  return TensorShape(dims);
}
inline TensorShape ShapeFromFormat(TensorFormat format, int64_t N, int64_t H,
                                   int64_t W, int64_t C) {
  const int64_t spatial[] = {H, W};
  return ShapeFromFormat(format, N, spatial, C);
}

}  // namespace opkit

#endif  // OPKIT_TENSOR_TENSOR_FORMAT_H_

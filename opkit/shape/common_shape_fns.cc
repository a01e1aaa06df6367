// Common shape functions. Behaviour and messages follow TensorFlow's
// common_shape_fns.cc (and array_ops.cc for Reshape/Transpose); the
// arithmetic on known sizes is done here with overflow checks, so that no
// attr or shape can make a function compute garbage or abort.
#include "opkit/shape/common_shape_fns.h"

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace shape_inference {

namespace {

constexpr int64_t kUnknown = InferenceContext::kUnknownDim;

bool AddOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out);
}
bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// The 4-D layouts the convolution and pooling functions understand.
enum class Format { kNHWC, kNCHW };

struct FormatIndices {
  int n, h, w, c;
};

FormatIndices IndicesOf(Format f) {
  return f == Format::kNHWC ? FormatIndices{0, 1, 2, 3}
                            : FormatIndices{0, 2, 3, 1};
}

Status ParseFormat(const std::string& s, Format* f) {
  if (s == "NHWC") {
    *f = Format::kNHWC;
  } else if (s == "NCHW") {
    *f = Format::kNCHW;
  } else {
    return errors::InvalidArgument("Invalid data format string: ", s,
                                   " (use 'NHWC' or 'NCHW')");
  }
  return OkStatus();
}

// Reads the optional data_format attr; NHWC when the op has none.
Status GetDataFormat(InferenceContext* c, Format* f) {
  std::string s;
  if (!c->GetAttr("data_format", &s).ok()) s = "NHWC";
  return ParseFormat(s, f);
}

Status GetPadding(InferenceContext* c, Padding* padding) {
  std::string s;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("padding", &s));
  return GetPaddingFromString(s, padding);
}

// The int32/int64 elements of a constant input tensor.
Status ReadIntTensor(const Tensor& t, const char* what,
                     std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return errors::InvalidArgument(what, " must be int32 or int64, got ",
                                   DataTypeString(t.dtype()));
  }
  const int64_t n = t.NumElements();
  if (n == 0) return OkStatus();
  OPKIT_RETURN_IF_ERROR(t.CheckTypeAndRank(t.dtype()));
  out->reserve(static_cast<size_t>(n));
  if (t.dtype() == DT_INT32) {
    auto flat = t.flat<int32>();
    for (int64_t i = 0; i < n; ++i) out->push_back(flat(i));
  } else {
    auto flat = t.flat<int64>();
    for (int64_t i = 0; i < n; ++i) out->push_back(flat(i));
  }
  return OkStatus();
}

// Output size of one windowed dimension from known/unknown plain values;
// `filter` may be kUnknown.
Status WindowedOutputSize(InferenceContext* c, DimensionHandle input_size,
                          int64_t filter, int64_t dilation_rate,
                          int64_t stride, Padding padding_type,
                          int64_t padding_before, int64_t padding_after,
                          DimensionHandle* output_size) {
  if (stride <= 0) {
    return errors::InvalidArgument("Stride must be > 0, but got ", stride);
  }
  if (dilation_rate < 1) {
    return errors::InvalidArgument("Dilation rate must be >= 1, but got ",
                                   dilation_rate);
  }
  if (filter != kUnknown && filter < 0) {
    return errors::InvalidArgument("Window size must be >= 0, but got ",
                                   filter);
  }
  if (padding_type == Padding::EXPLICIT &&
      (padding_before < 0 || padding_after < 0)) {
    return errors::InvalidArgument(
        "Explicit padding must be nonnegative, but got ", padding_before,
        " and ", padding_after);
  }
  // Where the output size is the input size whatever it is, the output is
  // the input's own dimension, so that later functions know they are equal
  // (TensorFlow's arithmetic on handles gives the same).
  if (stride == 1) {
    const bool unit_window = filter == 1;
    const bool no_padding = padding_type == Padding::VALID ||
                            (padding_type == Padding::EXPLICIT &&
                             padding_before == 0 && padding_after == 0);
    if (padding_type == Padding::SAME || (unit_window && no_padding)) {
      *output_size = input_size;
      return OkStatus();
    }
  }
  if (!c->ValueKnown(input_size)) {
    *output_size = c->UnknownDim();
    return OkStatus();
  }
  int64_t in = c->Value(input_size);
  if (padding_type == Padding::SAME) {
    int64_t sum;
    if (AddOverflows(in, stride - 1, &sum)) {
      return errors::InvalidArgument("Dimension size overflow from adding ",
                                     in, " and ", stride - 1);
    }
    *output_size = c->MakeDim(sum / stride);
    return OkStatus();
  }
  if (padding_type == Padding::EXPLICIT) {
    int64_t pad, padded;
    if (AddOverflows(padding_before, padding_after, &pad) ||
        AddOverflows(in, pad, &padded)) {
      return errors::InvalidArgument("Dimension size overflow from padding ",
                                     in, " with ", padding_before, " and ",
                                     padding_after);
    }
    in = padded;
  }
  if (filter == kUnknown) {
    *output_size = c->UnknownDim();
    return OkStatus();
  }
  int64_t window = filter;
  if (dilation_rate > 1) {
    if (filter < 1) {
      return errors::InvalidArgument(
          "Negative dimension size caused by subtracting 1 from ", filter);
    }
    int64_t scaled;
    if (MulOverflows(filter - 1, dilation_rate, &scaled) ||
        AddOverflows(scaled, 1, &window)) {
      return errors::InvalidArgument("Dilated window of size ", filter,
                                     " with dilation rate ", dilation_rate,
                                     " overflows int64");
    }
  }
  if (in < window) {
    return errors::InvalidArgument(
        "Negative dimension size caused by subtracting ", window, " from ",
        in);
  }
  // (in - window + stride) / stride, without overflowing the sum.
  *output_size = c->MakeDim((in - window) / stride + 1);
  return OkStatus();
}

// TensorFlow's CheckValidPadding for a 4-D op.
Status CheckValidPadding(Padding padding,
                         const std::vector<int64_t>& explicit_paddings,
                         Format format) {
  constexpr int kNumDims = 4;
  if (padding == Padding::EXPLICIT) {
    if (explicit_paddings.size() != 2 * kNumDims) {
      return errors::InvalidArgument(
          "explicit_paddings attribute must contain ", 2 * kNumDims,
          " values, but got: ", explicit_paddings.size());
    }
    for (size_t i = 0; i < explicit_paddings.size(); ++i) {
      if (explicit_paddings[i] < 0) {
        return errors::InvalidArgument(
            "All elements of explicit_paddings must be nonnegative, but "
            "element ",
            i, " is ", explicit_paddings[i]);
      }
    }
    const FormatIndices idx = IndicesOf(format);
    if (explicit_paddings[2 * idx.n] != 0 ||
        explicit_paddings[2 * idx.n + 1] != 0 ||
        explicit_paddings[2 * idx.c] != 0 ||
        explicit_paddings[2 * idx.c + 1] != 0) {
      return errors::InvalidArgument(
          "Nonzero explicit padding in the batch or depth dimensions is not "
          "supported");
    }
  } else if (!explicit_paddings.empty()) {
    return errors::InvalidArgument(
        "explicit_paddings attribute must be empty if the padding attribute "
        "is not EXPLICIT");
  }
  return OkStatus();
}

ShapeHandle MakeShapeFromFormat(InferenceContext* c, Format format,
                                DimensionHandle n, DimensionHandle h,
                                DimensionHandle w, DimensionHandle ch) {
  if (format == Format::kNHWC) return c->MakeShape({n, h, w, ch});
  return c->MakeShape({n, ch, h, w});
}

Status Conv2DShapeImpl(InferenceContext* c, bool supports_explicit_padding) {
  std::string data_format_str, filter_format_str;
  if (!c->GetAttr("data_format", &data_format_str).ok()) {
    data_format_str = "NHWC";
  }
  if (!c->GetAttr("filter_format", &filter_format_str).ok()) {
    filter_format_str = "HWIO";
  }
  Format format;
  OPKIT_RETURN_IF_ERROR(ParseFormat(data_format_str, &format));
  // Filter dimension indices for H, W, I, O.
  int fh, fw, fi, fo;
  if (filter_format_str == "HWIO") {
    fh = 0, fw = 1, fi = 2, fo = 3;
  } else if (filter_format_str == "OIHW") {
    fo = 0, fi = 1, fh = 2, fw = 3;
  } else {
    return errors::InvalidArgument("Invalid filter format string: ",
                                   filter_format_str,
                                   " (use 'HWIO' or 'OIHW')");
  }

  ShapeHandle input_shape, filter_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter_shape));

  std::vector<int32> dilations;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
  if (dilations.size() != 4) {
    return errors::InvalidArgument(
        "Conv2D requires the dilation attribute to contain 4 values, but "
        "got: ",
        dilations.size());
  }
  std::vector<int32> strides;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 4) {
    return errors::InvalidArgument(
        "Conv2D on data format ", data_format_str,
        " requires the stride attribute to contain 4 values, but got: ",
        strides.size());
  }
  const FormatIndices idx = IndicesOf(format);

  DimensionHandle batch = c->Dim(input_shape, idx.n);
  DimensionHandle in_rows = c->Dim(input_shape, idx.h);
  DimensionHandle in_cols = c->Dim(input_shape, idx.w);
  DimensionHandle in_depth = c->Dim(input_shape, idx.c);
  DimensionHandle out_depth = c->Dim(filter_shape, fo);
  DimensionHandle filter_rows = c->Dim(filter_shape, fh);
  DimensionHandle filter_cols = c->Dim(filter_shape, fw);
  DimensionHandle filter_in_depth = c->Dim(filter_shape, fi);

  if (c->ValueKnown(in_depth) && c->ValueKnown(filter_in_depth)) {
    const int64_t in_d = c->Value(in_depth);
    const int64_t f_d = c->Value(filter_in_depth);
    if (f_d == 0) {
      return errors::InvalidArgument(
          "Depth of input of filter must be > 0, but the filter shape is ",
          c->DebugString(filter_shape));
    }
    if (in_d % f_d != 0) {
      return errors::InvalidArgument(
          "Depth of input (", in_d,
          ") is not a multiple of input depth of filter (", f_d, ")");
    }
    // An empty input (depth 0) has no groups to check.
    const int64_t groups = in_d / f_d;
    if (in_d != f_d && groups > 0 && c->ValueKnown(out_depth)) {
      if (c->Value(out_depth) % groups != 0) {
        return errors::InvalidArgument(
            "Depth of output (", c->Value(out_depth),
            ") is not a multiple of the number of groups (", groups, ")");
      }
    }
  }

  Padding padding;
  OPKIT_RETURN_IF_ERROR(GetPadding(c, &padding));
  std::vector<int64> explicit_paddings;
  if (supports_explicit_padding) {
    Status s = c->GetAttr("explicit_paddings", &explicit_paddings);
    if (!s.ok() && !errors::IsNotFound(s)) return s;
    OPKIT_RETURN_IF_ERROR(CheckValidPadding(padding, explicit_paddings, format));
  } else if (padding == Padding::EXPLICIT) {
    return errors::InvalidArgument(
        "This Conv2D-like op does not support EXPLICIT padding; use SAME or "
        "VALID");
  }
  int64_t pad_rows_before = -1, pad_rows_after = -1;
  int64_t pad_cols_before = -1, pad_cols_after = -1;
  if (padding == Padding::EXPLICIT) {
    pad_rows_before = explicit_paddings[2 * idx.h];
    pad_rows_after = explicit_paddings[2 * idx.h + 1];
    pad_cols_before = explicit_paddings[2 * idx.w];
    pad_cols_after = explicit_paddings[2 * idx.w + 1];
  }

  DimensionHandle out_rows, out_cols;
  OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
      c, in_rows, c->Value(filter_rows), dilations[idx.h], strides[idx.h],
      padding, pad_rows_before, pad_rows_after, &out_rows));
  OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
      c, in_cols, c->Value(filter_cols), dilations[idx.w], strides[idx.w],
      padding, pad_cols_before, pad_cols_after, &out_cols));
  c->set_output(
      0, MakeShapeFromFormat(c, format, batch, out_rows, out_cols, out_depth));
  return OkStatus();
}

// Shared by MaxPool and AvgPool; `op` names the op in messages.
Status PoolShape(InferenceContext* c, const char* op, bool pool_depth,
                 bool supports_explicit_padding = false) {
  Format format;
  OPKIT_RETURN_IF_ERROR(GetDataFormat(c, &format));
  ShapeHandle input_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input_shape));

  std::vector<int32> strides;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 4) {
    return errors::InvalidArgument(
        op, " requires the stride attribute to contain 4 values, but got: ",
        strides.size());
  }
  std::vector<int32> ksize;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  if (ksize.size() != 4) {
    return errors::InvalidArgument(
        op, " requires the ksize attribute to contain 4 values, but got: ",
        ksize.size());
  }
  for (size_t i = 0; i < ksize.size(); ++i) {
    if (ksize[i] < 1) {
      return errors::InvalidArgument(op,
                                     " requires ksize values to be >= 1, but "
                                     "ksize[",
                                     i, "] is ", ksize[i]);
    }
  }
  const FormatIndices idx = IndicesOf(format);
  DimensionHandle batch = c->Dim(input_shape, idx.n);
  DimensionHandle in_rows = c->Dim(input_shape, idx.h);
  DimensionHandle in_cols = c->Dim(input_shape, idx.w);
  DimensionHandle depth = c->Dim(input_shape, idx.c);

  Padding padding;
  OPKIT_RETURN_IF_ERROR(GetPadding(c, &padding));
  std::vector<int64> explicit_paddings;
  if (supports_explicit_padding) {
    Status s = c->GetAttr("explicit_paddings", &explicit_paddings);
    if (!s.ok() && !errors::IsNotFound(s)) return s;
    OPKIT_RETURN_IF_ERROR(
        CheckValidPadding(padding, explicit_paddings, format));
  } else if (padding == Padding::EXPLICIT) {
    return errors::InvalidArgument(op,
                                   " does not support EXPLICIT padding; use "
                                   "SAME or VALID");
  }
  // Only read for EXPLICIT, where CheckValidPadding vouched for 8 values
  // (and zero for the depth pair).
  auto pad = [&](int dim, int side) -> int64_t {
    return padding == Padding::EXPLICIT ? explicit_paddings[2 * dim + side]
                                        : -1;
  };
  DimensionHandle out_rows, out_cols;
  OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
      c, in_rows, ksize[idx.h], /*dilation_rate=*/1, strides[idx.h], padding,
      pad(idx.h, 0), pad(idx.h, 1), &out_rows));
  OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
      c, in_cols, ksize[idx.w], /*dilation_rate=*/1, strides[idx.w], padding,
      pad(idx.w, 0), pad(idx.w, 1), &out_cols));
  if (pool_depth) {
    OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
        c, depth, ksize[idx.c], /*dilation_rate=*/1, strides[idx.c], padding,
        pad(idx.c, 0), pad(idx.c, 1), &depth));
  }
  c->set_output(0,
                MakeShapeFromFormat(c, format, batch, out_rows, out_cols, depth));
  return OkStatus();
}

Status ConcatShapeHelper(InferenceContext* c, int start_value_index,
                         int end_value_index, int dim_index) {
  if (start_value_index < 0 || end_value_index > c->num_inputs() ||
      start_value_index >= end_value_index || dim_index < 0 ||
      dim_index >= c->num_inputs()) {
    return errors::InvalidArgument(
        "Concat needs an axis and at least one value among its ",
        c->num_inputs(), " inputs");
  }
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(dim_index), 0, &unused));
  const Tensor* concat_dim_t = c->input_tensor(dim_index);
  if (concat_dim_t == nullptr) {
    // Without the axis only the rank can be known: the first known one,
    // which every other input must share.
    int32_t rank = InferenceContext::kUnknownRank;
    for (int i = start_value_index; i < end_value_index; ++i) {
      rank = c->Rank(c->input(i));
      if (rank != InferenceContext::kUnknownRank) break;
    }
    if (rank == InferenceContext::kUnknownRank) {
      c->set_output(0, c->UnknownShape());
      return OkStatus();
    }
    if (rank == 0) {
      return errors::InvalidArgument(
          "Can't concatenate scalars (use tf.stack instead)");
    }
    for (int i = start_value_index; i < end_value_index; ++i) {
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), rank, &unused));
    }
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return OkStatus();
  }

  std::vector<int64_t> axis_values;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*concat_dim_t, "Concat axis",
                                      &axis_values));
  if (axis_values.size() != 1) {
    return errors::InvalidArgument("Concat axis must be a scalar, but has ",
                                   axis_values.size(), " elements");
  }
  const int64_t concat_dim = axis_values[0];
  // Far beyond any possible rank; keeps -concat_dim and the rank checks
  // below free of overflow.
  constexpr int64_t kMaxAxis = std::numeric_limits<int32_t>::max() / 2;
  if (concat_dim < -kMaxAxis || concat_dim > kMaxAxis) {
    return errors::InvalidArgument("Concat axis ", concat_dim,
                                   " is out of range for any input rank");
  }
  const int64_t min_rank = concat_dim < 0 ? -concat_dim : concat_dim + 1;

  auto split = [&](ShapeHandle input, ShapeHandle* before,
                   DimensionHandle* middle, ShapeHandle* after) -> Status {
    OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(input, min_rank, &input));
    OPKIT_RETURN_IF_ERROR(c->Subshape(input, 0, concat_dim, before));
    *middle = c->Dim(input, concat_dim);
    if (concat_dim == -1) {
      *after = c->Scalar();
    } else {
      OPKIT_RETURN_IF_ERROR(c->Subshape(input, concat_dim + 1, after));
    }
    return OkStatus();
  };

  ShapeHandle output_before, output_after;
  DimensionHandle output_middle;
  OPKIT_RETURN_IF_ERROR(split(c->input(end_value_index - 1), &output_before,
                              &output_middle, &output_after));
  for (int i = end_value_index - 2; i >= start_value_index; --i) {
    ShapeHandle before, after;
    DimensionHandle middle;
    OPKIT_RETURN_IF_ERROR(split(c->input(i), &before, &middle, &after));
    OPKIT_RETURN_IF_ERROR(c->Merge(before, output_before, &output_before));
    if (c->ValueKnown(output_middle) && c->ValueKnown(middle)) {
      int64_t sum;
      if (AddOverflows(c->Value(output_middle), c->Value(middle), &sum)) {
        return errors::InvalidArgument("Dimension size overflow from adding ",
                                       c->Value(output_middle), " and ",
                                       c->Value(middle));
      }
      output_middle = c->MakeDim(sum);
    } else {
      output_middle = c->UnknownDim();
    }
    OPKIT_RETURN_IF_ERROR(c->Merge(after, output_after, &output_after));
  }
  ShapeHandle s;
  OPKIT_RETURN_IF_ERROR(
      c->Concatenate(output_before, c->Vector(output_middle), &s));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(s, output_after, &s));
  c->set_output(0, s);
  return OkStatus();
}

// The product of the known dimensions of `s`, and the index of its one
// unknown dimension (-1 if none; *too_many when more than one).
Status KnownElements(InferenceContext* c, ShapeHandle s, int64_t* known,
                     int32_t* unknown_idx, bool* too_many) {
  *known = 1;
  *unknown_idx = -1;
  for (int32_t i = 0; i < c->Rank(s); ++i) {
    DimensionHandle d = c->Dim(s, i);
    if (!c->ValueKnown(d)) {
      if (*unknown_idx >= 0) {
        *too_many = true;
        return OkStatus();
      }
      *unknown_idx = i;
      continue;
    }
    if (MulOverflows(*known, c->Value(d), known)) {
      return errors::InvalidArgument("The number of elements of shape ",
                                     c->DebugString(s), " overflows int64");
    }
  }
  return OkStatus();
}

// The rank and channel dimension of a batch-norm input in `data_format`.
Status BatchNormLayout(const std::string& data_format, int* rank,
                       int* channel) {
  if (data_format == "NHWC") {
    *rank = 4, *channel = 3;
  } else if (data_format == "NCHW") {
    *rank = 4, *channel = 1;
  } else if (data_format == "NDHWC") {
    *rank = 5, *channel = 4;
  } else if (data_format == "NCDHW") {
    *rank = 5, *channel = 1;
  } else {
    return errors::InvalidArgument(
        "Invalid data format string: ", data_format,
        " (use 'NHWC', 'NCHW', 'NDHWC' or 'NCDHW')");
  }
  return OkStatus();
}

// A negative rank is a bug in the op's shape function, reported, not fatal.
Status CheckRankArgument(int32_t rank) {
  if (rank < 0) {
    return errors::InvalidArgument("A shape function asked for rank ", rank,
                                   "; a rank must be >= 0");
  }
  return OkStatus();
}

}  // namespace

Status GetPaddingFromString(const std::string& str, Padding* padding) {
  if (str == "VALID") {
    *padding = Padding::VALID;
  } else if (str == "SAME") {
    *padding = Padding::SAME;
  } else if (str == "EXPLICIT") {
    *padding = Padding::EXPLICIT;
  } else {
    return errors::InvalidArgument(
        str, " is not an allowed padding type (use 'SAME', 'VALID' or "
             "'EXPLICIT')");
  }
  return OkStatus();
}

Status GetWindowedOutputSizeFromDimsV2(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t dilation_rate, int64_t stride,
    Padding padding_type, int64_t padding_before, int64_t padding_after,
    DimensionHandle* output_size) {
  return WindowedOutputSize(c, input_size, c->Value(filter_size),
                            dilation_rate, stride, padding_type,
                            padding_before, padding_after, output_size);
}

Status GetWindowedOutputSizeFromDims(InferenceContext* c,
                                     DimensionHandle input_size,
                                     DimensionOrConstant filter_size,
                                     int64_t stride, Padding padding_type,
                                     DimensionHandle* output_size) {
  if (padding_type == Padding::EXPLICIT) {
    return errors::Internal(
        "GetWindowedOutputSizeFromDims does not handle EXPLICIT padding; call "
        "GetWindowedOutputSizeFromDimsV2 instead");
  }
  return WindowedOutputSize(c, input_size, c->Value(filter_size),
                            /*dilation_rate=*/1, stride, padding_type, -1, -1,
                            output_size);
}

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  // A resource handle passes its handle data along with its shape.
  const std::vector<ShapeAndType>* handle_data =
      c->input_handle_shapes_and_types(0);
  if (handle_data != nullptr) {
    c->set_output_handle_shapes_and_types(0, *handle_data);
  }
  return OkStatus();
}

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return OkStatus();
}

Status ScalarShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return OkStatus();
}

Status NoOutputs(InferenceContext* c) { return OkStatus(); }

Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank) {
  OPKIT_RETURN_IF_ERROR(CheckRankArgument(rank));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int32_t rank) {
  OPKIT_RETURN_IF_ERROR(CheckRankArgument(rank));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status UnchangedShapeWithRankAtMost(InferenceContext* c, int32_t rank) {
  OPKIT_RETURN_IF_ERROR(CheckRankArgument(rank));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status MatMulShape(InferenceContext* c) {
  ShapeHandle a, b;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  bool transpose_a, transpose_b;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  DimensionHandle rows = c->Dim(a, transpose_a ? 1 : 0);
  DimensionHandle cols = c->Dim(b, transpose_b ? 0 : 1);
  DimensionHandle inner;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(a, transpose_a ? 0 : 1),
                                 c->Dim(b, transpose_b ? 1 : 0), &inner));
  c->set_output(0, c->Matrix(rows, cols));
  return OkStatus();
}

Status BatchMatMulV2Shape(InferenceContext* c) {
  ShapeHandle a, b;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x, adj_y;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  DimensionHandle inner;
  OPKIT_RETURN_IF_ERROR(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner));
  ShapeHandle a_batch, b_batch, batch;
  OPKIT_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  OPKIT_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  OPKIT_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, a_batch, b_batch, /*incompatible_shape_error=*/true, &batch));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return OkStatus();
}

Status BiasAddShape(InferenceContext* c) {
  std::string data_format;
  const bool nchw =
      c->GetAttr("data_format", &data_format).ok() && data_format == "NCHW";
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  ShapeHandle bias;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  DimensionHandle bias_dim = c->Dim(bias, 0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int64_t channel = nchw ? 1 : c->Rank(input) - 1;
  DimensionHandle merged;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(input, channel), bias_dim, &merged));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->ReplaceDim(input, channel, merged, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status BiasAddGradShape(InferenceContext* c) {
  std::string data_format;
  const bool nchw =
      c->GetAttr("data_format", &data_format).ok() && data_format == "NCHW";
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  c->set_output(0, c->Vector(c->Dim(input, nchw ? 1 : -1)));
  return OkStatus();
}

Status BroadcastBinaryOpOutputShapeFnHelper(InferenceContext* c,
                                            ShapeHandle shape_x,
                                            ShapeHandle shape_y,
                                            bool incompatible_shape_error,
                                            ShapeHandle* out) {
  if (!c->RankKnown(shape_x) || !c->RankKnown(shape_y)) {
    *out = c->UnknownShape();
    return OkStatus();
  }
  const int32_t rank_x = c->Rank(shape_x);
  const int32_t rank_y = c->Rank(shape_y);
  const int32_t rank_out = rank_x > rank_y ? rank_x : rank_y;
  // The shorter shape is padded on the left with 1s.
  DimensionHandle one;
  if (rank_x != rank_y) one = c->MakeDim(1);
  std::vector<DimensionHandle> dims;
  dims.reserve(rank_out);
  for (int32_t i = 0; i < rank_out; ++i) {
    const bool x_padded = i < rank_out - rank_x;
    const bool y_padded = i < rank_out - rank_y;
    DimensionHandle dx = x_padded ? one : c->Dim(shape_x, i - (rank_out - rank_x));
    DimensionHandle dy = y_padded ? one : c->Dim(shape_y, i - (rank_out - rank_y));
    const int64_t vx = c->Value(dx);
    const int64_t vy = c->Value(dy);
    if (!c->ValueKnown(dx) || !c->ValueKnown(dy)) {
      // With one side unknown: a known side > 1 wins (the program is assumed
      // correct), a known 1 yields the other side, two unknowns stay unknown
      // unless they are the same handle.
      if (vx > 1 || vy > 1) {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return OkStatus();
        }
        dims.push_back(vx > 1 ? dx : dy);
      } else if (vx == 1) {
        dims.push_back(dy);
      } else if (vy == 1) {
        dims.push_back(dx);
      } else if (dx.SameHandle(dy)) {
        dims.push_back(dx);
      } else if (!c->ValueKnown(dx) && !c->ValueKnown(dy)) {
        dims.push_back(c->UnknownDim());
      } else {
        // One side is a known 0 against an unknown.
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return OkStatus();
        }
        dims.push_back(c->UnknownDim());
      }
    } else if (vx == 1 || vy == 1) {
      if (vx == 1 && !y_padded) {
        dims.push_back(dy);
      } else {
        dims.push_back(dx);
      }
    } else {
      DimensionHandle merged;
      Status s = c->Merge(dx, dy, &merged);
      if (!s.ok()) {
        if (!incompatible_shape_error) {
          *out = c->Scalar();
          return OkStatus();
        }
        return s;
      }
      dims.push_back(merged);
    }
  }
  *out = c->MakeShape(dims);
  return OkStatus();
}

Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c, int output_index) {
  if (c->num_inputs() < 2) {
    return errors::InvalidArgument(
        "A broadcasting binary op needs 2 inputs, but has ", c->num_inputs());
  }
  if (output_index < 0 || output_index >= c->num_outputs()) {
    return errors::InvalidArgument("Output index ", output_index,
                                   " is out of range for an op with ",
                                   c->num_outputs(), " outputs");
  }
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), /*incompatible_shape_error=*/true, &out));
  c->set_output(output_index, out);
  return OkStatus();
}

Status BroadcastBinaryOpShapeFn(InferenceContext* c) {
  return BroadcastBinaryOpOutputShapeFn(c, 0);
}

Status ReductionShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle indices;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &indices));
  bool keep_dims;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));

  const Tensor* indices_t = c->input_tensor(1);
  if (indices_t == nullptr || !c->RankKnown(input)) {
    if (keep_dims && c->RankKnown(input)) {
      c->set_output(0, c->UnknownShapeOfRank(c->Rank(input)));
      return OkStatus();
    }
    return UnknownShape(c);
  }
  if (indices_t->dtype() != DT_INT32 && indices_t->dtype() != DT_INT64) {
    return errors::InvalidArgument(
        "reduction_indices can only be int32 or int64, got ",
        DataTypeString(indices_t->dtype()));
  }
  std::vector<int64_t> axes;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*indices_t, "reduction_indices", &axes));
  const int32_t rank = c->Rank(input);
  std::set<int64_t> reduced;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis,
                                     " for input with ", rank, " dimensions.");
    }
    reduced.insert(axis < 0 ? axis + rank : axis);
  }
  std::vector<DimensionHandle> dims;
  for (int32_t i = 0; i < rank; ++i) {
    if (reduced.count(i) == 0) {
      dims.push_back(c->Dim(input, i));
    } else if (keep_dims) {
      dims.push_back(c->MakeDim(1));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status ConcatShape(InferenceContext* c, int num_inputs_to_concat) {
  if (num_inputs_to_concat < 1 ||
      num_inputs_to_concat > c->num_inputs() - 1) {
    return errors::InvalidArgument("Concat of ", num_inputs_to_concat,
                                   " values needs ", num_inputs_to_concat,
                                   " + 1 inputs, but the op has ",
                                   c->num_inputs());
  }
  return ConcatShapeHelper(c, 1, 1 + num_inputs_to_concat, 0);
}

Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeHelper(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}

Status Conv2DShapeWithExplicitPadding(InferenceContext* c) {
  return Conv2DShapeImpl(c, true);
}

Status Conv2DShape(InferenceContext* c) { return Conv2DShapeImpl(c, false); }

Status MaxPoolShape(InferenceContext* c) {
  return PoolShape(c, "MaxPool", /*pool_depth=*/true);
}

Status AvgPoolShape(InferenceContext* c) {
  return PoolShape(c, "AvgPool", /*pool_depth=*/false);
}

Status MaxPoolShapeWithExplicitPadding(InferenceContext* c) {
  return PoolShape(c, "MaxPool", /*pool_depth=*/true,
                   /*supports_explicit_padding=*/true);
}

Status FusedBatchNormShape(InferenceContext* c) {
  std::string data_format;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  int rank, channel;
  OPKIT_RETURN_IF_ERROR(BatchNormLayout(data_format, &rank, &channel));
  ShapeHandle x;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &x));
  bool is_training;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float exponential_avg_factor;
  if (!c->GetAttr("exponential_avg_factor", &exponential_avg_factor).ok()) {
    exponential_avg_factor = 1.0f;
  }
  // Training with a factor of 1 ignores the running mean and variance, so
  // only scale and offset constrain the channels then.
  const int num_vectors =
      (is_training && exponential_avg_factor == 1.0f) ? 3 : 5;
  if (c->num_inputs() < num_vectors || c->num_outputs() < 5) {
    return errors::InvalidArgument(
        "A FusedBatchNorm op needs at least ", num_vectors,
        " inputs and 5 outputs, but has ", c->num_inputs(), " and ",
        c->num_outputs());
  }
  DimensionHandle channels = c->Dim(x, channel);
  for (int i = 1; i < num_vectors; ++i) {
    ShapeHandle vec;
    OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    OPKIT_RETURN_IF_ERROR(c->Merge(channels, c->Dim(vec, 0), &channels));
  }
  ShapeHandle y;
  OPKIT_RETURN_IF_ERROR(c->ReplaceDim(x, channel, channels, &y));
  c->set_output(0, y);
  ShapeHandle vector = c->Vector(channels);
  for (int i = 1; i <= 4; ++i) c->set_output(i, vector);
  return OkStatus();
}

Status FusedBatchNormV3Shape(InferenceContext* c) {
  OPKIT_RETURN_IF_ERROR(FusedBatchNormShape(c));
  if (c->num_outputs() < 6) {
    return errors::InvalidArgument(
        "FusedBatchNormV3 needs 6 outputs, but the op has ", c->num_outputs());
  }
  c->set_output(5, c->UnknownShape());
  return OkStatus();
}

Status FusedBatchNormGradShape(InferenceContext* c) {
  std::string data_format;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  int rank, channel;
  OPKIT_RETURN_IF_ERROR(BatchNormLayout(data_format, &rank, &channel));
  if (c->num_inputs() < 5 || c->num_outputs() < 5) {
    return errors::InvalidArgument(
        "A FusedBatchNormGrad op needs at least 5 inputs and 5 outputs, but "
        "has ",
        c->num_inputs(), " and ", c->num_outputs());
  }
  ShapeHandle y_backprop, x;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &y_backprop));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), rank, &x));
  DimensionHandle channels;
  OPKIT_RETURN_IF_ERROR(
      c->Merge(c->Dim(y_backprop, channel), c->Dim(x, channel), &channels));
  // scale, reserve_space_1 (mean), reserve_space_2 (variance).
  for (int i = 2; i < 5; ++i) {
    ShapeHandle vec;
    OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    OPKIT_RETURN_IF_ERROR(c->Merge(channels, c->Dim(vec, 0), &channels));
  }
  ShapeHandle x_backprop;
  OPKIT_RETURN_IF_ERROR(
      c->ReplaceDim(y_backprop, channel, channels, &x_backprop));
  c->set_output(0, x_backprop);
  c->set_output(1, c->Vector(channels));
  c->set_output(2, c->Vector(channels));
  c->set_output(3, c->Vector(0));
  c->set_output(4, c->Vector(0));
  return OkStatus();
}

Status ReshapeShape(InferenceContext* c) {
  ShapeHandle in = c->input(0);
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return OkStatus();
  }
  bool too_many_unknown = false;
  int64_t known_out, known_in;
  int32_t out_unknown_idx, in_unknown_idx;
  OPKIT_RETURN_IF_ERROR(
      KnownElements(c, out, &known_out, &out_unknown_idx, &too_many_unknown));
  if (!too_many_unknown) {
    OPKIT_RETURN_IF_ERROR(
        KnownElements(c, in, &known_in, &in_unknown_idx, &too_many_unknown));
  }
  if (!too_many_unknown) {
    if (in_unknown_idx < 0 && out_unknown_idx < 0) {
      if (known_in != known_out) {
        return errors::InvalidArgument(
            "Cannot reshape a tensor with ", known_in, " elements to shape ",
            c->DebugString(out), " (", known_out, " elements)");
      }
    } else if (in_unknown_idx < 0 && out_unknown_idx >= 0 && known_out > 0) {
      // Input fully known: the one missing output dimension follows.
      if (known_in % known_out != 0) {
        return errors::InvalidArgument(
            "Dimension size must be evenly divisible by ", known_out,
            " but is ", known_in);
      }
      OPKIT_RETURN_IF_ERROR(c->ReplaceDim(out, out_unknown_idx,
                                          c->MakeDim(known_in / known_out),
                                          &out));
    } else if (in_unknown_idx >= 0 && out_unknown_idx < 0 && known_in != 0) {
      // Output fully known: the missing input dimension must divide evenly.
      if (known_out % known_in != 0) {
        return errors::InvalidArgument(
            "Dimension size must be evenly divisible by ", known_in,
            " but is ", known_out);
      }
    } else if (in_unknown_idx >= 0 && out_unknown_idx >= 0 &&
               known_in == known_out) {
      // One unknown on each side with equal known parts: they are equal.
      OPKIT_RETURN_IF_ERROR(c->ReplaceDim(out, out_unknown_idx,
                                          c->Dim(in, in_unknown_idx), &out));
    }
  }
  c->set_output(0, out);
  return OkStatus();
}

Status TransposeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle perm_shape = c->input(1);
  const Tensor* perm = c->input_tensor(1);
  DimensionHandle perm_elems = c->NumElements(perm_shape);
  if (!c->RankKnown(input) && !c->ValueKnown(perm_elems) && perm == nullptr) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  int64_t rank;
  if (c->RankKnown(input)) {
    rank = c->Rank(input);
  } else if (c->ValueKnown(perm_elems)) {
    rank = c->Value(perm_elems);
  } else {
    rank = perm->NumElements();
  }
  if (rank > TensorShape::kMaxDimensions) {
    return errors::InvalidArgument("Transpose of rank ", rank,
                                   " is not supported; the maximum rank is ",
                                   TensorShape::kMaxDimensions);
  }
  if (!c->RankKnown(input) && rank < 2) {
    // One permutation entry fits a scalar as well as a vector; both come
    // out unchanged.
    c->set_output(0, input);
    return OkStatus();
  }
  OPKIT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  OPKIT_RETURN_IF_ERROR(c->WithRank(perm_shape, 1, &perm_shape));
  OPKIT_RETURN_IF_ERROR(c->WithValue(perm_elems, rank, &perm_elems));

  std::vector<DimensionHandle> dims(static_cast<size_t>(rank));
  if (perm != nullptr) {
    std::vector<int64_t> data;
    OPKIT_RETURN_IF_ERROR(ReadIntTensor(*perm, "perm", &data));
    if (static_cast<int64_t>(data.size()) != rank) {
      return errors::InvalidArgument("perm must have ", rank,
                                     " elements, but has ", data.size());
    }
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t in_idx = data[i];
      if (in_idx < 0 || in_idx >= rank) {
        return errors::InvalidArgument("perm dim ", in_idx,
                                       " is out of range of input rank ",
                                       rank);
      }
      dims[i] = c->Dim(input, in_idx);
    }
  } else {
    for (auto& d : dims) d = c->UnknownDim();
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace opkit

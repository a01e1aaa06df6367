// Shape functions of the 2-D neural-network ops: windowed output sizes,
// Conv2D, DepthwiseConv2DNative, Conv2DBackpropInput, MaxPool(V2), AvgPool,
// the 2-D and 3-D pooling gradients and FusedBatchNorm (declared in
// common_shape_fns.h). Behaviour and messages follow TensorFlow's
// common_shape_fns.cc; the arithmetic on known sizes is overflow-checked,
// so that no attr or shape can make a function compute garbage or abort.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/internal/checked_math.h"
#include "opkit/shape/pooling_padding.h"

namespace opkit {
namespace shape_inference {
namespace {

using internal::AddOverflows;
using internal::MulOverflows;

constexpr int64_t kUnknown = InferenceContext::kUnknownDim;

struct FormatIndices {
  int n, h, w, c;
};

FormatIndices IndicesOf(TensorFormat f) {
  return FormatIndices{FormatDimIndex(f, 'N'), FormatDimIndex(f, 'H'),
                       FormatDimIndex(f, 'W'), FormatDimIndex(f, 'C')};
}

Status ParseFormat(const std::string& s, TensorFormat* f) {
  if (!FormatFromString(s, f)) {
    return errors::InvalidArgument("Invalid data format string: ", s,
                                   " (use 'NHWC' or 'NCHW')");
  }
  return OkStatus();
}

// Reads the optional data_format attr; NHWC when the op has none.
Status GetDataFormat(InferenceContext* c, TensorFormat* f) {
  std::string s;
  if (!c->GetAttr("data_format", &s).ok()) s = "NHWC";
  return ParseFormat(s, f);
}

Status GetPadding(InferenceContext* c, Padding* padding) {
  std::string s;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("padding", &s));
  return GetPaddingFromString(s, padding);
}

// Reads the padding attr and, for an op that supports EXPLICIT padding, the
// optional explicit_paddings attr (checked by CheckValidPadding). For one
// that does not, EXPLICIT is "<what> does not support EXPLICIT padding; use
// SAME or VALID".
Status GetPaddingAndExplicitPaddings(InferenceContext* c,
                                     bool supports_explicit_padding,
                                     TensorFormat format, const char* what,
                                     Padding* padding,
                                     std::vector<int64>* explicit_paddings) {
  OPKIT_RETURN_IF_ERROR(GetPadding(c, padding));
  if (supports_explicit_padding) {
    Status s = c->GetAttr("explicit_paddings", explicit_paddings);
    if (!s.ok() && !errors::IsNotFound(s)) return s;
    return CheckValidPadding(*padding, *explicit_paddings, format);
  }
  if (*padding == Padding::EXPLICIT) {
    return errors::InvalidArgument(
        what, " does not support EXPLICIT padding; use SAME or VALID");
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

ShapeHandle MakeShapeFromFormat(InferenceContext* c, TensorFormat format,
                                DimensionHandle n, DimensionHandle h,
                                DimensionHandle w, DimensionHandle ch) {
  if (format == TensorFormat::kNHWC) return c->MakeShape({n, h, w, ch});
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
  TensorFormat format;
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
  std::vector<int64> explicit_paddings;
  OPKIT_RETURN_IF_ERROR(GetPaddingAndExplicitPaddings(
      c, supports_explicit_padding, format, "This Conv2D-like op", &padding,
      &explicit_paddings));
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

// Shared by MaxPool, MaxPoolV2 and AvgPool, given the window sizes and
// strides; `op` names the op in messages.
Status PoolShapeWithSizes(InferenceContext* c, const char* op, bool pool_depth,
                          bool supports_explicit_padding,
                          const std::vector<int32>& ksize,
                          const std::vector<int32>& strides) {
  TensorFormat format;
  OPKIT_RETURN_IF_ERROR(GetDataFormat(c, &format));
  ShapeHandle input_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input_shape));

  if (strides.size() != 4) {
    return errors::InvalidArgument(
        op, " requires the stride attribute to contain 4 values, but got: ",
        strides.size());
  }
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
  std::vector<int64> explicit_paddings;
  OPKIT_RETURN_IF_ERROR(GetPaddingAndExplicitPaddings(
      c, supports_explicit_padding, format, op, &padding, &explicit_paddings));
  OPKIT_RETURN_IF_ERROR(
      CheckPoolingPadding(padding, explicit_paddings,
                          std::vector<int32_t>(ksize.begin(), ksize.end()),
                          format));
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

// PoolShapeWithSizes with ksize and strides from the node's attrs.
Status PoolShape(InferenceContext* c, const char* op, bool pool_depth,
                 bool supports_explicit_padding = false) {
  std::vector<int32> strides, ksize;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  return PoolShapeWithSizes(c, op, pool_depth, supports_explicit_padding,
                            ksize, strides);
}

Status DepthwiseConv2DNativeShapeImpl(InferenceContext* c,
                                      bool supports_explicit_padding) {
  ShapeHandle input_shape, filter_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter_shape));
  std::vector<int32> strides;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 4) {
    return errors::InvalidArgument(
        "DepthwiseConv2D requires the stride attribute to contain 4 values, "
        "but got: ",
        strides.size());
  }
  std::vector<int32> dilations;
  if (!c->GetAttr("dilations", &dilations).ok()) dilations.assign(4, 1);
  if (dilations.size() != 4) {
    return errors::InvalidArgument(
        "DepthwiseConv2D requires the dilations attribute to contain 4 "
        "values, but got: ",
        dilations.size());
  }
  // As TensorFlow: a missing or unknown data_format means NHWC.
  std::string format_str;
  TensorFormat format = TensorFormat::kNHWC;
  if (c->GetAttr("data_format", &format_str).ok() &&
      !FormatFromString(format_str, &format)) {
    format = TensorFormat::kNHWC;
  }
  const FormatIndices idx = IndicesOf(format);
  DimensionHandle input_depth = c->Dim(filter_shape, 2);
  OPKIT_RETURN_IF_ERROR(
      c->Merge(c->Dim(input_shape, idx.c), input_depth, &input_depth));
  DimensionHandle output_depth;
  OPKIT_RETURN_IF_ERROR(
      c->Multiply(input_depth, c->Dim(filter_shape, 3), &output_depth));

  Padding padding;
  std::vector<int64> explicit_paddings;
  OPKIT_RETURN_IF_ERROR(GetPaddingAndExplicitPaddings(
      c, supports_explicit_padding, format, "This DepthwiseConv2D-like op",
      &padding, &explicit_paddings));
  auto pad = [&](int dim, int side) -> int64_t {
    return padding == Padding::EXPLICIT ? explicit_paddings[2 * dim + side]
                                        : -1;
  };
  DimensionHandle out_rows, out_cols;
  OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
      c, c->Dim(input_shape, idx.h), c->Value(c->Dim(filter_shape, 0)),
      dilations[idx.h], strides[idx.h], padding, pad(idx.h, 0), pad(idx.h, 1),
      &out_rows));
  OPKIT_RETURN_IF_ERROR(WindowedOutputSize(
      c, c->Dim(input_shape, idx.w), c->Value(c->Dim(filter_shape, 1)),
      dilations[idx.w], strides[idx.w], padding, pad(idx.w, 0), pad(idx.w, 1),
      &out_cols));
  c->set_output(0, MakeShapeFromFormat(c, format, c->Dim(input_shape, idx.n),
                                       out_rows, out_cols, output_depth));
  return OkStatus();
}

// Output 0 is the constant shape vector in input 0, of `rank` values.
Status ShapeFromInputWithRank(InferenceContext* c, int64_t rank) {
  ShapeHandle s;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &s));
  OPKIT_RETURN_IF_ERROR(c->WithRank(s, rank, &s));
  c->set_output(0, s);
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

Status MaxPoolV2Shape(InferenceContext* c, int num_inputs) {
  std::vector<int32> ksize, strides;
  if (c->num_inputs() + 2 == num_inputs) {
    OPKIT_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
    OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  } else {
    if (c->num_inputs() < 3) {
      return errors::InvalidArgument(
          "MaxPoolV2 reads ksize and strides from its last two inputs, but "
          "the op has ",
          c->num_inputs(), " inputs");
    }
    const int ksize_input = c->num_inputs() - 2;
    const int strides_input = c->num_inputs() - 1;
    for (int i : {ksize_input, strides_input}) {
      ShapeHandle size;
      DimensionHandle unused;
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &size));
      OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 4, &unused));
    }
    const Tensor* ksize_tensor = c->input_tensor(ksize_input);
    const Tensor* strides_tensor = c->input_tensor(strides_input);
    if (ksize_tensor == nullptr || strides_tensor == nullptr) {
      c->set_output(0, c->UnknownShape());
      return OkStatus();
    }
    for (const auto& [t, out] :
         {std::make_pair(ksize_tensor, &ksize),
          std::make_pair(strides_tensor, &strides)}) {
      if (t->dtype() != DT_INT32) {
        return errors::InvalidArgument("ksize and strides must be int32, got ",
                                       DataTypeString(t->dtype()));
      }
      auto flat = t->unaligned_flat<int32>();
      out->assign(flat.data(), flat.data() + flat.size());
    }
  }
  return PoolShapeWithSizes(c, "MaxPool", /*pool_depth=*/true,
                            /*supports_explicit_padding=*/false, ksize,
                            strides);
}

Status DepthwiseConv2DNativeShape(InferenceContext* c) {
  return DepthwiseConv2DNativeShapeImpl(c, false);
}

Status DepthwiseConv2DNativeShapeWithExplicitPadding(InferenceContext* c) {
  return DepthwiseConv2DNativeShapeImpl(c, true);
}

Status Conv2DBackpropInputShape(InferenceContext* c) {
  TensorFormat format;
  OPKIT_RETURN_IF_ERROR(GetDataFormat(c, &format));
  const FormatIndices idx = IndicesOf(format);
  ShapeHandle out_backprop, filter;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  DimensionHandle batch = c->Dim(out_backprop, idx.n);
  DimensionHandle unused;
  OPKIT_RETURN_IF_ERROR(
      c->Merge(c->Dim(out_backprop, idx.c), c->Dim(filter, 3), &unused));

  ShapeHandle sizes;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &sizes));
  if (!c->RankKnown(sizes)) {
    OPKIT_RETURN_IF_ERROR(c->WithRank(sizes, 4, &sizes));
  }
  DimensionHandle rows, cols, depth;
  if (c->Rank(sizes) == 4) {
    OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(sizes, idx.n), batch, &unused));
    rows = c->Dim(sizes, idx.h);
    cols = c->Dim(sizes, idx.w);
    depth = c->Dim(sizes, idx.c);
  } else if (c->Rank(sizes) == 2) {
    rows = c->Dim(sizes, 0);
    cols = c->Dim(sizes, 1);
    depth = c->Dim(filter, 2);
  } else {
    return errors::InvalidArgument(
        "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 "
        "values, but got: ",
        c->Rank(sizes));
  }
  c->set_output(0, MakeShapeFromFormat(c, format, batch, rows, cols, depth));
  return OkStatus();
}

Status MaxPoolGradShape(InferenceContext* c) {
  return UnchangedShapeWithRank(c, 4);
}

Status MaxPool3DGradShape(InferenceContext* c) {
  return UnchangedShapeWithRank(c, 5);
}

Status AvgPoolGradShape(InferenceContext* c) {
  return ShapeFromInputWithRank(c, 4);
}

Status AvgPool3DGradShape(InferenceContext* c) {
  return ShapeFromInputWithRank(c, 5);
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

Status CheckValidPadding(Padding padding,
                         const std::vector<int64_t>& explicit_paddings,
                         TensorFormat format) {
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

Status CheckPoolingPadding(Padding padding,
                           const std::vector<int64_t>& explicit_paddings,
                           const std::vector<int32_t>& ksize,
                           TensorFormat format) {
  if (padding != Padding::EXPLICIT) return OkStatus();
  if (explicit_paddings.size() != 8 || ksize.size() != 4) {
    return errors::InvalidArgument(
        "Pooling with EXPLICIT padding needs 8 explicit_paddings and 4 ksize "
        "values, but got ", explicit_paddings.size(), " and ", ksize.size());
  }
  const FormatIndices idx = IndicesOf(format);
  for (const auto& [dim, name] : {std::pair<int, const char*>{idx.h, "rows"},
                                  std::pair<int, const char*>{idx.w, "cols"}}) {
    for (int side = 0; side < 2; ++side) {
      const int64_t pad = explicit_paddings[2 * dim + side];
      if (pad >= ksize[dim]) {
        return errors::InvalidArgument(
            "Explicit padding of ", pad, " ", side == 0 ? "before" : "after",
            " the ", name, " (explicit_paddings[", 2 * dim + side,
            "]) must be smaller than the window size ", ksize[dim],
            " (ksize[", dim, "]): a window lying wholly in the padding pools "
            "no input");
      }
    }
  }
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace opkit

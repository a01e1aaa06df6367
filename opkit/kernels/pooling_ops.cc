// MaxPool and AvgPool on CPU, NHWC only (as TensorFlow's CPU kernels; NCHW
// is an InvalidArgument naming the supported layout).
//
// MaxPool: spatial windows with SAME, VALID or EXPLICIT padding, or windows
// across channels (depth window == depth stride dividing the depth, no
// padding), never both. Padded positions never win; a window lying entirely
// in explicit padding yields -infinity (the lowest value for integers). NaN
// inputs are skipped by the comparison.
// AvgPool: spatial windows with SAME or VALID padding; the mean is over the
// window's positions inside the input (padding is not counted), computed in
// float (double for double).
//
// MaxPoolGrad: the gradient of MaxPool (spatial windows only) with respect to
// its input. Each output position's gradient goes to the first maximum of
// its window in row-major order, as TensorFlow's CPU kernel routes it (the
// maxima are found again from orig_input). AvgPoolGrad: each output
// position's gradient is shared equally among its window's positions inside
// the input. Both check that orig_output and grad have the forward op's
// output shape.
//
// Forward work is split over (batch, output row) pairs on the device's pool,
// gradient work over batch entries (each writes only its own slice).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/kernels/ops_util.h"
#include "opkit/shape/pooling_padding.h"

namespace opkit {
namespace {

template <typename T>
using AccumType = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The attrs shared by both ops, checked at construction with TensorFlow's
// messages.
struct PoolAttrs {
  std::vector<int32> ksize;
  std::vector<int32> strides;
  Padding padding = Padding::VALID;
  std::vector<int64_t> explicit_paddings;
};

Status ReadPoolAttrs(OpKernelConstruction* ctx, const char* op_kernel_name,
                     PoolAttrs* attrs) {
  std::string data_format;
  if (ctx->GetAttr("data_format", &data_format).ok() &&
      data_format != "NHWC") {
    if (data_format != "NCHW" && data_format != "NCHW_VECT_C") {
      return errors::InvalidArgument("Invalid data format: '", data_format,
                                     "'");
    }
    return errors::InvalidArgument("Default ", op_kernel_name,
                                   " only supports NHWC on device type CPU");
  }
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("ksize", &attrs->ksize));
  if (attrs->ksize.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window ksize field must specify 4 dimensions");
  }
  for (size_t i = 0; i < attrs->ksize.size(); ++i) {
    if (attrs->ksize[i] <= 0) {
      return errors::InvalidArgument("Sliding window ksize for dimension ", i,
                                     " was zero or negative: ",
                                     attrs->ksize[i]);
    }
  }
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("strides", &attrs->strides));
  if (attrs->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window stride field must specify 4 dimensions");
  }
  for (size_t i = 0; i < attrs->strides.size(); ++i) {
    if (attrs->strides[i] <= 0) {
      return errors::InvalidArgument("Sliding window stride for dimension ",
                                     i, " must be > 0, but got ",
                                     attrs->strides[i]);
    }
  }
  std::string padding;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  OPKIT_RETURN_IF_ERROR(
      shape_inference::GetPaddingFromString(padding, &attrs->padding));
  if (ctx->HasAttr("explicit_paddings")) {
    std::vector<int64> explicit_paddings;
    OPKIT_RETURN_IF_ERROR(
        ctx->GetAttr("explicit_paddings", &explicit_paddings));
    attrs->explicit_paddings.assign(explicit_paddings.begin(),
                                    explicit_paddings.end());
  }
  OPKIT_RETURN_IF_ERROR(CheckValidPadding(
      attrs->padding, attrs->explicit_paddings, TensorFormat::kNHWC));
  OPKIT_RETURN_IF_ERROR(shape_inference::CheckPoolingPadding(
      attrs->padding, attrs->explicit_paddings,
      std::vector<int32_t>(attrs->ksize.begin(), attrs->ksize.end()),
      TensorFormat::kNHWC));
  if (attrs->ksize[0] != 1 || attrs->strides[0] != 1) {
    return errors::Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  return OkStatus();
}

// The geometry of one spatial pooling call.
struct PoolGeometry {
  int64_t batch, in_rows, in_cols, depth;
  int64_t window_rows, window_cols, row_stride, col_stride;
  int64_t out_rows, out_cols;
  int64_t pad_top, pad_left;
};

Status SpatialGeometry(const PoolAttrs& attrs, const TensorShape& in,
                       PoolGeometry* g) {
  g->batch = in.dim_size(0);
  g->in_rows = in.dim_size(1);
  g->in_cols = in.dim_size(2);
  g->depth = in.dim_size(3);
  g->window_rows = attrs.ksize[1];
  g->window_cols = attrs.ksize[2];
  g->row_stride = attrs.strides[1];
  g->col_stride = attrs.strides[2];
  int64_t pad_bottom = 0, pad_right = 0;
  g->pad_top = g->pad_left = 0;
  if (attrs.padding == Padding::EXPLICIT) {
    g->pad_top = attrs.explicit_paddings[2];
    pad_bottom = attrs.explicit_paddings[3];
    g->pad_left = attrs.explicit_paddings[4];
    pad_right = attrs.explicit_paddings[5];
  }
  OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      g->in_rows, g->window_rows, /*dilation_rate=*/1, g->row_stride,
      attrs.padding, &g->out_rows, &g->pad_top, &pad_bottom));
  OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      g->in_cols, g->window_cols, /*dilation_rate=*/1, g->col_stride,
      attrs.padding, &g->out_cols, &g->pad_left, &pad_right));
  return OkStatus();
}

// The geometry of pooling `in` (NHWC) over rows and columns, and output 0
// allocated to fit it.
Status AllocateSpatialOutput(OpKernelContext* ctx, const PoolAttrs& attrs,
                             const Tensor& in, PoolGeometry* g, Tensor** out) {
  OPKIT_RETURN_IF_ERROR(SpatialGeometry(attrs, in.shape(), g));
  TensorShape out_shape;
  OPKIT_RETURN_IF_ERROR(ShapeFromFormat(TensorFormat::kNHWC, g->batch, g->out_rows,
                                        g->out_cols, g->depth, &out_shape));
  return ctx->allocate_output(0, out_shape, out);
}

// The input positions [*begin, *end) that output position `out` of one
// dimension covers (possibly empty).
inline void WindowRange(int64_t out, int64_t stride, int64_t pad,
                        int64_t window, int64_t size, int64_t* begin,
                        int64_t* end) {
  const int64_t start = out * stride - pad;
  *begin = start < 0 ? 0 : start;
  const int64_t stop = start + window;
  *end = stop > size ? size : stop;
}

template <typename T>
T LowestValue() {
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

template <typename T>
class MaxPoolOp : public OpKernel {
 public:
  explicit MaxPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, "MaxPoolingOp", &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() == 4,
                errors::InvalidArgument("tensor_in must be 4-dimensional, got ",
                                        in.shape().DebugString()));
    const int64_t depth_window = attrs_.ksize[3];
    if (depth_window > 1) {
      DepthwiseMaxPool(ctx, in);
      return;
    }
    // The shape function sizes the depth with the depth stride.
    OP_REQUIRES(ctx, attrs_.strides[3] == 1,
                errors::Unimplemented(
                    "MaxPool with a depth stride of ", attrs_.strides[3],
                    " needs a depth window of the same size (pooling across "
                    "depth); got a depth window of 1"));
    PoolGeometry g;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateSpatialOutput(ctx, attrs_, in, &g, &out));
    if (out->NumElements() == 0) return;
    const T* x = in.flat<T>().data();
    T* y = out->flat<T>().data();
    auto run = [&g, x, y](int64_t first, int64_t last) {
      for (int64_t unit = first; unit < last; ++unit) {
        const int64_t n = unit / g.out_rows;
        const int64_t oh = unit % g.out_rows;
        int64_t h0, h1;
        WindowRange(oh, g.row_stride, g.pad_top, g.window_rows, g.in_rows,
                    &h0, &h1);
        for (int64_t ow = 0; ow < g.out_cols; ++ow) {
          int64_t w0, w1;
          WindowRange(ow, g.col_stride, g.pad_left, g.window_cols, g.in_cols,
                      &w0, &w1);
          T* o = y + ((n * g.out_rows + oh) * g.out_cols + ow) * g.depth;
          for (int64_t c = 0; c < g.depth; ++c) o[c] = LowestValue<T>();
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const T* i = x + ((n * g.in_rows + h) * g.in_cols + w) * g.depth;
              for (int64_t c = 0; c < g.depth; ++c) {
                if (i[c] > o[c]) o[c] = i[c];
              }
            }
          }
        }
      }
    };
    Shard(ctx, g.batch * g.out_rows,
          static_cast<double>(g.out_cols) * g.depth * g.window_rows * g.window_cols,
          run);
  }

 private:
  void DepthwiseMaxPool(OpKernelContext* ctx, const Tensor& in) {
    const int64_t window = attrs_.ksize[3];
    OP_REQUIRES(ctx, attrs_.ksize[1] == 1 && attrs_.ksize[2] == 1,
                errors::Unimplemented(
                    "MaxPooling supports exactly one of pooling across depth "
                    "or pooling across width/height."));
    const int64_t depth = in.dim_size(3);
    OP_REQUIRES(ctx, depth % window == 0,
                errors::Unimplemented(
                    "Depthwise max pooling requires the depth window to "
                    "evenly divide the input depth."));
    OP_REQUIRES(ctx, attrs_.strides[3] == window,
                errors::Unimplemented(
                    "Depthwise max pooling requires the depth window to equal "
                    "the depth stride."));
    OP_REQUIRES(ctx, attrs_.padding != Padding::EXPLICIT,
                errors::Unimplemented(
                    "Depthwise max pooling does not support explicit "
                    "padding."));
    // The spatial strides are ignored with a 1x1 window, as TensorFlow's CPU
    // kernel does.
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ShapeFromFormat(TensorFormat::kNHWC, in.dim_size(0),
                                        in.dim_size(1), in.dim_size(2),
                                        depth / window, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t groups = out->NumElements();
    if (groups == 0) return;
    const T* x = in.flat<T>().data();
    T* y = out->flat<T>().data();
    auto run = [x, y, window](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        const T* v = x + i * window;
        T m = v[0];
        for (int64_t k = 1; k < window; ++k) {
          if (v[k] > m) m = v[k];
        }
        y[i] = m;
      }
    };
    Shard(ctx, groups, static_cast<double>(window), run);
  }

  PoolAttrs attrs_;
};

template <typename T>
class AvgPoolOp : public OpKernel {
 public:
  explicit AvgPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, "AvgPoolingOp", &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() == 4,
                errors::InvalidArgument("tensor_in must be 4-dimensional, got ",
                                        in.shape().DebugString()));
    OP_REQUIRES(ctx, attrs_.ksize[3] == 1 && attrs_.strides[3] == 1,
                errors::Unimplemented(
                    "Non-spatial pooling is not yet supported. Volunteers? "
                    ":)"));
    PoolGeometry g;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateSpatialOutput(ctx, attrs_, in, &g, &out));
    if (out->NumElements() == 0) return;
    const T* x = in.flat<T>().data();
    T* y = out->flat<T>().data();
    using Acc = AccumType<T>;
    auto run = [&g, x, y](int64_t first, int64_t last) {
      std::vector<Acc> sum(static_cast<size_t>(g.depth));
      for (int64_t unit = first; unit < last; ++unit) {
        const int64_t n = unit / g.out_rows;
        const int64_t oh = unit % g.out_rows;
        int64_t h0, h1;
        WindowRange(oh, g.row_stride, g.pad_top, g.window_rows, g.in_rows,
                    &h0, &h1);
        for (int64_t ow = 0; ow < g.out_cols; ++ow) {
          int64_t w0, w1;
          WindowRange(ow, g.col_stride, g.pad_left, g.window_cols, g.in_cols,
                      &w0, &w1);
          std::fill(sum.begin(), sum.end(), Acc(0));
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const T* i = x + ((n * g.in_rows + h) * g.in_cols + w) * g.depth;
              for (int64_t c = 0; c < g.depth; ++c) {
                sum[c] += static_cast<Acc>(i[c]);
              }
            }
          }
          // SAME and VALID windows always hold at least one input position.
          const int64_t count = (h1 - h0) * (w1 - w0);
          const Acc scale = count > 0 ? Acc(1) / static_cast<Acc>(count)
                                      : Acc(0);
          T* o = y + ((n * g.out_rows + oh) * g.out_cols + ow) * g.depth;
          for (int64_t c = 0; c < g.depth; ++c) {
            o[c] = static_cast<T>(sum[c] * scale);
          }
        }
      }
    };
    Shard(ctx, g.batch * g.out_rows,
          static_cast<double>(g.out_cols) * g.depth * g.window_rows * g.window_cols,
          run);
  }

 private:
  PoolAttrs attrs_;
};

// MaxPoolGrad's sums: float for half and bfloat16; unsigned for signed
// integers, so that they wrap around instead of overflowing.
template <typename T, typename Enable = void>
struct GradAccum {
  using type = T;
};
template <typename T>
struct GradAccum<T, std::enable_if_t<std::is_integral_v<T>>> {
  using type = std::make_unsigned_t<T>;
};
template <>
struct GradAccum<half> {
  using type = float;
};
template <>
struct GradAccum<bfloat16> {
  using type = float;
};
template <typename T>
using GradAccumType = typename GradAccum<T>::type;

// grad (and for MaxPoolGrad orig_output) must be the forward output of
// pooling an input of shape `in`.
Status CheckPoolGradShape(const char* name, int input_index,
                          const TensorShape& got, const PoolGeometry& g) {
  TensorShape want;
  OPKIT_RETURN_IF_ERROR(ShapeFromFormat(TensorFormat::kNHWC, g.batch,
                                        g.out_rows, g.out_cols, g.depth,
                                        &want));
  if (got != want) {
    return errors::InvalidArgument(
        name, " (input ", input_index, ") must have the pooling output's shape ",
        want.DebugString(), ", got ", got.DebugString());
  }
  return OkStatus();
}

template <typename T>
class MaxPoolGradOp : public OpKernel {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, "MaxPoolingGradOp", &attrs_));
    OP_REQUIRES(ctx, attrs_.ksize[3] == 1 && attrs_.strides[3] == 1,
                errors::Unimplemented(
                    "MaxPoolGrad is not yet supported on the depth dimension "
                    "(ksize and strides must be 1 there)"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& orig_out = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    OP_REQUIRES(ctx, in.dims() == 4,
                errors::InvalidArgument(
                    "orig_input (input 0) must be 4-dimensional, got shape ",
                    in.shape().DebugString()));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, SpatialGeometry(attrs_, in.shape(), &g));
    OP_REQUIRES_OK(ctx, CheckPoolGradShape("orig_output", 1, orig_out.shape(), g));
    OP_REQUIRES_OK(ctx, CheckPoolGradShape("grad", 2, grad.shape(), g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const T* x = in.flat<T>().data();
    const T* dy = grad.flat<T>().data();
    T* dx = out->flat<T>().data();
    using Acc = GradAccumType<T>;
    // Accumulated per batch entry in Acc, then stored as T.
    auto run = [&g, x, dy, dx](int64_t first, int64_t last) {
      const int64_t in_size = g.in_rows * g.in_cols * g.depth;
      std::vector<Acc> acc(static_cast<size_t>(in_size));
      std::vector<int64_t> best(static_cast<size_t>(g.depth));
      for (int64_t n = first; n < last; ++n) {
        std::fill(acc.begin(), acc.end(), Acc(0));
        const T* xn = x + n * in_size;
        for (int64_t oh = 0; oh < g.out_rows; ++oh) {
          int64_t h0, h1;
          WindowRange(oh, g.row_stride, g.pad_top, g.window_rows, g.in_rows,
                      &h0, &h1);
          for (int64_t ow = 0; ow < g.out_cols; ++ow) {
            int64_t w0, w1;
            WindowRange(ow, g.col_stride, g.pad_left, g.window_cols,
                        g.in_cols, &w0, &w1);
            // A window wholly in explicit padding routes nowhere.
            if (h0 >= h1 || w0 >= w1) continue;
            // Offsets (within the batch entry) of each channel's first
            // maximum: the first position, then any strictly greater one.
            const int64_t start = (h0 * g.in_cols + w0) * g.depth;
            for (int64_t c = 0; c < g.depth; ++c) best[c] = start + c;
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = w0; w < w1; ++w) {
                const int64_t pos = (h * g.in_cols + w) * g.depth;
                for (int64_t c = 0; c < g.depth; ++c) {
                  if (xn[pos + c] > xn[best[c]]) best[c] = pos + c;
                }
              }
            }
            const T* d =
                dy + ((n * g.out_rows + oh) * g.out_cols + ow) * g.depth;
            for (int64_t c = 0; c < g.depth; ++c) {
              acc[best[c]] += static_cast<Acc>(d[c]);
            }
          }
        }
        T* dxn = dx + n * in_size;
        for (int64_t i = 0; i < in_size; ++i) dxn[i] = static_cast<T>(acc[i]);
      }
    };
    Shard(ctx, g.batch,
          static_cast<double>(g.out_rows) * g.out_cols * g.depth *
              g.window_rows * g.window_cols,
          run);
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, "AvgPoolingGradOp", &attrs_));
    OP_REQUIRES(ctx, attrs_.ksize[3] == 1 && attrs_.strides[3] == 1,
                errors::Unimplemented(
                    "Non-spatial pooling is not yet supported. Volunteers? "
                    ":)"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_in = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx,
                shape_in.dims() == 1 && shape_in.NumElements() == 4,
                errors::InvalidArgument(
                    "orig_input_shape (input 0) must be a 1-D tensor of 4 "
                    "values (the NHWC shape of AvgPool's input), got shape ",
                    shape_in.shape().DebugString()));
    OP_REQUIRES(ctx, grad.dims() == 4,
                errors::InvalidArgument(
                    "grad (input 1) must be 4-dimensional, got shape ",
                    grad.shape().DebugString()));
    auto dims = shape_in.flat<int32>();
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES(ctx, dims(i) >= 0,
                  errors::InvalidArgument(
                      "orig_input_shape (input 0) must hold non-negative "
                      "sizes, got ",
                      dims(i), " at index ", i));
    }
    TensorShape in_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            {dims(0), dims(1), dims(2), dims(3)}, &in_shape));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, SpatialGeometry(attrs_, in_shape, &g));
    OP_REQUIRES_OK(ctx, CheckPoolGradShape("grad", 1, grad.shape(), g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    if (in_shape.num_elements() == 0) return;
    const T* dy = grad.flat<T>().data();
    T* dx = out->flat<T>().data();
    using Acc = AccumType<T>;
    auto run = [&g, dy, dx](int64_t first, int64_t last) {
      const int64_t in_size = g.in_rows * g.in_cols * g.depth;
      std::vector<Acc> acc(static_cast<size_t>(in_size));
      for (int64_t n = first; n < last; ++n) {
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t oh = 0; oh < g.out_rows; ++oh) {
          int64_t h0, h1;
          WindowRange(oh, g.row_stride, g.pad_top, g.window_rows, g.in_rows,
                      &h0, &h1);
          for (int64_t ow = 0; ow < g.out_cols; ++ow) {
            int64_t w0, w1;
            WindowRange(ow, g.col_stride, g.pad_left, g.window_cols,
                        g.in_cols, &w0, &w1);
            const int64_t count = (h1 - h0) * (w1 - w0);
            if (count <= 0) continue;
            const Acc scale = Acc(1) / static_cast<Acc>(count);
            const T* d =
                dy + ((n * g.out_rows + oh) * g.out_cols + ow) * g.depth;
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = w0; w < w1; ++w) {
                Acc* a = acc.data() + (h * g.in_cols + w) * g.depth;
                for (int64_t c = 0; c < g.depth; ++c) {
                  a[c] += static_cast<Acc>(d[c]) * scale;
                }
              }
            }
          }
        }
        T* dxn = dx + n * in_size;
        for (int64_t i = 0; i < in_size; ++i) dxn[i] = static_cast<T>(acc[i]);
      }
    };
    Shard(ctx, g.batch,
          static_cast<double>(g.out_rows) * g.out_cols * g.depth *
              g.window_rows * g.window_cols,
          run);
  }

 private:
  PoolAttrs attrs_;
};

#define OPKIT_REGISTER_MAX_POOL(T)                                      \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      MaxPoolOp<T>);                                                    \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      MaxPoolGradOp<T>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_MAX_POOL)
TF_CALL_int32(OPKIT_REGISTER_MAX_POOL)
TF_CALL_int64(OPKIT_REGISTER_MAX_POOL)
TF_CALL_uint8(OPKIT_REGISTER_MAX_POOL)
TF_CALL_int16(OPKIT_REGISTER_MAX_POOL)
TF_CALL_int8(OPKIT_REGISTER_MAX_POOL)
TF_CALL_uint16(OPKIT_REGISTER_MAX_POOL)
#undef OPKIT_REGISTER_MAX_POOL

#define OPKIT_REGISTER_AVG_POOL(T)                                      \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      AvgPoolOp<T>);                                                    \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      AvgPoolGradOp<T>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_AVG_POOL)
#undef OPKIT_REGISTER_AVG_POOL

}  // namespace
}  // namespace opkit

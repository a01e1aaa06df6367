// DepthwiseConv2dNative on CPU, for float, double, half and bfloat16, NHWC
// and NCHW.
//
// Method: a direct convolution, one output row per unit of work (sharded
// over the intra-op pool). For each output position only the filter taps
// that land inside the image are visited (the padding is never
// materialised), and the channels -- the innermost, contiguous dimension of
// both the input and the filter -- are the vector dimension: with a depth
// multiplier of 1 the channels are processed in fixed-size chunks whose
// accumulators stay in registers over all taps, which the compiler turns
// into straight vector code. Half and bfloat16 are computed in float; NCHW
// is transposed to NHWC and back around the NHWC computation.
#include "opkit/kernels/depthwise_conv_op.h"

#include <algorithm>
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

namespace opkit {
namespace {

// One output position with a depth multiplier of 1: out[c] = sum over the
// valid taps of in[tap][c] * filter[tap][c]. `kChunk` channels are summed
// at a time in a local array the compiler keeps in vector registers.
template <typename T>
void PixelMultiplier1(const DepthwiseArgs& a, const T* in_image,
                      const T* filter, int64_t ih0, int64_t fh_first,
                      int64_t fh_last, int64_t iw0, int64_t fw_first,
                      int64_t fw_last, T* out) {
  constexpr int64_t kChunk = 128 / sizeof(T);
  const int64_t depth = a.in_depth;
  const int64_t row_stride = a.in_cols * depth;
  const int64_t tap_cols = a.dilation_cols * depth;
  int64_t c = 0;
  for (; c + kChunk <= depth; c += kChunk) {
    T acc[kChunk] = {};
    for (int64_t fh = fh_first; fh < fh_last; ++fh) {
      const T* ip = in_image + (ih0 + fh * a.dilation_rows) * row_stride +
                    (iw0 + fw_first * a.dilation_cols) * depth + c;
      const T* fp = filter + (fh * a.filter_cols + fw_first) * depth + c;
      for (int64_t fw = fw_first; fw < fw_last; ++fw) {
        for (int64_t i = 0; i < kChunk; ++i) acc[i] += ip[i] * fp[i];
        ip += tap_cols;
        fp += depth;
      }
    }
    for (int64_t i = 0; i < kChunk; ++i) out[c + i] = acc[i];
  }
  if (c == depth) return;
  const int64_t rest = depth - c;
  T acc[kChunk] = {};
  for (int64_t fh = fh_first; fh < fh_last; ++fh) {
    const T* ip = in_image + (ih0 + fh * a.dilation_rows) * row_stride +
                  (iw0 + fw_first * a.dilation_cols) * depth + c;
    const T* fp = filter + (fh * a.filter_cols + fw_first) * depth + c;
    for (int64_t fw = fw_first; fw < fw_last; ++fw) {
      for (int64_t i = 0; i < rest; ++i) acc[i] += ip[i] * fp[i];
      ip += tap_cols;
      fp += depth;
    }
  }
  for (int64_t i = 0; i < rest; ++i) out[c + i] = acc[i];
}

// One output position with any depth multiplier M: out[c*M + m] = sum over
// the valid taps of in[tap][c] * filter[tap][c*M + m] (the filter's
// [rows, cols, in_depth, M] layout is already in output-channel order).
template <typename T>
void PixelGeneral(const DepthwiseArgs& a, const T* in_image, const T* filter,
                  int64_t ih0, int64_t fh_first, int64_t fh_last, int64_t iw0,
                  int64_t fw_first, int64_t fw_last, T* out) {
  const int64_t m_count = a.depth_multiplier;
  std::fill(out, out + a.out_depth, T(0));
  for (int64_t fh = fh_first; fh < fh_last; ++fh) {
    const int64_t ih = ih0 + fh * a.dilation_rows;
    for (int64_t fw = fw_first; fw < fw_last; ++fw) {
      const int64_t iw = iw0 + fw * a.dilation_cols;
      const T* ip = in_image + (ih * a.in_cols + iw) * a.in_depth;
      const T* fp = filter + (fh * a.filter_cols + fw) * a.out_depth;
      for (int64_t ch = 0; ch < a.in_depth; ++ch) {
        const T v = ip[ch];
        T* o = out + ch * m_count;
        const T* f = fp + ch * m_count;
        for (int64_t m = 0; m < m_count; ++m) o[m] += v * f[m];
      }
    }
  }
}

template <typename T>
void ComputeRows(const DepthwiseArgs& a, const T* input, const T* filter,
                 T* output, int64_t begin, int64_t end,
                 const DepthwiseEpilogue* epilogue) {
  const int64_t image_size = a.in_rows * a.in_cols * a.in_depth;
  const int64_t out_row_size = a.out_cols * a.out_depth;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t n = r / a.out_rows;
    const int64_t oh = r % a.out_rows;
    const T* in_image = input + n * image_size;
    T* out_row = output + r * out_row_size;
    const int64_t ih0 = oh * a.stride_rows - a.pad_top;
    int64_t fh_first, fh_last;
    ValidTaps(ih0, a.in_rows, a.filter_rows, a.dilation_rows, &fh_first,
              &fh_last);
    for (int64_t ow = 0; ow < a.out_cols; ++ow) {
      const int64_t iw0 = ow * a.stride_cols - a.pad_left;
      int64_t fw_first, fw_last;
      ValidTaps(iw0, a.in_cols, a.filter_cols, a.dilation_cols, &fw_first,
                &fw_last);
      T* out = out_row + ow * a.out_depth;
      if (a.depth_multiplier == 1) {
        PixelMultiplier1(a, in_image, filter, ih0, fh_first, fh_last, iw0,
                         fw_first, fw_last, out);
      } else {
        PixelGeneral(a, in_image, filter, ih0, fh_first, fh_last, iw0,
                     fw_first, fw_last, out);
      }
    }
    if constexpr (std::is_same_v<T, float>) {
      if (epilogue != nullptr && *epilogue) (*epilogue)(out_row, a.out_cols);
    }
  }
}

template <typename T>
void Convolve(OpKernelContext* ctx, const DepthwiseArgs& a, const T* input,
              const T* filter, T* output, const DepthwiseEpilogue* epilogue) {
  const int64_t rows = a.batch * a.out_rows;
  if (rows == 0 || a.out_cols == 0 || a.out_depth == 0) return;
  const double cost = static_cast<double>(a.out_cols) *
                      static_cast<double>(a.out_depth) *
                      static_cast<double>(a.filter_rows * a.filter_cols + 1);
  Shard(ctx, rows, cost, [&](int64_t begin, int64_t end) {
    ComputeRows(a, input, filter, output, begin, end, epilogue);
  });
}

// Copies a 4-D tensor between NHWC and NCHW while converting the element
// type: src is [d0, d1, d2, d3] row-major; when `to_nchw` the destination is
// [d0, d3, d1, d2], otherwise src is NCHW [d0, d1, d2, d3] and the
// destination NHWC [d0, d2, d3, d1]. Sharded over d0 * d1.
template <typename Dst, typename Src>
void Relayout(OpKernelContext* ctx, const Src* src, int64_t d0, int64_t d1,
              int64_t d2, int64_t d3, bool to_nchw, Dst* dst) {
  Shard(ctx, d0 * d1, static_cast<double>(d2 * d3),
        [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t i0 = u / d1, i1 = u % d1;
            const Src* s = src + u * d2 * d3;
            for (int64_t i2 = 0; i2 < d2; ++i2) {
              for (int64_t i3 = 0; i3 < d3; ++i3) {
                // to_nchw: src (n, h=i1, w=i2, c=i3) -> dst (n, c, h, w).
                // otherwise: src (n, c=i1, h=i2, w=i3) -> dst (n, h, w, c).
                const int64_t di =
                    to_nchw ? ((i0 * d3 + i3) * d1 + i1) * d2 + i2
                            : ((i0 * d2 + i2) * d3 + i3) * d1 + i1;
                dst[di] = static_cast<Dst>(s[i2 * d3 + i3]);
              }
            }
          }
        });
}

template <typename T>
class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, DepthwiseConvParams::FromAttrs(ctx, &params_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DepthwiseArgs a;
    OP_REQUIRES_OK(ctx, params_.ComputeArgs(input.shape(), filter.shape(), &a));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ShapeFromFormat(params_.format, a.batch, a.out_rows,
                                        a.out_cols, a.out_depth, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;

    const bool nchw = params_.format == TensorFormat::kNCHW;
    const T* in = input.flat<T>().data();
    const T* f = filter.flat<T>().data();
    T* out = output->flat<T>().data();
    if constexpr (std::is_same_v<T, CT>) {
      if (!nchw) {
        Convolve<CT>(ctx, a, in, f, out, nullptr);
        return;
      }
    }
    // Staging buffers in the compute type and NHWC layout.
    std::vector<CT> in_buf, f_buf, out_buf(
        static_cast<size_t>(output->NumElements()));
    const CT* in_ct = nullptr;
    const CT* f_ct = nullptr;
    if (nchw) {
      in_buf.resize(static_cast<size_t>(input.NumElements()));
      Relayout(ctx, in, a.batch, a.in_depth, a.in_rows, a.in_cols,
               /*to_nchw=*/false, in_buf.data());
      in_ct = in_buf.data();
    } else if constexpr (std::is_same_v<T, CT>) {
      in_ct = in;
    } else {
      in_buf.resize(static_cast<size_t>(input.NumElements()));
      for (size_t i = 0; i < in_buf.size(); ++i) {
        in_buf[i] = static_cast<CT>(in[i]);
      }
      in_ct = in_buf.data();
    }
    if constexpr (std::is_same_v<T, CT>) {
      f_ct = f;
    } else {
      f_buf.resize(static_cast<size_t>(filter.NumElements()));
      for (size_t i = 0; i < f_buf.size(); ++i) {
        f_buf[i] = static_cast<CT>(f[i]);
      }
      f_ct = f_buf.data();
    }
    Convolve<CT>(ctx, a, in_ct, f_ct, out_buf.data(), nullptr);
    if (nchw) {
      Relayout(ctx, out_buf.data(), a.batch, a.out_rows, a.out_cols,
               a.out_depth, /*to_nchw=*/true, out);
    } else {
      for (size_t i = 0; i < out_buf.size(); ++i) {
        out[i] = static_cast<T>(out_buf[i]);
      }
    }
  }

 private:
  using CT = std::conditional_t<std::is_same_v<T, double>, double, float>;
  DepthwiseConvParams params_;
};

#define OPKIT_REGISTER_DEPTHWISE(T)                                         \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConv2dNativeOp<T>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_DEPTHWISE)
#undef OPKIT_REGISTER_DEPTHWISE

}  // namespace

Status DepthwiseConvParams::FromAttrs(OpKernelConstruction* ctx,
                                      DepthwiseConvParams* p) {
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("strides", &p->strides));
  if (ctx->HasAttr("dilations")) {
    OPKIT_RETURN_IF_ERROR(ctx->GetAttr("dilations", &p->dilations));
  } else {
    p->dilations.assign(4, 1);
  }
  std::string padding;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  OPKIT_RETURN_IF_ERROR(
      shape_inference::GetPaddingFromString(padding, &p->padding));
  p->explicit_paddings.clear();
  if (ctx->HasAttr("explicit_paddings")) {
    std::vector<int64> explicit_paddings;
    OPKIT_RETURN_IF_ERROR(
        ctx->GetAttr("explicit_paddings", &explicit_paddings));
    p->explicit_paddings.assign(explicit_paddings.begin(),
                                explicit_paddings.end());
  }
  std::string data_format = "NHWC";
  if (ctx->HasAttr("data_format")) {
    OPKIT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &data_format));
  }
  if (!FormatFromString(data_format, &p->format)) {
    return errors::InvalidArgument("Invalid data format: '", data_format,
                                   "'; use 'NHWC' or 'NCHW'");
  }
  if (p->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window strides field must specify 4 dimensions, got ",
        p->strides.size());
  }
  if (p->dilations.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window dilations field must specify 4 dimensions, got ",
        p->dilations.size());
  }
  const int n = FormatDimIndex(p->format, 'N');
  const int c = FormatDimIndex(p->format, 'C');
  const int h = FormatDimIndex(p->format, 'H');
  const int w = FormatDimIndex(p->format, 'W');
  if (p->strides[n] != 1 || p->strides[c] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  if (p->strides[h] <= 0 || p->strides[w] <= 0) {
    return errors::InvalidArgument(
        "Row and column strides should be larger than 0, got ", p->strides[h],
        " and ", p->strides[w]);
  }
  if (p->dilations[n] != 1 || p->dilations[c] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support dilations in the batch "
        "and depth dimensions.");
  }
  if (p->dilations[h] <= 0 || p->dilations[w] <= 0) {
    return errors::InvalidArgument(
        "Dilated rates should be larger than 0, got ", p->dilations[h],
        " and ", p->dilations[w]);
  }
  OPKIT_RETURN_IF_ERROR(
      CheckValidPadding(p->padding, p->explicit_paddings, p->format));
  for (int64_t pad : p->explicit_paddings) {
    constexpr int64_t kLimit = std::numeric_limits<int32>::max();
    if (pad > kLimit) {
      return errors::InvalidArgument("explicit padding ", pad,
                                     " is too large; the limit is ", kLimit);
    }
  }
  return OkStatus();
}

Status DepthwiseConvParams::ComputeArgs(const TensorShape& input,
                                        const TensorShape& filter,
                                        DepthwiseArgs* a) const {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional: ",
                                   input.DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument(
        "filter must be 4-dimensional [rows, cols, in_depth, multiplier]: ",
        filter.DebugString());
  }
  const int h = FormatDimIndex(format, 'H');
  const int w = FormatDimIndex(format, 'W');
  a->batch = input.dim_size(FormatDimIndex(format, 'N'));
  a->in_rows = input.dim_size(h);
  a->in_cols = input.dim_size(w);
  a->in_depth = input.dim_size(FormatDimIndex(format, 'C'));
  a->filter_rows = filter.dim_size(0);
  a->filter_cols = filter.dim_size(1);
  a->depth_multiplier = filter.dim_size(3);
  if (a->in_depth != filter.dim_size(2)) {
    return errors::InvalidArgument(
        "input and filter must have the same depth: ", a->in_depth, " vs ",
        filter.dim_size(2), " (input ", input.DebugString(), ", filter ",
        filter.DebugString(), ")");
  }
  if (__builtin_mul_overflow(a->in_depth, a->depth_multiplier,
                             &a->out_depth)) {
    return errors::InvalidArgument("output depth ", a->in_depth, " * ",
                                   a->depth_multiplier, " overflows int64");
  }
  a->stride_rows = strides[h];
  a->stride_cols = strides[w];
  a->dilation_rows = dilations[h];
  a->dilation_cols = dilations[w];
  int64_t pad_bottom = 0, pad_right = 0;
  a->pad_top = a->pad_left = 0;
  if (padding == shape_inference::Padding::EXPLICIT) {
    a->pad_top = explicit_paddings[2 * h];
    pad_bottom = explicit_paddings[2 * h + 1];
    a->pad_left = explicit_paddings[2 * w];
    pad_right = explicit_paddings[2 * w + 1];
  }
  OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      a->in_rows, a->filter_rows, a->dilation_rows, a->stride_rows, padding,
      &a->out_rows, &a->pad_top, &pad_bottom));
  OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      a->in_cols, a->filter_cols, a->dilation_cols, a->stride_cols, padding,
      &a->out_cols, &a->pad_left, &pad_right));
  TensorShape out_shape;
  return TensorShape::BuildTensorShape(
      {a->batch, a->out_rows, a->out_cols, a->out_depth}, &out_shape);
}

void DepthwiseConv2DNHWC(OpKernelContext* ctx, const DepthwiseArgs& args,
                         const float* input, const float* filter,
                         float* output, const DepthwiseEpilogue& epilogue) {
  Convolve<float>(ctx, args, input, filter, output, &epilogue);
}

void DepthwiseConv2DNHWC(OpKernelContext* ctx, const DepthwiseArgs& args,
                         const double* input, const double* filter,
                         double* output) {
  Convolve<double>(ctx, args, input, filter, output, nullptr);
}

}  // namespace opkit

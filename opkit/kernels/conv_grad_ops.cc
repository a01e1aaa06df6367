// Conv2DBackpropInput and Conv2DBackpropFilter on CPU: the gradients of
// Conv2D (conv_ops.cc) with respect to its input and its filter, for the
// same strides, dilations, SAME/VALID/EXPLICIT padding, NHWC or NCHW; and
// DepthwiseConv2dNativeBackpropInput / ...Filter, the same for
// DepthwiseConv2dNative (depthwise_conv_op.cc), whose output channel
// c * multiplier + m reads only input channel c.
//
// Both are direct loops whose innermost dimension is contiguous in memory
// and whose partial sums stay in registers (a fixed-size chunk of channels
// at a time), so they vectorise without a BLAS and compile quickly:
// - input gradient, gathered per input pixel so that threads never write the
//   same element: dx[n,ih,iw,:] = sum over the (tap, output position) pairs
//   that read (ih, iw) of sum_o dy[n,oh,ow,o] * W[fh,fw,:,o], with the filter
//   transposed once to [fh, fw, o, c] so the sum runs along c;
// - filter gradient, per (tap, block of 4 input channels): dW[fh,fw,c,:] =
//   sum over output positions of x[n, ih, iw, c] * dy[n, oh, ow, :].
// Half and bfloat16 are computed in float, int32 in uint32 (wrapping, as
// Conv2D's int32 kernel). NCHW tensors are transposed to NHWC and back.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/depthwise_conv_op.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/kernels/ops_util.h"

namespace opkit {
namespace {

template <typename T>
using ComputeType = std::conditional_t<
    std::is_same_v<T, double>, double,
    std::conditional_t<std::is_same_v<T, int32>, uint32_t, float>>;

// The geometry of one convolution whose gradient is wanted (NHWC terms).
struct ConvGradDims {
  int64_t batch, in_rows, in_cols, in_depth;
  int64_t filter_rows, filter_cols, out_depth;
  int64_t stride_rows, stride_cols, dilation_rows, dilation_cols;
  int64_t pad_top, pad_left;
  int64_t out_rows, out_cols;
  // Depthwise only: filter [rows, cols, in_depth, depth_multiplier] and
  // out_depth = in_depth * depth_multiplier. 0 for Conv2D.
  int64_t depth_multiplier = 0;
};

// Checks that `input`, `filter` and `out_backprop` shapes are those of one
// convolution with `params`, and fills *d. `op` names the caller in errors.
// With `depthwise`, the filter is a depthwise one (ConvGradDims).
Status ComputeGradDims(const char* op, const DepthwiseConvParams& params,
                       const TensorShape& input, const TensorShape& filter,
                       const TensorShape& out_backprop, bool depthwise,
                       ConvGradDims* d) {
  if (input.dims() != 4) {
    return errors::InvalidArgument(op, ": input must be 4-dimensional, got ",
                                   input.DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument(op, ": filter must be 4-dimensional, got ",
                                   filter.DebugString());
  }
  if (out_backprop.dims() != 4) {
    return errors::InvalidArgument(
        op, ": out_backprop must be 4-dimensional, got ",
        out_backprop.DebugString());
  }
  const TensorFormat f = params.format;
  const int n = FormatDimIndex(f, 'N'), h = FormatDimIndex(f, 'H'),
            w = FormatDimIndex(f, 'W'), c = FormatDimIndex(f, 'C');
  d->batch = input.dim_size(n);
  d->in_rows = input.dim_size(h);
  d->in_cols = input.dim_size(w);
  d->in_depth = input.dim_size(c);
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  d->out_depth = filter.dim_size(3);
  if (filter.dim_size(2) != d->in_depth) {
    return errors::InvalidArgument(
        op, ": input depth must be equal to filter depth: ", d->in_depth,
        " vs ", filter.dim_size(2),
        depthwise ? " (the filter is [rows, cols, in_depth, multiplier])"
                  : " (grouped convolutions have no CPU gradient kernel)");
  }
  if (depthwise) {
    d->depth_multiplier = filter.dim_size(3);
    if (d->depth_multiplier != 0 &&
        d->in_depth > std::numeric_limits<int64_t>::max() / d->depth_multiplier) {
      return errors::InvalidArgument(op, ": in_depth ", d->in_depth,
                                     " times depth_multiplier ",
                                     d->depth_multiplier, " overflows");
    }
    d->out_depth = d->in_depth * d->depth_multiplier;
  }
  if (out_backprop.dim_size(n) != d->batch) {
    return errors::InvalidArgument(
        op, ": input and out_backprop must have the same batch size, got ",
        d->batch, " and ", out_backprop.dim_size(n));
  }
  if (out_backprop.dim_size(c) != d->out_depth) {
    return errors::InvalidArgument(
        op, ": filter and out_backprop must have the same out_depth, got ",
        d->out_depth, " and ", out_backprop.dim_size(c));
  }
  d->stride_rows = params.strides[h];
  d->stride_cols = params.strides[w];
  d->dilation_rows = params.dilations[h];
  d->dilation_cols = params.dilations[w];
  int64_t pad_bottom = 0, pad_right = 0;
  d->pad_top = d->pad_left = 0;
  if (params.padding == Padding::EXPLICIT) {
    d->pad_top = params.explicit_paddings[2 * h];
    pad_bottom = params.explicit_paddings[2 * h + 1];
    d->pad_left = params.explicit_paddings[2 * w];
    pad_right = params.explicit_paddings[2 * w + 1];
  }
  OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      d->in_rows, d->filter_rows, d->dilation_rows, d->stride_rows,
      params.padding, &d->out_rows, &d->pad_top, &pad_bottom));
  OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      d->in_cols, d->filter_cols, d->dilation_cols, d->stride_cols,
      params.padding, &d->out_cols, &d->pad_left, &pad_right));
  if (out_backprop.dim_size(h) != d->out_rows ||
      out_backprop.dim_size(w) != d->out_cols) {
    return errors::InvalidArgument(
        op, ": out_backprop ", out_backprop.DebugString(),
        " does not match the convolution's output: ", d->out_rows, " rows and ",
        d->out_cols, " columns for input ", input.DebugString(), " and filter ",
        filter.DebugString());
  }
  return OkStatus();
}

// A 4-D int32 size vector (the input_sizes / filter_sizes input) as a shape.
Status ShapeFromSizes(const char* op, const char* what, const Tensor& sizes,
                      TensorShape* shape) {
  if (sizes.dims() != 1 || sizes.dtype() != DT_INT32) {
    return errors::InvalidArgument(op, ": ", what,
                                   " must be a 1-D int32 tensor, got ",
                                   sizes.shape().DebugString());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < sizes.NumElements(); ++i) {
    dims.push_back(sizes.flat<int32>()(i));
  }
  if (dims.size() != 4) {
    return errors::InvalidArgument(op, ": ", what,
                                   " must have 4 values, got ", dims.size());
  }
  return TensorShape::BuildTensorShape(dims, shape);
}

// src NCHW [d0, d1, d2, d3] -> dst NHWC [d0, d2, d3, d1], or (to_nchw) src
// NHWC [d0, d1, d2, d3] -> dst NCHW [d0, d3, d1, d2]; converting the type.
template <typename Dst, typename Src>
void Relayout(const Src* src, int64_t d0, int64_t d1, int64_t d2, int64_t d3,
              bool to_nchw, Dst* dst) {
  for (int64_t i0 = 0; i0 < d0; ++i0)
    for (int64_t i1 = 0; i1 < d1; ++i1)
      for (int64_t i2 = 0; i2 < d2; ++i2)
        for (int64_t i3 = 0; i3 < d3; ++i3) {
          const int64_t di = to_nchw ? ((i0 * d3 + i3) * d1 + i1) * d2 + i2
                                     : ((i0 * d2 + i2) * d3 + i3) * d1 + i1;
          dst[di] = static_cast<Dst>(src[((i0 * d1 + i1) * d2 + i2) * d3 + i3]);
        }
}

// A tensor's data as NHWC values of type CT: the tensor's own buffer when it
// already is, else a converted copy in *buffer.
template <typename CT, typename T>
const CT* StageNhwc(const Tensor& t, bool nchw, std::vector<CT>* buffer) {
  const T* data = t.flat<T>().data();
  if (!nchw && std::is_same_v<T, CT>) return reinterpret_cast<const CT*>(data);
  buffer->resize(static_cast<size_t>(t.NumElements()));
  if (nchw) {
    Relayout(data, t.dim_size(0), t.dim_size(1), t.dim_size(2), t.dim_size(3),
             /*to_nchw=*/false, buffer->data());
  } else {
    for (size_t i = 0; i < buffer->size(); ++i) {
      (*buffer)[i] = static_cast<CT>(data[i]);
    }
  }
  return buffer->data();
}

// Writes NHWC values `src` of `d`'s shape [n, rows, cols, depth] into `out`.
template <typename CT, typename T>
void Unstage(const std::vector<CT>& src, int64_t n, int64_t rows, int64_t cols,
             int64_t depth, bool nchw, Tensor* out) {
  T* dst = out->flat<T>().data();
  if (nchw) {
    Relayout(src.data(), n, rows, cols, depth, /*to_nchw=*/true, dst);
  } else {
    for (size_t i = 0; i < src.size(); ++i) dst[i] = static_cast<T>(src[i]);
  }
}

// The (filter index, output index) pairs along one dimension whose window
// reads input index `in`: filter index f reads in = out * stride - pad + f *
// dilation. Ascending in f.
void ReadingPairs(int64_t in, int64_t pad, int64_t filter, int64_t dilation,
                  int64_t stride, int64_t out_size,
                  std::vector<std::pair<int64_t, int64_t>>* pairs) {
  pairs->clear();
  for (int64_t f = 0; f < filter; ++f) {
    const int64_t t = in + pad - f * dilation;
    if (t < 0) break;
    if (t % stride != 0) continue;
    const int64_t out = t / stride;
    if (out < out_size) pairs->emplace_back(f, out);
  }
}

// dx (NHWC, d's input shape) from dy (NHWC, d's output shape) and the HWIO
// filter w.
template <typename CT>
void BackpropInputNhwc(OpKernelContext* ctx, const ConvGradDims& d,
                       const CT* dy, const CT* w, CT* dx) {
  const int64_t C = d.in_depth, O = d.out_depth;
  const int64_t taps = d.filter_rows * d.filter_cols;
  constexpr int64_t kChunk = 128 / sizeof(CT);
  // wt[tap][o][c] = w[tap][c][o].
  std::vector<CT> wt(static_cast<size_t>(taps * O * C));
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t o = 0; o < O; ++o)
        wt[(t * O + o) * C + c] = w[(t * C + c) * O + o];
  const double cost = static_cast<double>(d.in_cols) * C * O *
                      (static_cast<double>(taps) /
                           static_cast<double>(d.stride_rows * d.stride_cols) +
                       1);
  Shard(ctx, d.batch * d.in_rows, cost, [&](int64_t begin, int64_t end) {
    // The (filter row, output row) pairs that read input row ih.
    std::vector<std::pair<int64_t, int64_t>> rows, cols;
    for (int64_t r = begin; r < end; ++r) {
      const int64_t n = r / d.in_rows, ih = r % d.in_rows;
      ReadingPairs(ih, d.pad_top, d.filter_rows, d.dilation_rows, d.stride_rows,
                   d.out_rows, &rows);
      for (int64_t iw = 0; iw < d.in_cols; ++iw) {
        CT* acc = dx + (r * d.in_cols + iw) * C;
        ReadingPairs(iw, d.pad_left, d.filter_cols, d.dilation_cols, d.stride_cols,
                     d.out_cols, &cols);
        // kChunk channels at a time, their sums held in registers over all
        // (tap, output position) pairs.
        for (int64_t c0 = 0; c0 < C; c0 += kChunk) {
          const int64_t len = std::min(kChunk, C - c0);
          CT sum[kChunk] = {};
          for (const auto& [fh, oh] : rows) {
            for (const auto& [fw, ow] : cols) {
              const CT* g = dy + ((n * d.out_rows + oh) * d.out_cols + ow) * O;
              const CT* f = wt.data() + (fh * d.filter_cols + fw) * O * C + c0;
              if (len == kChunk) {
                for (int64_t o = 0; o < O; ++o) {
                  const CT v = g[o];
                  const CT* fo = f + o * C;
                  for (int64_t i = 0; i < kChunk; ++i) sum[i] += v * fo[i];
                }
              } else {
                for (int64_t o = 0; o < O; ++o) {
                  const CT v = g[o];
                  const CT* fo = f + o * C;
                  for (int64_t i = 0; i < len; ++i) sum[i] += v * fo[i];
                }
              }
            }
          }
          std::copy(sum, sum + len, acc + c0);
        }
      }
    }
  });
}

// dw (HWIO, d's filter shape) from x (NHWC input) and dy (NHWC output).
template <typename CT>
void BackpropFilterNhwc(OpKernelContext* ctx, const ConvGradDims& d,
                        const CT* x, const CT* dy, CT* dw) {
  const int64_t C = d.in_depth, O = d.out_depth;
  // Each unit is one tap and kChannels input channels: dW[tap][c..c+3][:],
  // summed kChunk output channels at a time in registers over every output
  // position, so each dy value loaded serves kChannels sums.
  constexpr int64_t kChannels = 4;
  constexpr int64_t kChunk = 32 / sizeof(CT);
  const int64_t taps = d.filter_rows * d.filter_cols;
  const int64_t blocks = (C + kChannels - 1) / kChannels;
  const double cost = static_cast<double>(d.batch) * d.out_rows * d.out_cols *
                      O * std::min(C, kChannels);
  Shard(ctx, taps * blocks, cost, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t tap = u / blocks;
      const int64_t c0 = (u % blocks) * kChannels;
      const int64_t cb = std::min(kChannels, C - c0);
      const int64_t fh = tap / d.filter_cols, fw = tap % d.filter_cols;
      for (int64_t o0 = 0; o0 < O; o0 += kChunk) {
        const int64_t len = std::min(kChunk, O - o0);
        CT sum[kChannels][kChunk] = {};
        for (int64_t n = 0; n < d.batch; ++n) {
          for (int64_t oh = 0; oh < d.out_rows; ++oh) {
            const int64_t ih =
                oh * d.stride_rows - d.pad_top + fh * d.dilation_rows;
            if (ih < 0 || ih >= d.in_rows) continue;
            const CT* x_row = x + (n * d.in_rows + ih) * d.in_cols * C + c0;
            const CT* g_row =
                dy + (n * d.out_rows + oh) * d.out_cols * O + o0;
            for (int64_t ow = 0; ow < d.out_cols; ++ow) {
              const int64_t iw =
                  ow * d.stride_cols - d.pad_left + fw * d.dilation_cols;
              if (iw < 0 || iw >= d.in_cols) continue;
              const CT* xp = x_row + iw * C;
              const CT* g = g_row + ow * O;
              if (cb == kChannels && len == kChunk) {
                for (int64_t k = 0; k < kChannels; ++k) {
                  const CT v = xp[k];
                  for (int64_t i = 0; i < kChunk; ++i) sum[k][i] += v * g[i];
                }
              } else {
                for (int64_t k = 0; k < cb; ++k) {
                  const CT v = xp[k];
                  for (int64_t i = 0; i < len; ++i) sum[k][i] += v * g[i];
                }
              }
            }
          }
        }
        for (int64_t k = 0; k < cb; ++k) {
          std::copy(sum[k], sum[k] + len, dw + (tap * C + c0 + k) * O + o0);
        }
      }
    }
  });
}

// The depthwise dx: dx[n,ih,iw,c] = sum over the (tap, output position)
// pairs that read (ih, iw) of sum_m dy[n,oh,ow,c*M+m] * w[fh,fw,c,m]. The
// products are summed along the contiguous c*M+m axis first, then reduced
// over m.
template <typename CT>
void DepthwiseBackpropInputNhwc(OpKernelContext* ctx, const ConvGradDims& d,
                                const CT* dy, const CT* w, CT* dx) {
  const int64_t C = d.in_depth, M = d.depth_multiplier, O = d.out_depth;
  const int64_t taps = d.filter_rows * d.filter_cols;
  const double cost = static_cast<double>(d.in_cols) * O *
                      (static_cast<double>(taps) /
                           static_cast<double>(d.stride_rows * d.stride_cols) +
                       1);
  Shard(ctx, d.batch * d.in_rows, cost, [&](int64_t begin, int64_t end) {
    std::vector<std::pair<int64_t, int64_t>> rows, cols;
    std::vector<CT> sum(static_cast<size_t>(O));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t n = r / d.in_rows, ih = r % d.in_rows;
      ReadingPairs(ih, d.pad_top, d.filter_rows, d.dilation_rows, d.stride_rows,
                   d.out_rows, &rows);
      for (int64_t iw = 0; iw < d.in_cols; ++iw) {
        ReadingPairs(iw, d.pad_left, d.filter_cols, d.dilation_cols, d.stride_cols,
                     d.out_cols, &cols);
        std::fill(sum.begin(), sum.end(), CT(0));
        for (const auto& [fh, oh] : rows) {
          for (const auto& [fw, ow] : cols) {
            const CT* g = dy + ((n * d.out_rows + oh) * d.out_cols + ow) * O;
            const CT* f = w + (fh * d.filter_cols + fw) * O;
            for (int64_t k = 0; k < O; ++k) sum[k] += g[k] * f[k];
          }
        }
        CT* acc = dx + (r * d.in_cols + iw) * C;
        for (int64_t c = 0; c < C; ++c) {
          CT v = 0;
          for (int64_t m = 0; m < M; ++m) v += sum[c * M + m];
          acc[c] = v;
        }
      }
    }
  });
}

// The depthwise dw: dw[fh,fw,c,m] = sum over output positions of
// x[n,ih,iw,c] * dy[n,oh,ow,c*M+m], one tap per unit of work.
template <typename CT>
void DepthwiseBackpropFilterNhwc(OpKernelContext* ctx, const ConvGradDims& d,
                                 const CT* x, const CT* dy, CT* dw) {
  const int64_t C = d.in_depth, M = d.depth_multiplier, O = d.out_depth;
  const int64_t taps = d.filter_rows * d.filter_cols;
  const double cost =
      static_cast<double>(d.batch) * d.out_rows * d.out_cols * O;
  Shard(ctx, taps, cost, [&](int64_t begin, int64_t end) {
    std::vector<CT> sum(static_cast<size_t>(O));
    for (int64_t tap = begin; tap < end; ++tap) {
      const int64_t fh = tap / d.filter_cols, fw = tap % d.filter_cols;
      std::fill(sum.begin(), sum.end(), CT(0));
      for (int64_t n = 0; n < d.batch; ++n) {
        for (int64_t oh = 0; oh < d.out_rows; ++oh) {
          const int64_t ih = oh * d.stride_rows - d.pad_top + fh * d.dilation_rows;
          if (ih < 0 || ih >= d.in_rows) continue;
          for (int64_t ow = 0; ow < d.out_cols; ++ow) {
            const int64_t iw =
                ow * d.stride_cols - d.pad_left + fw * d.dilation_cols;
            if (iw < 0 || iw >= d.in_cols) continue;
            const CT* xp = x + ((n * d.in_rows + ih) * d.in_cols + iw) * C;
            const CT* g = dy + ((n * d.out_rows + oh) * d.out_cols + ow) * O;
            if (M == 1) {
              for (int64_t c = 0; c < C; ++c) sum[c] += xp[c] * g[c];
            } else {
              for (int64_t c = 0; c < C; ++c) {
                const CT v = xp[c];
                for (int64_t m = 0; m < M; ++m) sum[c * M + m] += v * g[c * M + m];
              }
            }
          }
        }
      }
      std::copy(sum.begin(), sum.end(), dw + tap * O);
    }
  });
}

// Conv2DBackpropInput, or with kDepthwise DepthwiseConv2dNativeBackpropInput.
template <typename T, bool kDepthwise = false>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, DepthwiseConvParams::FromAttrs(ctx, &params_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp =
        kDepthwise ? "DepthwiseConv2dNativeBackpropInput" : "Conv2DBackpropInput";
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    OP_REQUIRES(ctx, filter.dims() == 4,
                errors::InvalidArgument(kOp, ": filter must be 4-dimensional, got ",
                                        filter.shape().DebugString()));
    OP_REQUIRES(ctx, dy.dims() == 4,
                errors::InvalidArgument(
                    kOp, ": out_backprop must be 4-dimensional, got ",
                    dy.shape().DebugString()));
    TensorShape input_shape;
    if (!kDepthwise && sizes.dims() == 1 && sizes.NumElements() == 2 &&
        sizes.dtype() == DT_INT32) {
      // [rows, cols]: batch from out_backprop, depth from the filter.
      const int64_t rows = sizes.flat<int32>()(0), cols = sizes.flat<int32>()(1);
      OP_REQUIRES_OK(ctx, ShapeFromFormat(
                              params_.format,
                              dy.dim_size(FormatDimIndex(params_.format, 'N')),
                              rows, cols, filter.dim_size(2), &input_shape));
    } else {
      OP_REQUIRES_OK(ctx, ShapeFromSizes(kOp, "input_sizes", sizes, &input_shape));
    }
    ConvGradDims d;
    OP_REQUIRES_OK(ctx, ComputeGradDims(kOp, params_, input_shape,
                                        filter.shape(), dy.shape(), kDepthwise, &d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return;
    const bool nchw = params_.format == TensorFormat::kNCHW;
    std::vector<CT> dy_buf, w_buf, dx_buf;
    const CT* dy_ct = StageNhwc<CT, T>(dy, nchw, &dy_buf);
    const CT* w_ct = StageNhwc<CT, T>(filter, /*nchw=*/false, &w_buf);
    const auto backprop = [&](CT* dx) {
      if (kDepthwise) {
        DepthwiseBackpropInputNhwc<CT>(ctx, d, dy_ct, w_ct, dx);
      } else {
        BackpropInputNhwc<CT>(ctx, d, dy_ct, w_ct, dx);
      }
    };
    if (!nchw && std::is_same_v<T, CT>) {
      backprop(reinterpret_cast<CT*>(out->flat<T>().data()));
      return;
    }
    dx_buf.resize(static_cast<size_t>(out->NumElements()));
    backprop(dx_buf.data());
    Unstage<CT, T>(dx_buf, d.batch, d.in_rows, d.in_cols, d.in_depth, nchw, out);
  }

 private:
  using CT = ComputeType<T>;
  DepthwiseConvParams params_;
};

// Conv2DBackpropFilter, or with kDepthwise DepthwiseConv2dNativeBackpropFilter.
template <typename T, bool kDepthwise = false>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, DepthwiseConvParams::FromAttrs(ctx, &params_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp =
        kDepthwise ? "DepthwiseConv2dNativeBackpropFilter" : "Conv2DBackpropFilter";
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizes(kOp, "filter_sizes", sizes, &filter_shape));
    ConvGradDims d;
    OP_REQUIRES_OK(ctx, ComputeGradDims(kOp, params_, input.shape(),
                                        filter_shape, dy.shape(), kDepthwise, &d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    if (out->NumElements() == 0) return;
    const bool nchw = params_.format == TensorFormat::kNCHW;
    std::vector<CT> x_buf, dy_buf, dw_buf;
    const CT* x_ct = StageNhwc<CT, T>(input, nchw, &x_buf);
    const CT* dy_ct = StageNhwc<CT, T>(dy, nchw, &dy_buf);
    const auto backprop = [&](CT* dw) {
      if (kDepthwise) {
        DepthwiseBackpropFilterNhwc<CT>(ctx, d, x_ct, dy_ct, dw);
      } else {
        BackpropFilterNhwc<CT>(ctx, d, x_ct, dy_ct, dw);
      }
    };
    if (std::is_same_v<T, CT>) {
      backprop(reinterpret_cast<CT*>(out->flat<T>().data()));
      return;
    }
    dw_buf.resize(static_cast<size_t>(out->NumElements()));
    backprop(dw_buf.data());
    T* dst = out->flat<T>().data();
    for (size_t i = 0; i < dw_buf.size(); ++i) dst[i] = static_cast<T>(dw_buf[i]);
  }

 private:
  using CT = ComputeType<T>;
  DepthwiseConvParams params_;
};

#define OPKIT_REGISTER_CONV_GRAD(T)                                       \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput")                     \
                              .Device(DEVICE_CPU)                         \
                              .TypeConstraint<T>("T")                     \
                              .HostMemory("input_sizes"),                 \
                          Conv2DBackpropInputOp<T>);                      \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter")                    \
                              .Device(DEVICE_CPU)                         \
                              .TypeConstraint<T>("T")                     \
                              .HostMemory("filter_sizes"),                \
                          Conv2DBackpropFilterOp<T>);                     \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNativeBackpropInput")      \
                              .Device(DEVICE_CPU)                         \
                              .TypeConstraint<T>("T")                     \
                              .HostMemory("input_sizes"),                 \
                          Conv2DBackpropInputOp<T, true>);                \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNativeBackpropFilter")     \
                              .Device(DEVICE_CPU)                         \
                              .TypeConstraint<T>("T")                     \
                              .HostMemory("filter_sizes"),                \
                          Conv2DBackpropFilterOp<T, true>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_CONV_GRAD)
#undef OPKIT_REGISTER_CONV_GRAD

REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32>("T")
                            .HostMemory("input_sizes"),
                        Conv2DBackpropInputOp<int32>);

}  // namespace
}  // namespace opkit

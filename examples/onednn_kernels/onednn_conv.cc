// oneDNN kernels for Conv2D, DepthwiseConv2dNative, _FusedConv2D and
// _FusedDepthwiseConv2dNative on float32, NHWC or NCHW: strides, dilations,
// SAME / VALID / EXPLICIT padding, and Conv2D's grouped form (input depth a
// multiple of the filter's). A depthwise filter [FH, FW, C, M] is, in
// memory, the grouped Conv2D filter [FH, FW, 1, C*M] with C groups, so both
// ops are one oneDNN grouped convolution. The fused ops run the bias as the
// convolution's bias and the activation as an eltwise post-op.
//
// Per kernel instance the primitive is cached for each input shape (see
// SmallCache), and with it the filter reordered into the layout oneDNN
// chose; Note [Reordered weights] says when that copy is reused.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "onednn_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/ops_util.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace onednn_kernels {
namespace {

// Note [Reordered weights]
// oneDNN runs fastest with the filter in a blocked layout of its choosing
// (format_tag::any), so each call would start by reordering TensorFlow's
// HWIO filter into it. A kernel instance keeps the reordered copy and
// reuses it when the next call's filter is provably the same data:
//
//   the filter Tensor shares the buffer of the Tensor the copy was made
//   from (the same TensorBuffer, not merely the same address), at the same
//   data pointer, with the same shape.
//
// The entry holds a reference to that Tensor, and this is what makes the
// rule sound rather than a guess:
//  - the buffer cannot be freed while the entry holds it, so a new filter
//    can never arrive at a recycled buffer (the ABA problem of comparing
//    addresses: a filter freed and a new one allocated in its place);
//  - opkit writes into a buffer only while no other Tensor shares it
//    (forward_input_or_allocate_output, the variable updates of Note
//    [Resource variables] and Note [Ref variables], the Python fast path's
//    kept inputs all check RefCountIsOne), and our reference makes it
//    shared, so its contents cannot change underneath the copy. A variable
//    update swaps a new buffer in, and a numpy array passed from Python is
//    wrapped in a new TensorBuffer on every call; both miss, correctly.
// What this relies on of a C++ caller: not to write through a Tensor after
// handing it to the runtime, which opkit already asks of every input that
// the runtime may share (OpKernelContext::Params::inputs).
// A checksum instead would cost a full pass over the filter on every call
// (as much memory traffic as the reorder it saves) and still not be a proof.
// The price: each cached entry keeps its last filter alive until a call
// with another filter replaces it (at most SmallCache::kMaxEntries filters
// per kernel instance).

// The shapes a primitive was made for, and the thread count (oneDNN sizes
// its work split when it makes the primitive).
struct ConvKey {
  std::array<int64_t, 4> input;
  std::array<int64_t, 4> filter;
  int threads;
  bool operator==(const ConvKey& o) const {
    return input == o.input && filter == o.filter && threads == o.threads;
  }
};

// A primitive made for one ConvKey and the filter reordered for it. The
// const members are set once; the reordered filter changes under `mu`.
// Shared by the calls of one kernel instance, from any thread.
struct ConvPrimitive {
  ConvPrimitive(dnnl::convolution_forward::primitive_desc pd_in,
                dnnl::memory::desc user_weights_in)
      : pd(std::move(pd_in)),
        prim(pd),
        user_weights(std::move(user_weights_in)),
        reorder_weights(pd.weights_desc() != user_weights) {}

  const dnnl::convolution_forward::primitive_desc pd;
  const dnnl::convolution_forward prim;
  // The filter as the op receives it, and whether oneDNN wants it in
  // another layout.
  const dnnl::memory::desc user_weights;
  const bool reorder_weights;

  mutex mu;
  // Note [Reordered weights]: `weights` is `filter` in pd.weights_desc().
  Tensor filter OPKIT_GUARDED_BY(mu);
  dnnl::memory weights OPKIT_GUARDED_BY(mu);
};

// Everything one call needs to know; TensorFlow's names and rules.
struct ConvDims {
  int64_t batch, in_rows, in_cols, in_depth;
  int64_t filter_rows, filter_cols, patch_depth, out_depth, groups;
  int64_t out_rows, out_cols;
  int64_t pad_top, pad_bottom, pad_left, pad_right;
};

// Conv2D (depthwise = false) or DepthwiseConv2dNative (true), plain or
// _Fused. Thread-safe: Compute keeps per-call state on the stack, and the
// caches are guarded (SmallCache, ConvPrimitive::mu); a primitive runs with
// a scratchpad of each call's own.
class OneDnnConvOp : public OpKernel {
 public:
  OneDnnConvOp(OpKernelConstruction* ctx, bool depthwise)
      : OpKernel(ctx), depthwise_(depthwise) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations_));
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx,
                   shape_inference::GetPaddingFromString(padding, &padding_));
    if (ctx->HasAttr("explicit_paddings")) {
      std::vector<int64> explicit_paddings;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("explicit_paddings", &explicit_paddings));
      explicit_paddings_.assign(explicit_paddings.begin(),
                                explicit_paddings.end());
    }
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    OP_REQUIRES(ctx, FormatFromString(data_format, &format_),
                errors::InvalidArgument("Invalid data format: '", data_format,
                                        "'; use 'NHWC' or 'NCHW'"));
    OP_REQUIRES(ctx, strides_.size() == 4,
                errors::InvalidArgument("Sliding window strides field must "
                                        "specify 4 dimensions, got ",
                                        strides_.size()));
    OP_REQUIRES(ctx, dilations_.size() == 4,
                errors::InvalidArgument("Sliding window dilations field must "
                                        "specify 4 dimensions, got ",
                                        dilations_.size()));
    const int n = FormatDimIndex(format_, 'N');
    const int c = FormatDimIndex(format_, 'C');
    const int h = FormatDimIndex(format_, 'H');
    const int w = FormatDimIndex(format_, 'W');
    OP_REQUIRES(ctx, strides_[n] == 1 && strides_[c] == 1,
                errors::InvalidArgument(
                    "Current implementation does not yet support strides in "
                    "the batch and depth dimensions."));
    OP_REQUIRES(ctx, strides_[h] > 0 && strides_[w] > 0,
                errors::InvalidArgument(
                    "Row and column strides should be larger than 0."));
    OP_REQUIRES(ctx, dilations_[n] == 1 && dilations_[c] == 1,
                errors::InvalidArgument(
                    "Current implementation does not yet support dilations "
                    "in the batch and depth dimensions."));
    OP_REQUIRES(ctx, dilations_[h] > 0 && dilations_[w] > 0,
                errors::InvalidArgument(
                    "Dilated rates should be larger than 0."));
    if (depthwise_) {
      OP_REQUIRES(ctx, strides_[h] == strides_[w],
                  errors::InvalidArgument(
                      "Current implementation only supports equal length "
                      "strides in the row and column dimensions."));
    }
    OP_REQUIRES_OK(ctx,
                   CheckValidPadding(padding_, explicit_paddings_, format_));
    OP_REQUIRES_OK(ctx, ParseFusedOps(ctx, &fused_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ConvDims d;
    OP_REQUIRES_OK(ctx, ComputeDims(input, filter, &d));
    const float* bias = nullptr;
    if (fused_.bias) {
      const Tensor& b = ctx->input(2);
      OP_REQUIRES_OK(ctx, CheckBias(b, d.out_depth));
      bias = static_cast<const float*>(b.data());
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ShapeFromFormat(format_, d.batch, d.out_rows,
                                        d.out_cols, d.out_depth, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    float* out = output->flat<float>().data();
    if (filter.NumElements() == 0 || d.groups == 0) {
      // An empty window, or an input without channels: every sum is empty.
      const bool nchw = format_ == TensorFormat::kNCHW;
      const int64_t positions = d.out_rows * d.out_cols;
      FillEmptyReduction(fused_, bias, nchw ? d.batch : d.batch * positions,
                         d.out_depth, nchw ? positions : 1, out);
      return;
    }
    OP_REQUIRES_OK(ctx, RunGuarded(type_string(), [&]() -> Status {
                     return Convolve(ctx, d, input, filter, bias, out);
                   }));
  }

 private:
  Status ComputeDims(const Tensor& input, const Tensor& filter,
                     ConvDims* d) const {
    if (input.dims() != 4) {
      return errors::InvalidArgument("input must be 4-dimensional: ",
                                     input.shape().DebugString());
    }
    if (filter.dims() != 4) {
      return errors::InvalidArgument("filter must be 4-dimensional: ",
                                     filter.shape().DebugString());
    }
    const int h = FormatDimIndex(format_, 'H');
    const int w = FormatDimIndex(format_, 'W');
    d->batch = input.dim_size(FormatDimIndex(format_, 'N'));
    d->in_rows = input.dim_size(h);
    d->in_cols = input.dim_size(w);
    d->in_depth = input.dim_size(FormatDimIndex(format_, 'C'));
    d->filter_rows = filter.dim_size(0);
    d->filter_cols = filter.dim_size(1);
    if (depthwise_) {
      if (filter.dim_size(2) != d->in_depth) {
        return errors::InvalidArgument(
            "input and filter must have the same depth: ", d->in_depth,
            " vs ", filter.dim_size(2));
      }
      // [FH, FW, C, M] is [FH, FW, 1, C*M] with C groups.
      d->patch_depth = 1;
      d->groups = d->in_depth;
      if (__builtin_mul_overflow(d->in_depth, filter.dim_size(3),
                                 &d->out_depth)) {
        return errors::InvalidArgument("output depth overflows: filter ",
                                       filter.shape().DebugString());
      }
    } else {
      d->patch_depth = filter.dim_size(2);
      d->out_depth = filter.dim_size(3);
      if (d->patch_depth <= 0) {
        return errors::InvalidArgument(
            "filter depth must be strictly positive, got ", d->patch_depth,
            " in filter shape ", filter.shape().DebugString());
      }
      if (d->in_depth % d->patch_depth != 0) {
        return errors::InvalidArgument(
            "input depth must be evenly divisible by filter depth: ",
            d->in_depth, " vs ", d->patch_depth);
      }
      d->groups = d->in_depth / d->patch_depth;
      if (d->groups > 0 && d->out_depth % d->groups != 0) {
        return errors::InvalidArgument(
            "output depth must be evenly divisible by number of groups: ",
            d->out_depth, " vs ", d->groups);
      }
    }
    d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = 0;
    if (padding_ == Padding::EXPLICIT) {
      d->pad_top = explicit_paddings_[2 * h];
      d->pad_bottom = explicit_paddings_[2 * h + 1];
      d->pad_left = explicit_paddings_[2 * w];
      d->pad_right = explicit_paddings_[2 * w + 1];
    }
    OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
        d->in_rows, d->filter_rows, dilations_[h], strides_[h], padding_,
        &d->out_rows, &d->pad_top, &d->pad_bottom));
    OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
        d->in_cols, d->filter_cols, dilations_[w], strides_[w], padding_,
        &d->out_cols, &d->pad_left, &d->pad_right));
    return OkStatus();
  }

  // Requires ComputeDims' checks, a non-empty output and a non-empty filter.
  // Throws dnnl::error (see RunGuarded).
  Status Convolve(OpKernelContext* ctx, const ConvDims& d, const Tensor& input,
                  const Tensor& filter, const float* bias, float* out) {
    const int threads = SetOpenMpThreads(ctx);
    const ConvKey key{{input.dim_size(0), input.dim_size(1), input.dim_size(2),
                       input.dim_size(3)},
                      {filter.dim_size(0), filter.dim_size(1),
                       filter.dim_size(2), filter.dim_size(3)},
                      threads};
    std::shared_ptr<ConvPrimitive> conv = cache_.Find(key);
    if (conv == nullptr) conv = cache_.Insert(key, MakePrimitive(d));

    dnnl::memory weights;
    if (!conv->reorder_weights) {
      weights = WrapTensor(conv->user_weights, filter);
    } else {
      OPKIT_RETURN_IF_ERROR(ReorderedWeights(ctx, conv.get(), filter, &weights));
    }
    const dnnl::memory::format_tag tag = ActivationTag();
    using dims = dnnl::memory::dims;
    const dnnl::memory::desc src_desc(
        dims{d.batch, d.in_depth, d.in_rows, d.in_cols},
        dnnl::memory::data_type::f32, tag);
    const dnnl::memory::desc dst_desc(
        dims{d.batch, d.out_depth, d.out_rows, d.out_cols},
        dnnl::memory::data_type::f32, tag);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, WrapTensor(src_desc, input)},
        {DNNL_ARG_WEIGHTS, weights},
        {DNNL_ARG_DST, dnnl::memory(dst_desc, CpuEngine(), out)}};
    if (bias != nullptr) {
      args.emplace(DNNL_ARG_BIAS,
                   dnnl::memory(conv->pd.bias_desc(), CpuEngine(),
                                const_cast<float*>(bias)));
    }
    return Execute(ctx, conv->pd, conv->prim, std::move(args));
  }

  dnnl::memory::format_tag ActivationTag() const {
    return format_ == TensorFormat::kNCHW ? dnnl::memory::format_tag::nchw
                                          : dnnl::memory::format_tag::nhwc;
  }

  std::shared_ptr<ConvPrimitive> MakePrimitive(const ConvDims& d) const {
    using dims = dnnl::memory::dims;
    using tag = dnnl::memory::format_tag;
    constexpr auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::desc src(
        dims{d.batch, d.in_depth, d.in_rows, d.in_cols}, f32, ActivationTag());
    const dnnl::memory::desc dst(
        dims{d.batch, d.out_depth, d.out_rows, d.out_cols}, f32,
        ActivationTag());
    const dnnl::memory::desc bias =
        fused_.bias ? dnnl::memory::desc(dims{d.out_depth}, f32, tag::x)
                    : dnnl::memory::desc();
    // The HWIO filter [FH, FW, I, O] with O = g * O/G + o, as oneDNN's
    // logical (O, I, KH, KW) or, grouped, (G, O/G, I, KH, KW).
    const int64_t o = d.out_depth;
    const int64_t kw_stride = d.patch_depth * o;
    const int64_t kh_stride = d.filter_cols * kw_stride;
    dnnl::memory::desc user_weights;
    dims weights_dims;
    if (d.groups == 1) {
      weights_dims = {o, d.patch_depth, d.filter_rows, d.filter_cols};
      user_weights = dnnl::memory::desc(weights_dims, f32,
                                        dims{1, o, kh_stride, kw_stride});
    } else {
      const int64_t group_out = o / d.groups;
      weights_dims = {d.groups, group_out, d.patch_depth, d.filter_rows,
                      d.filter_cols};
      user_weights = dnnl::memory::desc(
          weights_dims, f32, dims{group_out, 1, o, kh_stride, kw_stride});
    }
    const int h = FormatDimIndex(format_, 'H');
    const int w = FormatDimIndex(format_, 'W');
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, src,
        dnnl::memory::desc(weights_dims, f32, tag::any), bias, dst,
        dims{strides_[h], strides_[w]},
        dims{dilations_[h] - 1, dilations_[w] - 1},
        dims{d.pad_top, d.pad_left}, dims{d.pad_bottom, d.pad_right});
    dnnl::convolution_forward::primitive_desc pd(desc, MakeAttr(fused_),
                                                 CpuEngine());
    return std::make_shared<ConvPrimitive>(std::move(pd),
                                           std::move(user_weights));
  }

  // The filter in conv->pd.weights_desc(): the cached copy when Note
  // [Reordered weights] allows, else a fresh reorder that replaces it.
  Status ReorderedWeights(OpKernelContext* ctx, ConvPrimitive* conv,
                          const Tensor& filter, dnnl::memory* weights) {
    {
      mutex_lock lock(conv->mu);
      if (conv->filter.SharesBufferWith(filter) &&
          conv->filter.data() == filter.data() &&
          conv->filter.shape() == filter.shape()) {
        *weights = conv->weights;
        return OkStatus();
      }
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::reorder::primitive_desc pd(CpuEngine(), conv->user_weights,
                                           CpuEngine(), conv->pd.weights_desc(),
                                           attr);
    dnnl::memory fresh(conv->pd.weights_desc(), CpuEngine());
    OPKIT_RETURN_IF_ERROR(Execute(
        ctx, pd, dnnl::reorder(pd),
        {{DNNL_ARG_FROM, WrapTensor(conv->user_weights, filter)},
         {DNNL_ARG_TO, fresh}}));
    mutex_lock lock(conv->mu);
    conv->filter = filter;
    conv->weights = fresh;
    *weights = fresh;
    return OkStatus();
  }

  const bool depthwise_;
  std::vector<int32> strides_;
  std::vector<int32> dilations_;
  Padding padding_ = Padding::VALID;
  std::vector<int64_t> explicit_paddings_;
  TensorFormat format_ = TensorFormat::kNHWC;
  FusedOps fused_;
  SmallCache<ConvKey, ConvPrimitive> cache_;
};

class OneDnnConv2DOp : public OneDnnConvOp {
 public:
  explicit OneDnnConv2DOp(OpKernelConstruction* ctx)
      : OneDnnConvOp(ctx, /*depthwise=*/false) {}
};

class OneDnnDepthwiseConv2dNativeOp : public OneDnnConvOp {
 public:
  explicit OneDnnDepthwiseConv2dNativeOp(OpKernelConstruction* ctx)
      : OneDnnConvOp(ctx, /*depthwise=*/true) {}
};

// Priority 2: above the built-in kernels (0) and examples/blas_matmul (1),
// so these win whatever else is loaded (Note [Kernel priority] in
// opkit/kernel/kernel_registry.h).
REGISTER_KERNEL_BUILDER(
    Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(2),
    OneDnnConv2DOp);
REGISTER_KERNEL_BUILDER(Name("_FusedConv2D")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Priority(2),
                        OneDnnConv2DOp);
REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Priority(2),
                        OneDnnDepthwiseConv2dNativeOp);
REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Priority(2),
                        OneDnnDepthwiseConv2dNativeOp);

}  // namespace
}  // namespace onednn_kernels
}  // namespace opkit

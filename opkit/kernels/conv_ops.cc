// Conv2D on CPU: NHWC input [N,H,W,C], HWIO filter [FH,FW,C/groups,O];
// SAME, VALID or EXPLICIT padding, strides and dilations over H and W,
// grouped convolution when C is a multiple of the filter's input depth.
// NCHW is refused with TensorFlow's Unimplemented message, as TensorFlow's
// CPU kernel does (an empty output is still produced without complaint).
//
// Method: im2col + matrix product. Each output position's receptive field
// (FH x FW x C/groups values, zeros where it hangs over the padding) is one
// row of a patch matrix; that matrix times the filter seen as a
// [FH*FW*C/groups, O/groups] matrix is the output. When the input already
// is the patch matrix (1x1 filter with stride 1 and no padding, or a filter
// as large as the unpadded image) it is used as it is.
//
// float and double (Note [Conv2D on GEMM blocks]): the output positions are
// split across the intra-op pool, and each thread takes its rows a block at
// a time -- builds that block's patches, multiplies them by the filter with
// BlasGemm (blas_gemm.h: OpenBLAS, one thread per call), and hands the
// block to the caller's epilogue while it is still in cache. Groups read
// their filter columns and write their output columns in place through the
// leading dimensions, without copies.
//
// half, bfloat16, int32: the patch matrix is built for a bounded number of
// rows at a time (memory stays at a few MB whatever the image size) and
// multiplied by one Eigen contraction spread over the pool.
//
// Arithmetic type: float for half and bfloat16 (converted while building
// the patches, so long sums do not lose precision), unsigned 32-bit for
// int32 (so that overflow wraps instead of being undefined), the type itself
// otherwise.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/blas_gemm.h"
#include "opkit/kernels/conv_ops.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/kernels/ops_util.h"

namespace opkit {
namespace {

template <typename T>
using ComputeType = std::conditional_t<
    std::is_same_v<T, double>, double,
    std::conditional_t<std::is_same_v<T, int32>, uint32_t, float>>;

// How many patch-matrix elements to build at once (16 MB of float).
constexpr int64_t kMaxPatchElements = int64_t{1} << 22;

Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> ContractDims() {
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims;
  dims[0] = Eigen::IndexPair<Eigen::DenseIndex>(1, 0);
  return dims;
}

// Whether the row of output position p in the patch matrix is the input's
// slice [p*k, (p+1)*k): a 1x1 window moving one step at a time with no
// padding, or one window covering the whole unpadded image.
bool InputIsPatchMatrix(const Conv2DDims& d) {
  const bool no_padding = d.pad_top == 0 && d.pad_left == 0;
  if (!no_padding) return false;
  if (d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 &&
      d.stride_cols == 1 && d.out_rows == d.in_rows &&
      d.out_cols == d.in_cols) {
    return true;
  }
  return d.out_rows == 1 && d.out_cols == 1 && d.filter_rows == d.in_rows &&
         d.filter_cols == d.in_cols && d.dilation_rows == 1 &&
         d.dilation_cols == 1;
}

// Fills rows [p0 + first, p0 + last) of the patch matrix for the group
// whose channels start at `channel0` into patches[first * k ...]. Row
// layout: (filter row, filter col, channel), matching the HWIO filter's row
// order.
template <typename T, typename CT>
void FillPatchRows(const Conv2DDims& d, const T* in, int64_t p0, int64_t first,
                   int64_t last, int64_t channel0, CT* patches) {
  const int64_t k = d.filter_rows * d.filter_cols * d.patch_depth;
  for (int64_t r = first; r < last; ++r) {
    const int64_t p = p0 + r;
    const int64_t ow = p % d.out_cols;
    const int64_t oh = (p / d.out_cols) % d.out_rows;
    const int64_t n = p / (d.out_cols * d.out_rows);
    CT* row = patches + r * k;
    const int64_t h_origin = oh * d.stride_rows - d.pad_top;
    const int64_t w_origin = ow * d.stride_cols - d.pad_left;
    // A window row that lies inside the image, without column dilation
    // or groups, is one contiguous run of the input: copied at once (the
    // stem's 3-channel patch rows would otherwise be copies of 3 values).
    const bool whole_rows = std::is_same_v<T, CT> && d.dilation_cols == 1 &&
                            d.patch_depth == d.in_depth && w_origin >= 0 &&
                            w_origin + d.filter_cols <= d.in_cols;
    for (int64_t fh = 0; fh < d.filter_rows; ++fh) {
      const int64_t ih = h_origin + fh * d.dilation_rows;
      if (whole_rows && ih >= 0 && ih < d.in_rows) {
        std::memcpy(
            row + fh * d.filter_cols * d.patch_depth,
            in + ((n * d.in_rows + ih) * d.in_cols + w_origin) * d.in_depth,
            sizeof(T) * d.filter_cols * d.in_depth);
        continue;
      }
      for (int64_t fw = 0; fw < d.filter_cols; ++fw) {
        const int64_t iw = w_origin + fw * d.dilation_cols;
        CT* dst = row + (fh * d.filter_cols + fw) * d.patch_depth;
        if (ih < 0 || ih >= d.in_rows || iw < 0 || iw >= d.in_cols) {
          std::fill(dst, dst + d.patch_depth, CT(0));
          continue;
        }
        const T* src = in +
                       ((n * d.in_rows + ih) * d.in_cols + iw) * d.in_depth +
                       channel0;
        if constexpr (std::is_same_v<T, CT>) {
          std::memcpy(dst, src, sizeof(T) * d.patch_depth);
        } else {
          for (int64_t c = 0; c < d.patch_depth; ++c) {
            dst[c] = static_cast<CT>(src[c]);
          }
        }
      }
    }
  }
}

// FillPatchRows for rows [p0, p0 + rows), split across the intra-op pool.
template <typename T, typename CT>
void BuildPatches(OpKernelContext* ctx, const Conv2DDims& d, const T* in,
                  int64_t p0, int64_t rows, int64_t channel0, CT* patches) {
  const int64_t k = d.filter_rows * d.filter_cols * d.patch_depth;
  Shard(ctx, rows, static_cast<double>(k), [&](int64_t first, int64_t last) {
    FillPatchRows(d, in, p0, first, last, channel0, patches);
  });
}

// The leading dimension with which the input can be read as the patch
// matrix of every group (group g's rows start at channel g * patch_depth),
// or 0 when it cannot: a 1x1 window moving one step at a time with no
// padding reads each input position's channels; a window covering the whole
// unpadded image without groups reads each image.
int64_t InputAsPatchMatrixStride(const Conv2DDims& d) {
  if (d.pad_top != 0 || d.pad_left != 0) return 0;
  if (d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 &&
      d.stride_cols == 1 && d.out_rows == d.in_rows &&
      d.out_cols == d.in_cols) {
    return d.in_depth;
  }
  if (d.groups == 1 && InputIsPatchMatrix(d)) {
    return d.filter_rows * d.filter_cols * d.patch_depth;
  }
  return 0;
}

// Note [Conv2D on GEMM blocks]
// float and double convolutions split the output positions (the rows of
// the [positions, out_depth] output) across the intra-op pool with Shard;
// each thread walks its range a block of kGemmBlockBytes at a time: the
// block's patch rows (none when the input is the patch matrix), one
// BlasGemm per group writing straight into the output, then `on_block` on
// those rows while they are in the core's cache. BlasGemm itself stays on
// the calling thread (Note [OpenBLAS threads] in blas_gemm.cc), so the
// intra-op pool is the only source of parallelism and its size is what the
// session asked for. Every BlasGemm call packs the filter again, so blocks
// are not made smaller than kMinGemmBlockRows rows.
constexpr int64_t kGemmBlockBytes = int64_t{512} << 10;
constexpr int64_t kMinGemmBlockRows = 64;

template <typename T>
void LaunchConv2DGemm(OpKernelContext* ctx, const Conv2DDims& d,
                      const Tensor& input, const Tensor& filter, Tensor* output,
                      const ConvOutputBlockFn& on_block) {
  const int64_t positions = d.batch * d.out_rows * d.out_cols;
  const int64_t k = d.filter_rows * d.filter_cols * d.patch_depth;
  const int64_t group_out = d.out_depth / d.groups;
  const T* in = input.flat<T>().data();
  const T* f = filter.flat<T>().data();
  T* out = output->flat<T>().data();
  const int64_t input_stride = InputAsPatchMatrixStride(d);
  // Bytes a block row touches besides the filter: its patch row (when one
  // is built) and its output row.
  const int64_t row_bytes = static_cast<int64_t>(sizeof(T)) *
                            ((input_stride == 0 ? k : 0) + d.out_depth);
  const int64_t block_rows = std::max<int64_t>(
      kMinGemmBlockRows, kGemmBlockBytes / std::max<int64_t>(row_bytes, 1));
  Shard(
      ctx, positions, static_cast<double>(k) * static_cast<double>(d.out_depth),
      [&](int64_t begin, int64_t end) {
        std::vector<T> patches;
        if (input_stride == 0) {
          patches.resize(
              static_cast<size_t>(std::min(block_rows, end - begin) * k));
        }
        for (int64_t p0 = begin; p0 < end; p0 += block_rows) {
          const int64_t rows = std::min(block_rows, end - p0);
          for (int64_t g = 0; g < d.groups; ++g) {
            const T* a = nullptr;
            int64_t lda = k;
            if (input_stride != 0) {
              a = in + p0 * input_stride + g * d.patch_depth;
              lda = input_stride;
            } else {
              FillPatchRows(d, in, p0, 0, rows, g * d.patch_depth,
                            patches.data());
              a = patches.data();
            }
            BlasGemm(rows, group_out, k, a, lda, f + g * group_out, d.out_depth,
                     out + p0 * d.out_depth + g * group_out, d.out_depth);
          }
          if (on_block) on_block(p0, rows);
        }
      });
}

template <typename T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // OP_REQUIRES, not OP_REQUIRES_OK: bad attrs are the caller's error and
    // are not logged as warnings.
    const Status s = InitConv2DParams(ctx, &params_);
    OP_REQUIRES(ctx, s.ok(), s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DDims d;
    OP_REQUIRES_OK(ctx, ComputeConv2DDims(params_, input, filter, &d));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ShapeFromFormat(params_.format, d.batch, d.out_rows,
                                        d.out_cols, d.out_depth, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES(ctx, params_.format == TensorFormat::kNHWC,
                errors::Unimplemented(
                    "The Conv2D op currently only supports the NHWC tensor "
                    "format on the CPU. The op was given the format: ",
                    ToString(params_.format)));
    LaunchConv2D<T>(ctx, d, input, filter, output);
  }

 private:
  Conv2DParams params_;
};

}  // namespace

Status InitConv2DParams(OpKernelConstruction* ctx, Conv2DParams* params) {
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("dilations", &params->dilations));
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("strides", &params->strides));
  std::string padding;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  OPKIT_RETURN_IF_ERROR(
      shape_inference::GetPaddingFromString(padding, &params->padding));
  params->explicit_paddings.clear();
  if (ctx->HasAttr("explicit_paddings")) {
    std::vector<int64> explicit_paddings;
    OPKIT_RETURN_IF_ERROR(
        ctx->GetAttr("explicit_paddings", &explicit_paddings));
    params->explicit_paddings.assign(explicit_paddings.begin(),
                                     explicit_paddings.end());
  }
  std::string data_format;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &data_format));
  if (!FormatFromString(data_format, &params->format)) {
    return errors::InvalidArgument("Invalid data format: '", data_format,
                                   "'; use 'NHWC' or 'NCHW'");
  }
  if (params->dilations.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window dilations field must specify 4 dimensions, got ",
        params->dilations.size());
  }
  if (params->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window strides field must specify 4 dimensions, got ",
        params->strides.size());
  }
  const TensorFormat format = params->format;
  const int n = FormatDimIndex(format, 'N');
  const int c = FormatDimIndex(format, 'C');
  const int h = FormatDimIndex(format, 'H');
  const int w = FormatDimIndex(format, 'W');
  const std::vector<int32>& strides = params->strides;
  const std::vector<int32>& dilations = params->dilations;
  if (strides[n] != 1 || strides[c] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  if (strides[h] <= 0 || strides[w] <= 0) {
    return errors::InvalidArgument(
        "Row and column strides should be larger than 0.");
  }
  if (dilations[n] != 1 || dilations[c] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support dilations in the batch "
        "and depth dimensions.");
  }
  if (dilations[h] <= 0 || dilations[w] <= 0) {
    return errors::InvalidArgument("Dilated rates should be larger than 0.");
  }
  OPKIT_RETURN_IF_ERROR(
      CheckValidPadding(params->padding, params->explicit_paddings, format));
  for (int64_t p : params->explicit_paddings) {
    constexpr int64_t kLimit = std::numeric_limits<int32>::max();
    if (p > kLimit) {
      return errors::InvalidArgument("explicit padding ", p,
                                     " is too large; the limit is ", kLimit);
    }
  }
  return OkStatus();
}

Status ComputeConv2DDims(const Conv2DParams& params, const Tensor& input,
                         const Tensor& filter, Conv2DDims* d) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional: ",
                                   input.shape().DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument("filter must be 4-dimensional: ",
                                   filter.shape().DebugString());
  }
  for (int i = 0; i < 3; ++i) {
    if (filter.dim_size(i) > std::numeric_limits<int32>::max()) {
      return errors::InvalidArgument("filter too large: ",
                                     filter.shape().DebugString());
    }
  }
  const TensorFormat format = params.format;
  const int h = FormatDimIndex(format, 'H');
  const int w = FormatDimIndex(format, 'W');
  d->batch = input.dim_size(FormatDimIndex(format, 'N'));
  d->in_rows = input.dim_size(h);
  d->in_cols = input.dim_size(w);
  d->in_depth = input.dim_size(FormatDimIndex(format, 'C'));
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  d->patch_depth = filter.dim_size(2);
  d->out_depth = filter.dim_size(3);
  if (d->patch_depth <= 0) {
    return errors::InvalidArgument(
        "filter depth must be strictly positive, got ", d->patch_depth,
        " in filter shape ", filter.shape().DebugString());
  }
  if (d->in_depth % d->patch_depth != 0) {
    return errors::InvalidArgument(
        "input depth must be evenly divisible by filter depth: ", d->in_depth,
        " vs ", d->patch_depth);
  }
  // TensorFlow's fix for TFSA-2021-187: a filter with a zero dimension has
  // no window to slide, whatever the input.
  if (filter.NumElements() == 0) {
    return errors::InvalidArgument(
        "filter must not have zero elements (i.e. all dimensions must be "
        "non-zero), got filter shape ", filter.shape().DebugString());
  }
  d->groups = d->in_depth / d->patch_depth;
  if (d->groups > 0 && d->out_depth % d->groups != 0) {
    return errors::InvalidArgument(
        "output depth must be evenly divisible by number of groups: ",
        d->out_depth, " vs ", d->groups);
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
  return OkStatus();
}

namespace {

// LaunchConv2D for half, bfloat16 and int32, with a non-empty window and
// input depth: im2col in chunks, one Eigen contraction per chunk and group.
template <typename T>
void LaunchConv2DEigen(OpKernelContext* ctx, const Conv2DDims& d,
                       const Tensor& input, const Tensor& filter,
                       Tensor* output, const ConvOutputBlockFn& on_block) {
  using CT = ComputeType<T>;
  using Matrix =
      Eigen::TensorMap<Eigen::Tensor<CT, 2, Eigen::RowMajor, Eigen::DenseIndex>,
                       Eigen::Unaligned>;
  using ConstMatrix = Eigen::TensorMap<
      Eigen::Tensor<const CT, 2, Eigen::RowMajor, Eigen::DenseIndex>,
      Eigen::Unaligned>;
  const auto& device = ctx->eigen_device<Eigen::ThreadPoolDevice>();
  const int64_t positions = d.batch * d.out_rows * d.out_cols;
  const int64_t k = d.filter_rows * d.filter_cols * d.patch_depth;
  T* out = output->flat<T>().data();
  const int64_t group_out = d.out_depth / d.groups;
  const T* in = input.flat<T>().data();

  // The types of this path are converted on the way in and out.
  static_assert(!std::is_same_v<T, CT>);

  // The filter of each group as a contiguous [k, group_out] matrix in CT.
  std::vector<CT> filter_ct(static_cast<size_t>(k * d.out_depth));
  const T* f = filter.flat<T>().data();
  for (int64_t g = 0; g < d.groups; ++g) {
    CT* dst = filter_ct.data() + g * k * group_out;
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t o = 0; o < group_out; ++o) {
        dst[r * group_out + o] =
            static_cast<CT>(f[r * d.out_depth + g * group_out + o]);
      }
    }
  }
  const CT* filter_data = filter_ct.data();

  const int64_t chunk_rows =
      std::max<int64_t>(1, std::min(positions, kMaxPatchElements / k));
  std::vector<CT> patches(static_cast<size_t>(chunk_rows * k));
  // Results are converted to T and scattered into the group's columns.
  std::vector<CT> result_buf(static_cast<size_t>(chunk_rows * group_out));

  for (int64_t p0 = 0; p0 < positions; p0 += chunk_rows) {
    const int64_t rows = std::min(chunk_rows, positions - p0);
    for (int64_t g = 0; g < d.groups; ++g) {
      BuildPatches(ctx, d, in, p0, rows, g * d.patch_depth, patches.data());
      ConstMatrix patch_matrix(patches.data(), rows, k);
      ConstMatrix group_filter(filter_data + g * k * group_out, k, group_out);
      Matrix result(result_buf.data(), rows, group_out);
      result.device(device) =
          patch_matrix.contract(group_filter, ContractDims());
      for (int64_t r = 0; r < rows; ++r) {
        T* dst = out + (p0 + r) * d.out_depth + g * group_out;
        const CT* src = result_buf.data() + r * group_out;
        for (int64_t o = 0; o < group_out; ++o) dst[o] = static_cast<T>(src[o]);
      }
    }
    if (on_block) on_block(p0, rows);
  }
}

}  // namespace

template <typename T>
void LaunchConv2D(OpKernelContext* ctx, const Conv2DDims& d,
                  const Tensor& input, const Tensor& filter, Tensor* output,
                  const ConvOutputBlockFn& on_block) {
  const int64_t k = d.filter_rows * d.filter_cols * d.patch_depth;
  if (k == 0 || d.groups == 0) {
    // An empty window, or an input without channels: every output is an
    // empty sum.
    T* out = output->flat<T>().data();
    std::fill(out, out + output->NumElements(), T(0));
    if (on_block) on_block(0, d.batch * d.out_rows * d.out_cols);
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    LaunchConv2DGemm<T>(ctx, d, input, filter, output, on_block);
  } else {
    LaunchConv2DEigen<T>(ctx, d, input, filter, output, on_block);
  }
}

template void LaunchConv2D<half>(OpKernelContext*, const Conv2DDims&,
                                 const Tensor&, const Tensor&, Tensor*,
                                 const ConvOutputBlockFn&);
template void LaunchConv2D<bfloat16>(OpKernelContext*, const Conv2DDims&,
                                     const Tensor&, const Tensor&, Tensor*,
                                     const ConvOutputBlockFn&);
template void LaunchConv2D<float>(OpKernelContext*, const Conv2DDims&,
                                  const Tensor&, const Tensor&, Tensor*,
                                  const ConvOutputBlockFn&);
template void LaunchConv2D<double>(OpKernelContext*, const Conv2DDims&,
                                   const Tensor&, const Tensor&, Tensor*,
                                   const ConvOutputBlockFn&);
template void LaunchConv2D<int32>(OpKernelContext*, const Conv2DDims&,
                                  const Tensor&, const Tensor&, Tensor*,
                                  const ConvOutputBlockFn&);

namespace {

#define OPKIT_REGISTER_CONV2D(T)                                        \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      Conv2DOp<T>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_CONV2D)
TF_CALL_int32(OPKIT_REGISTER_CONV2D)
#undef OPKIT_REGISTER_CONV2D

}  // namespace
}  // namespace opkit

// ResizeBilinear and ResizeNearestNeighbor on CPU, NHWC, with TensorFlow's
// coordinate arithmetic (image_resizer_state.h) in float, so results match
// TensorFlow's bit for bit:
//
//   scale = align_corners && out > 1 ? (in - 1) / (out - 1) : in / out
//   bilinear source of output x:  half_pixel_centers ? (x + 0.5) * scale - 0.5
//                                                    : x * scale
//     lower = max(floor(src), 0), upper = min(ceil(src), in - 1),
//     lerp = src - floor(src);
//     top = tl + (tr - tl) * x_lerp, bottom likewise, out = top + (bottom - top) * y_lerp
//   nearest source of output x:   half_pixel_centers ? (x + 0.5) * scale : x * scale,
//     rounded half up with align_corners, floored otherwise, then clamped
//     to [0, in - 1].
//
// The source rows/columns and weights are computed once per output row and
// column; the inner loop runs over the channels of one pixel. Bilinear
// outputs float for every input type; nearest neighbour copies elements, so
// it is instantiated per element size, not per type.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

// The checked geometry of one resize.
struct ResizeGeometry {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t channels = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
  float height_scale = 0;
  float width_scale = 0;
};

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

// Validates images, size and the attrs (TensorFlow's messages) and
// allocates output 0 as [batch, out_height, out_width, channels].
Status PrepareResize(OpKernelContext* ctx, bool align_corners, bool half_pixel_centers,
                     ResizeGeometry* g, Tensor** out) {
  if (half_pixel_centers && align_corners) {
    return errors::InvalidArgument(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  const Tensor& images = ctx->input(0);
  const Tensor& size = ctx->input(1);
  if (images.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional",
                                   images.shape().DebugString());
  }
  g->batch = images.dim_size(0);
  g->in_height = images.dim_size(1);
  g->in_width = images.dim_size(2);
  g->channels = images.dim_size(3);
  if (g->channels <= 0) {
    return errors::InvalidArgument("image must have at least one channel");
  }
  if (g->in_height <= 0 || g->in_width <= 0) {
    return errors::InvalidArgument("input image must be of non-zero size");
  }
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32>::max();
  if (g->in_height > kMaxInt32 || g->in_width > kMaxInt32) {
    return errors::InvalidArgument("input sizes must be between 0 and max int32");
  }
  if (size.dims() != 1) {
    return errors::InvalidArgument("shape_t must be 1-dimensional",
                                   size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return errors::InvalidArgument("shape_t must have two elements",
                                   size.shape().DebugString());
  }
  g->out_height = size.flat<int32>()(0);
  g->out_width = size.flat<int32>()(1);
  if (g->out_height <= 0 || g->out_width <= 0) {
    return errors::InvalidArgument("output dimensions must be positive");
  }
  g->height_scale = ResizeScale(g->in_height, g->out_height, align_corners);
  g->width_scale = ResizeScale(g->in_width, g->out_width, align_corners);
  TensorShape out_shape;
  OPKIT_RETURN_IF_ERROR(TensorShape::BuildTensorShape(
      {g->batch, g->out_height, g->out_width, g->channels}, &out_shape));
  return ctx->allocate_output(0, out_shape, out);
}

// --- Bilinear ---------------------------------------------------------------

// Where output row/column i reads from: two source indices and the weight
// of the upper one.
struct Interpolation {
  int64_t lower;
  int64_t upper;
  float lerp;
};

std::vector<Interpolation> InterpolationWeights(int64_t out_size, int64_t in_size,
                                                float scale, bool half_pixel_centers) {
  std::vector<Interpolation> w(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float src = half_pixel_centers
                          ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                          : static_cast<float>(i) * scale;
    const float src_floor = std::floor(src);
    w[i].lower = std::max(static_cast<int64_t>(src_floor), int64_t{0});
    w[i].upper = std::min(static_cast<int64_t>(std::ceil(src)), in_size - 1);
    w[i].lerp = src - src_floor;
  }
  return w;
}

// One output pixel's `c` channels from the four source pixels around it.
// The pointers never alias (the output is a fresh float buffer), which lets
// the compiler vectorise the channel loop.
template <typename T>
inline void LerpPixel(const T* __restrict tl, const T* __restrict tr, const T* __restrict bl,
                      const T* __restrict br, float x_lerp, float y_lerp, int64_t c,
                      float* __restrict o) {
  for (int64_t ch = 0; ch < c; ++ch) {
    const float top = static_cast<float>(tl[ch]) +
                      (static_cast<float>(tr[ch]) - static_cast<float>(tl[ch])) * x_lerp;
    const float bottom = static_cast<float>(bl[ch]) +
                         (static_cast<float>(br[ch]) - static_cast<float>(bl[ch])) * x_lerp;
    o[ch] = top + (bottom - top) * y_lerp;
  }
}

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareResize(ctx, align_corners_, half_pixel_centers_, &g, &out));
    if (out->NumElements() == 0) return;
    const std::vector<Interpolation> ys =
        InterpolationWeights(g.out_height, g.in_height, g.height_scale, half_pixel_centers_);
    std::vector<Interpolation> xs =
        InterpolationWeights(g.out_width, g.in_width, g.width_scale, half_pixel_centers_);
    const int64_t c = g.channels;
    for (Interpolation& x : xs) {  // Element offsets within a row.
      x.lower *= c;
      x.upper *= c;
    }
    const T* in = static_cast<const T*>(ctx->input(0).data());
    float* dst = static_cast<float*>(out->data());
    const int64_t in_row = g.in_width * c;
    const int64_t out_row = g.out_width * c;
    Shard(ctx, g.batch * g.out_height, static_cast<double>(out_row) * 12,
          [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
              const int64_t b = r / g.out_height;
              const Interpolation& y = ys[r % g.out_height];
              const T* top = in + (b * g.in_height + y.lower) * in_row;
              const T* bottom = in + (b * g.in_height + y.upper) * in_row;
              float* o = dst + r * out_row;
              for (int64_t x = 0; x < g.out_width; ++x) {
                const Interpolation& xi = xs[x];
                LerpPixel(top + xi.lower, top + xi.upper, bottom + xi.lower,
                          bottom + xi.upper, xi.lerp, y.lerp, c, o + x * c);
              }
            }
          });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// --- Nearest neighbour --------------------------------------------------------

std::vector<int64_t> NearestIndices(int64_t out_size, int64_t in_size, float scale,
                                    bool align_corners, bool half_pixel_centers) {
  std::vector<int64_t> idx(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float src = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale
                                         : static_cast<float>(i) * scale;
    int64_t v = align_corners ? static_cast<int64_t>(std::round(src))
                              : static_cast<int64_t>(std::floor(src));
    v = std::min(v, in_size - 1);
    if (half_pixel_centers) v = std::max(v, int64_t{0});
    idx[i] = v;
  }
  return idx;
}

class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareResize(ctx, align_corners_, half_pixel_centers_, &g, &out));
    // float holds every integer below 2^24 exactly; beyond, source indices
    // would be wrong.
    OP_REQUIRES(ctx, g.in_height < (1 << 24) && g.in_width < (1 << 24),
                errors::InvalidArgument("nearest neighbor requires max height & width of 2^24"));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> ys = NearestIndices(g.out_height, g.in_height, g.height_scale,
                                                   align_corners_, half_pixel_centers_);
    std::vector<int64_t> xs = NearestIndices(g.out_width, g.in_width, g.width_scale,
                                             align_corners_, half_pixel_centers_);
    const int64_t c = g.channels;
    for (int64_t& x : xs) x *= c;
    const Tensor& images = ctx->input(0);
    const int64_t in_row = g.in_width * c;
    const int64_t out_row = g.out_width * c;
    internal::VisitElements(images.dtype(), [&](auto elements) {
      using E = decltype(elements);
      const char* in = static_cast<const char*>(images.data());
      char* dst = static_cast<char*>(out->data());
      Shard(ctx, g.batch * g.out_height, static_cast<double>(out_row) * E::kSize,
            [&](int64_t begin, int64_t end) {
              for (int64_t r = begin; r < end; ++r) {
                const int64_t b = r / g.out_height;
                const char* src = in + (b * g.in_height + ys[r % g.out_height]) * in_row * E::kSize;
                char* o = dst + r * out_row * E::kSize;
                for (int64_t x = 0; x < g.out_width; ++x) {
                  E::CopyRun(o + x * c * E::kSize, src + xs[x] * E::kSize, c);
                }
              }
            });
    });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

#define OPKIT_REGISTER_RESIZE(T)                                                      \
  REGISTER_KERNEL_BUILDER(                                                            \
      Name("ResizeBilinear").Device(DEVICE_CPU).TypeConstraint<T>("T").HostMemory("size"), \
      ResizeBilinearOp<T>);
TF_CALL_int8(OPKIT_REGISTER_RESIZE)
TF_CALL_uint8(OPKIT_REGISTER_RESIZE)
TF_CALL_int16(OPKIT_REGISTER_RESIZE)
TF_CALL_uint16(OPKIT_REGISTER_RESIZE)
TF_CALL_int32(OPKIT_REGISTER_RESIZE)
TF_CALL_int64(OPKIT_REGISTER_RESIZE)
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_RESIZE)
#undef OPKIT_REGISTER_RESIZE

REGISTER_KERNEL_BUILDER(Name("ResizeNearestNeighbor")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_INT8, DT_UINT8, DT_INT16, DT_UINT16,
                                                  DT_INT32, DT_INT64, DT_HALF, DT_FLOAT,
                                                  DT_DOUBLE, DT_BFLOAT16})
                            .HostMemory("size"),
                        ResizeNearestNeighborOp);

}  // namespace
}  // namespace opkit

// FusedBatchNormV3 on CPU, for x of type half, bfloat16 or float with float
// statistics, in every layout the op names (NHWC, NCHW, NDHWC, NCDHW).
//
// Inference (is_training=false):
//   y = (x - mean) / sqrt(variance + epsilon) * scale + offset
//   batch_mean, reserve_space_1 = mean; batch_variance, reserve_space_2 =
//   variance.
// Training (is_training=true) is implemented too: the statistics are those
// of the batch (summed in double), the variance used for y is the biased
// one; batch_variance is the unbiased (n / (n - 1)) one, and with an
// exponential_avg_factor f != 1 both batch outputs are running averages
// (1 - f) * input + f * batch. reserve_space_1/2 hold the batch mean and
// biased variance. An empty x gives NaN batch statistics, as TensorFlow.
// reserve_space_3 is a scalar 0 (TensorFlow's CPU kernel's placeholder).
//
// FusedBatchNormGradV3, its gradient, takes y_backprop and x (x's shape),
// scale and reserve_space_1/2 as the forward op left them (the mean and
// variance y was normalised with); reserve_space_3 is not read. With
// inv = 1 / sqrt(variance + epsilon), x_hat = (x - mean) * inv and sums over
// each channel's n elements:
//   offset_backprop = sum(dy), scale_backprop = sum(dy * x_hat);
//   x_backprop = scale * inv * (dy - sum(dy) / n - x_hat * sum(dy * x_hat) / n)
//     when training (the statistics depend on x),
//   x_backprop = scale * inv * dy otherwise.
// reserve_space_4 and reserve_space_5 are empty vectors, as TensorFlow's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/kernels/ops_util.h"

namespace opkit {
namespace {

// x seen as [outer, channels, inner]: inner is 1 for channels-last layouts.
struct BatchNormLayout {
  int rank;
  bool channels_last;
};

bool LayoutFromString(const std::string& s, BatchNormLayout* layout) {
  if (s == "NHWC") {
    *layout = {4, true};
  } else if (s == "NCHW") {
    *layout = {4, false};
  } else if (s == "NDHWC") {
    *layout = {5, true};
  } else if (s == "NCDHW") {
    *layout = {5, false};
  } else {
    return false;
  }
  return true;
}

template <typename T>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    if (ctx->HasAttr("exponential_avg_factor")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor",
                                       &exponential_avg_factor_));
    }
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    OP_REQUIRES(ctx, LayoutFromString(data_format, &layout_),
                errors::InvalidArgument(
                    "Invalid data format: '", data_format,
                    "'; use 'NHWC', 'NCHW', 'NDHWC' or 'NCDHW'"));
    data_format_ = data_format;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    const Tensor& est_mean = ctx->input(3);
    const Tensor& est_variance = ctx->input(4);
    OP_REQUIRES(ctx, x.dims() == 4 || x.dims() == 5,
                errors::InvalidArgument("input must be 4 or 5-dimensional",
                                        x.shape().DebugString()));
    OP_REQUIRES(ctx, x.dims() == layout_.rank,
                errors::InvalidArgument(
                    "input must be ", layout_.rank,
                    "-dimensional for data_format ", data_format_, ", got ",
                    x.shape().DebugString()));
    OP_REQUIRES(ctx, scale.dims() == 1,
                errors::InvalidArgument("scale must be 1-dimensional",
                                        scale.shape().DebugString()));
    OP_REQUIRES(ctx, offset.dims() == 1,
                errors::InvalidArgument("offset must be 1-dimensional",
                                        offset.shape().DebugString()));
    OP_REQUIRES(ctx, est_mean.dims() == 1,
                errors::InvalidArgument("estimated_mean must be 1-dimensional",
                                        est_mean.shape().DebugString()));
    OP_REQUIRES(ctx, est_variance.dims() == 1,
                errors::InvalidArgument(
                    "estimated_variance must be 1-dimensional",
                    est_variance.shape().DebugString()));
    const int channel_dim = layout_.channels_last ? x.dims() - 1 : 1;
    const int64_t channels = x.dim_size(channel_dim);
    OP_REQUIRES(ctx, scale.NumElements() == channels,
                errors::InvalidArgument(
                    "scale must have the same number of elements as the "
                    "channels of x, got ",
                    scale.NumElements(), " and ", channels));
    OP_REQUIRES(ctx, offset.NumElements() == channels,
                errors::InvalidArgument(
                    "offset must have the same number of elements as the "
                    "channels of x, got ",
                    offset.NumElements(), " and ", channels));
    const bool uses_running_stats =
        !is_training_ || exponential_avg_factor_ != 1.0f;
    if (uses_running_stats) {
      const char* prefix = is_training_ ? "When exponential_avg_factor != 1"
                                        : "When is_training=false";
      OP_REQUIRES(ctx, est_mean.NumElements() == channels,
                  errors::InvalidArgument(
                      prefix,
                      ", mean must have the same number of elements as the "
                      "channels of x, got ",
                      est_mean.NumElements(), " and ", channels));
      OP_REQUIRES(ctx, est_variance.NumElements() == channels,
                  errors::InvalidArgument(
                      prefix,
                      ", variance must have the same number of elements as "
                      "the channels of x, got ",
                      est_variance.NumElements(), " and ", channels));
    }

    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    Tensor* outs[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1 + i, TensorShape({channels}),
                                               &outs[i]));
    }
    Tensor* reserve_3 = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({}), &reserve_3));
    reserve_3->scalar<float>()() = 0.0f;

    int64_t inner = 1;
    for (int d = channel_dim + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
    // Zero channels means no elements, and nothing to divide.
    const int64_t outer =
        channels == 0 ? 0 : x.NumElements() / (channels * inner);

    // The mean and variance y is normalised with.
    std::vector<float> mean(static_cast<size_t>(channels));
    std::vector<float> variance(static_cast<size_t>(channels));
    if (is_training_) {
      BatchStatistics(x, outer, channels, inner, &mean, &variance);
      WriteTrainingStatistics(x.NumElements() / std::max<int64_t>(channels, 1),
                              est_mean, est_variance, mean, variance, outs);
    } else {
      auto m = est_mean.flat<float>();
      auto v = est_variance.flat<float>();
      for (int64_t c = 0; c < channels; ++c) {
        mean[c] = m(c);
        variance[c] = v(c);
        outs[0]->flat<float>()(c) = m(c);
        outs[1]->flat<float>()(c) = v(c);
        outs[2]->flat<float>()(c) = m(c);
        outs[3]->flat<float>()(c) = v(c);
      }
    }
    if (x.NumElements() == 0) return;

    // y = x * a + b per channel.
    std::vector<float> a(static_cast<size_t>(channels));
    std::vector<float> b(static_cast<size_t>(channels));
    auto s = scale.flat<float>();
    auto o = offset.flat<float>();
    for (int64_t c = 0; c < channels; ++c) {
      a[c] = s(c) / std::sqrt(variance[c] + epsilon_);
      b[c] = o(c) - mean[c] * a[c];
    }
    const T* xd = x.flat<T>().data();
    T* yd = y->flat<T>().data();
    const float* ad = a.data();
    const float* bd = b.data();
    auto run = [=](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (i * channels + c) * inner;
          for (int64_t j = 0; j < inner; ++j) {
            yd[base + j] =
                static_cast<T>(static_cast<float>(xd[base + j]) * ad[c] + bd[c]);
          }
        }
      }
    };
    Shard(ctx, outer, static_cast<double>(channels * inner) * 2, run);
  }

 private:
  // The per-channel mean and biased variance of x (two passes, in double);
  // NaN for an empty batch.
  static void BatchStatistics(const Tensor& x, int64_t outer, int64_t channels,
                              int64_t inner, std::vector<float>* mean,
                              std::vector<float>* variance) {
    const int64_t count = outer * inner;
    if (count == 0) {
      std::fill(mean->begin(), mean->end(),
                std::numeric_limits<float>::quiet_NaN());
      std::fill(variance->begin(), variance->end(),
                std::numeric_limits<float>::quiet_NaN());
      return;
    }
    const T* xd = x.flat<T>().data();
    std::vector<double> sum(static_cast<size_t>(channels), 0.0);
    for (int64_t i = 0; i < outer; ++i) {
      for (int64_t c = 0; c < channels; ++c) {
        const T* v = xd + (i * channels + c) * inner;
        for (int64_t j = 0; j < inner; ++j) sum[c] += static_cast<float>(v[j]);
      }
    }
    std::vector<double> m(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) m[c] = sum[c] / count;
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int64_t i = 0; i < outer; ++i) {
      for (int64_t c = 0; c < channels; ++c) {
        const T* v = xd + (i * channels + c) * inner;
        for (int64_t j = 0; j < inner; ++j) {
          const double dev = static_cast<float>(v[j]) - m[c];
          sum[c] += dev * dev;
        }
      }
    }
    for (int64_t c = 0; c < channels; ++c) {
      (*mean)[c] = static_cast<float>(m[c]);
      (*variance)[c] = static_cast<float>(sum[c] / count);
    }
  }

  // outs: batch_mean, batch_variance, reserve_space_1, reserve_space_2.
  void WriteTrainingStatistics(int64_t count, const Tensor& est_mean,
                               const Tensor& est_variance,
                               const std::vector<float>& mean,
                               const std::vector<float>& variance,
                               Tensor* const outs[4]) const {
    const int64_t channels = static_cast<int64_t>(mean.size());
    const double correction =
        count > 1 ? static_cast<double>(count) / (count - 1) : 1.0;
    const float f = exponential_avg_factor_;
    for (int64_t c = 0; c < channels; ++c) {
      const float unbiased = static_cast<float>(variance[c] * correction);
      float batch_mean = mean[c];
      float batch_variance = unbiased;
      if (f != 1.0f) {
        batch_mean = (1.0f - f) * est_mean.flat<float>()(c) + f * mean[c];
        batch_variance =
            (1.0f - f) * est_variance.flat<float>()(c) + f * unbiased;
      }
      outs[0]->flat<float>()(c) = batch_mean;
      outs[1]->flat<float>()(c) = batch_variance;
      outs[2]->flat<float>()(c) = mean[c];
      outs[3]->flat<float>()(c) = variance[c];
    }
  }

  float epsilon_ = 0.0001f;
  float exponential_avg_factor_ = 1.0f;
  bool is_training_ = true;
  BatchNormLayout layout_ = {4, true};
  std::string data_format_;
};

template <typename T>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    OP_REQUIRES(ctx, LayoutFromString(data_format, &layout_),
                errors::InvalidArgument(
                    "Invalid data format: '", data_format,
                    "'; use 'NHWC', 'NCHW', 'NDHWC' or 'NCDHW'"));
    data_format_ = data_format;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& scale = ctx->input(2);
    const Tensor& saved_mean = ctx->input(3);
    const Tensor& saved_variance = ctx->input(4);
    OP_REQUIRES(ctx, x.dims() == layout_.rank,
                errors::InvalidArgument(
                    "x (input 1) must be ", layout_.rank,
                    "-dimensional for data_format ", data_format_,
                    ", got shape ", x.shape().DebugString()));
    OP_REQUIRES(ctx, dy.shape() == x.shape(),
                errors::InvalidArgument(
                    "y_backprop (input 0) must have the shape of x (input "
                    "1), got ",
                    dy.shape().DebugString(), " and ",
                    x.shape().DebugString()));
    const int channel_dim = layout_.channels_last ? x.dims() - 1 : 1;
    const int64_t channels = x.dim_size(channel_dim);
    const Tensor* vectors[3] = {&scale, &saved_mean, &saved_variance};
    const char* names[3] = {"scale (input 2)", "reserve_space_1 (input 3)",
                            "reserve_space_2 (input 4)"};
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx,
                  vectors[i]->dims() == 1 &&
                      vectors[i]->dim_size(0) == channels,
                  errors::InvalidArgument(
                      names[i], " must be a vector of the ", channels,
                      " channels of x (", data_format_, " shape ",
                      x.shape().DebugString(), "), got shape ",
                      vectors[i]->shape().DebugString()));
    }

    Tensor* dx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    Tensor* dscale = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({channels}), &dscale));
    Tensor* doffset = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(2, TensorShape({channels}), &doffset));
    for (int i = 3; i < 5; ++i) {
      Tensor* placeholder = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i, TensorShape({0}), &placeholder));
    }
    auto ds = dscale->flat<float>();
    auto doff = doffset->flat<float>();
    if (x.NumElements() == 0) {
      for (int64_t c = 0; c < channels; ++c) ds(c) = doff(c) = 0.0f;
      return;
    }

    int64_t inner = 1;
    for (int d = channel_dim + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
    const int64_t outer = x.NumElements() / (channels * inner);
    const int64_t count = outer * inner;
    const T* xd = x.flat<T>().data();
    const T* dyd = dy.flat<T>().data();
    auto m = saved_mean.flat<float>();
    auto v = saved_variance.flat<float>();
    auto s = scale.flat<float>();

    // Per channel: inv, sum(dy) and sum(dy * x_hat), summed in double.
    std::vector<float> mean(static_cast<size_t>(channels));
    std::vector<float> inv(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      mean[c] = m(c);
      inv[c] = 1.0f / std::sqrt(v(c) + epsilon_);
    }
    std::vector<double> sum_dy(static_cast<size_t>(channels), 0.0);
    std::vector<double> sum_dy_xhat(static_cast<size_t>(channels), 0.0);
    for (int64_t i = 0; i < outer; ++i) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t base = (i * channels + c) * inner;
        for (int64_t j = 0; j < inner; ++j) {
          const double g = static_cast<float>(dyd[base + j]);
          const double xhat =
              (static_cast<float>(xd[base + j]) - mean[c]) *
              static_cast<double>(inv[c]);
          sum_dy[c] += g;
          sum_dy_xhat[c] += g * xhat;
        }
      }
    }
    // x_backprop = a * dy + b * x_hat + k per channel; for inference only
    // a is non-zero.
    std::vector<float> a(static_cast<size_t>(channels));
    std::vector<float> b(static_cast<size_t>(channels));
    std::vector<float> k(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      ds(c) = static_cast<float>(sum_dy_xhat[c]);
      doff(c) = static_cast<float>(sum_dy[c]);
      a[c] = s(c) * inv[c];
      b[c] = is_training_
                 ? static_cast<float>(-a[c] * sum_dy_xhat[c] / count)
                 : 0.0f;
      k[c] = is_training_ ? static_cast<float>(-a[c] * sum_dy[c] / count)
                          : 0.0f;
    }
    T* dxd = dx->flat<T>().data();
    const float* ad = a.data();
    const float* bd = b.data();
    const float* kd = k.data();
    const float* md = mean.data();
    const float* id = inv.data();
    auto run = [=](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (i * channels + c) * inner;
          for (int64_t j = 0; j < inner; ++j) {
            const float xhat =
                (static_cast<float>(xd[base + j]) - md[c]) * id[c];
            dxd[base + j] = static_cast<T>(
                ad[c] * static_cast<float>(dyd[base + j]) + bd[c] * xhat +
                kd[c]);
          }
        }
      }
    };
    Shard(ctx, outer, static_cast<double>(channels * inner) * 5, run);
  }

 private:
  float epsilon_ = 0.0001f;
  bool is_training_ = true;
  BatchNormLayout layout_ = {4, true};
  std::string data_format_;
};

#define OPKIT_REGISTER_FUSED_BATCH_NORM(T)                       \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")               \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("T")            \
                              .TypeConstraint<float>("U"),       \
                          FusedBatchNormOp<T>);          \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")           \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("T")            \
                              .TypeConstraint<float>("U"),       \
                          FusedBatchNormGradOp<T>);
OPKIT_REGISTER_FUSED_BATCH_NORM(float)
OPKIT_REGISTER_FUSED_BATCH_NORM(::opkit::half)
OPKIT_REGISTER_FUSED_BATCH_NORM(::opkit::bfloat16)
#undef OPKIT_REGISTER_FUSED_BATCH_NORM

}  // namespace
}  // namespace opkit

// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits on
// CPU, for half, bfloat16, float and double features (reduced in float,
// double for double), as TensorFlow's CPU kernels.
//
// Each row of the features [batch, classes] is a set of logits; with p its
// softmax, the loss of the row is -sum_c labels[c] * log(p[c]) and the
// backprop (the loss's gradient with respect to the logits) is p - labels.
// The dense op takes labels as a distribution per row, and numpy-broadcasts
// features and labels to a matrix when their shapes differ. The sparse op
// takes one class index per row (int32 or int64); an index outside
// [0, classes) is an InvalidArgument naming it and its row, checked before
// anything is computed.
//
// Work is split over rows on the device's pool.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/bcast.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

template <typename T>
using AccumType = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The row's maximum and log(sum(exp(x - max))); NaN wins the maximum so that
// a NaN logit makes its row NaN.
template <typename T, typename Logit>
void RowLogSumExp(int64_t classes, const Logit& logit, AccumType<T>* max,
                  AccumType<T>* log_sum) {
  using Acc = AccumType<T>;
  Acc m = static_cast<Acc>(logit(0));
  for (int64_t c = 1; c < classes; ++c) {
    const Acc v = static_cast<Acc>(logit(c));
    if (v > m || std::isnan(v)) m = v;
  }
  Acc sum = 0;
  for (int64_t c = 0; c < classes; ++c) {
    sum += std::exp(static_cast<Acc>(logit(c)) - m);
  }
  *max = m;
  *log_sum = std::log(sum);
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  explicit SoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    BCast bcast(features.shape(), labels.shape());
    OP_REQUIRES(ctx, bcast.valid(),
                errors::InvalidArgument(
                    "features (input 0) and labels (input 1) must have the "
                    "same shape or broadcast to one, got ",
                    features.shape().DebugString(), " and ",
                    labels.shape().DebugString()));
    const TensorShape& shape = bcast.output_shape();
    OP_REQUIRES(ctx, bcast.rank() == 2,
                errors::InvalidArgument(
                    "features (input 0) and labels (input 1) must be "
                    "matrices [batch, classes] or broadcast to one, got ",
                    features.shape().DebugString(), " and ",
                    labels.shape().DebugString(), " (broadcast shape ",
                    shape.DebugString(), ")"));
    const int64_t batch = shape.dim_size(0);
    const int64_t classes = shape.dim_size(1);
    Tensor* loss = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &backprop));
    if (batch == 0) return;
    T* loss_data = loss->flat<T>().data();
    if (classes == 0) {
      for (int64_t b = 0; b < batch; ++b) loss_data[b] = T(0);
      return;
    }
    // Strides of each input over (row, class): 0 along a broadcast dim.
    const int64_t f_cols = bcast.x_reshape()[1];
    const int64_t l_cols = bcast.y_reshape()[1];
    const int64_t f_row = bcast.x_reshape()[0] == 1 ? 0 : f_cols;
    const int64_t f_col = f_cols == 1 ? 0 : 1;
    const int64_t l_row = bcast.y_reshape()[0] == 1 ? 0 : l_cols;
    const int64_t l_col = l_cols == 1 ? 0 : 1;
    const T* f = features.flat<T>().data();
    const T* l = labels.flat<T>().data();
    T* bp = backprop->flat<T>().data();
    using Acc = AccumType<T>;
    auto run = [=](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        const T* fb = f + b * f_row;
        const T* lb = l + b * l_row;
        auto logit = [fb, f_col](int64_t c) { return fb[c * f_col]; };
        Acc max, log_sum;
        RowLogSumExp<T>(classes, logit, &max, &log_sum);
        Acc row_loss = 0;
        T* bpb = bp + b * classes;
        for (int64_t c = 0; c < classes; ++c) {
          const Acc shifted = static_cast<Acc>(logit(c)) - max;
          const Acc label = static_cast<Acc>(lb[c * l_col]);
          row_loss += label * (log_sum - shifted);
          bpb[c] = static_cast<T>(std::exp(shifted - log_sum) - label);
        }
        loss_data[b] = static_cast<T>(row_loss);
      }
    };
    // About 30 cycles a class (two exps, a log share, a few adds).
    Shard(ctx, batch, static_cast<double>(classes) * 30, run);
  }
};

template <typename T, typename Index>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  explicit SparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(features.shape()),
                errors::InvalidArgument(
                    "features (input 0) must be a matrix [batch, classes], "
                    "got shape ",
                    features.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(labels.shape()),
                errors::InvalidArgument(
                    "labels (input 1) must be a vector [batch], got shape ",
                    labels.shape().DebugString()));
    const int64_t batch = features.dim_size(0);
    const int64_t classes = features.dim_size(1);
    OP_REQUIRES(ctx, labels.dim_size(0) == batch,
                errors::InvalidArgument(
                    "labels (input 1) must have one entry per row of features "
                    "(input 0): got ",
                    labels.dim_size(0), " labels for features of shape ",
                    features.shape().DebugString()));
    OP_REQUIRES(ctx, batch == 0 || classes > 0,
                errors::InvalidArgument(
                    "features (input 0) must have at least one class, got "
                    "shape ",
                    features.shape().DebugString()));
    const Index* label = labels.flat<Index>().data();
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(ctx, label[b] >= 0 && label[b] < classes,
                  errors::InvalidArgument(
                      "labels (input 1) holds ", label[b], " at position ", b,
                      ", outside the valid class range [0, ", classes,
                      "); each label must index a column of features"));
    }
    Tensor* loss = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, features.shape(), &backprop));
    if (batch == 0) return;
    const T* f = features.flat<T>().data();
    T* loss_data = loss->flat<T>().data();
    T* bp = backprop->flat<T>().data();
    using Acc = AccumType<T>;
    auto run = [=](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        const T* fb = f + b * classes;
        auto logit = [fb](int64_t c) { return fb[c]; };
        Acc max, log_sum;
        RowLogSumExp<T>(classes, logit, &max, &log_sum);
        const int64_t target = static_cast<int64_t>(label[b]);
        T* bpb = bp + b * classes;
        for (int64_t c = 0; c < classes; ++c) {
          const Acc shifted = static_cast<Acc>(fb[c]) - max;
          const Acc p = std::exp(shifted - log_sum);
          bpb[c] = static_cast<T>(c == target ? p - Acc(1) : p);
        }
        loss_data[b] = static_cast<T>(
            log_sum - (static_cast<Acc>(fb[target]) - max));
      }
    };
    Shard(ctx, batch, static_cast<double>(classes) * 25, run);
  }
};

#define OPKIT_REGISTER_XENT(T)                                          \
  REGISTER_KERNEL_BUILDER(Name("SoftmaxCrossEntropyWithLogits")         \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("T"),                  \
                          SoftmaxXentOp<T>);                            \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits")   \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint<int32>("Tlabels"),        \
                          SparseSoftmaxXentOp<T, int32>);               \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits")   \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint<int64>("Tlabels"),        \
                          SparseSoftmaxXentOp<T, int64>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_XENT)
#undef OPKIT_REGISTER_XENT

}  // namespace
}  // namespace opkit

// The work that TensorFlow's fused ops (_FusedConv2D, _FusedMatMul,
// _FusedDepthwiseConv2dNative) do after their convolution or product: add a
// bias or apply an inference batch norm per output channel, then an
// activation. Applied to a block of rows of a [rows, channels] output right
// after the block is computed, while it is still in cache.
//
//   FusedOpSpec spec;
//   OP_REQUIRES_OK(construction,
//                  ParseFusedOps(construction, "_FusedConv2D",
//                                /*allow_batch_norm=*/true, &spec));
//   ...
//   FusedEpilogue<float> epilogue;
//   OP_REQUIRES_OK(ctx, FusedEpilogue<float>::Create(spec, ctx, /*first_arg=*/2,
//                                                    channels, &epilogue));
//   epilogue.Apply(out + first_row * channels, num_rows, channels);
#ifndef OPKIT_KERNELS_FUSED_EPILOGUE_H_
#define OPKIT_KERNELS_FUSED_EPILOGUE_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/status.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/tensor/tensor.h"

namespace opkit {

// The activation at the end of a fused op.
enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kLeakyRelu };

// What a fused op's `fused_ops`, `num_args`, `epsilon` and `leakyrelu_alpha`
// attrs ask for. The accepted `fused_ops` lists are TensorFlow's for its CPU
// kernels: ["BiasAdd"] or ["FusedBatchNorm"] (the latter only where
// allow_batch_norm), optionally followed by one of "Relu", "Relu6", "Elu",
// "LeakyRelu".
struct FusedOpSpec {
  // Batch norm (scale, offset, mean, variance args) instead of a bias (one
  // arg).
  bool batch_norm = false;
  FusedActivation activation = FusedActivation::kNone;
  float epsilon = 0.0001f;
  float leakyrelu_alpha = 0.2f;
  // How many `args` inputs the op has: 1 for a bias, 4 for a batch norm.
  int num_args = 0;
};

// Reads the fused attrs of the kernel being built into *spec. Unimplemented
// ("Fusion is not implemented: [...]", as TensorFlow) for a `fused_ops`
// list that is not one of the accepted ones; InvalidArgument when
// `num_args` does not match what the list needs, or epsilon is negative.
inline Status ParseFusedOps(OpKernelConstruction* ctx, std::string_view op,
                            bool allow_batch_norm, FusedOpSpec* spec) {
  std::vector<std::string> fused_ops;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("fused_ops", &fused_ops));
  int num_args = 0;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("epsilon", &spec->epsilon));
  if (ctx->HasAttr("leakyrelu_alpha")) {
    OPKIT_RETURN_IF_ERROR(
        ctx->GetAttr("leakyrelu_alpha", &spec->leakyrelu_alpha));
  }
  std::string joined;
  for (size_t i = 0; i < fused_ops.size(); ++i) {
    if (i > 0) joined += ",";
    joined += fused_ops[i];
  }
  const Status unsupported = errors::Unimplemented(
      "Fusion is not implemented: [", joined, "] for ", op,
      "; supported are [BiasAdd]",
      allow_batch_norm ? ", [FusedBatchNorm]" : "",
      " alone or followed by one of Relu, Relu6, Elu, LeakyRelu");
  if (fused_ops.empty() || fused_ops.size() > 2) return unsupported;
  if (fused_ops[0] == "BiasAdd") {
    spec->batch_norm = false;
    spec->num_args = 1;
  } else if (fused_ops[0] == "FusedBatchNorm" && allow_batch_norm) {
    spec->batch_norm = true;
    spec->num_args = 4;
  } else {
    return unsupported;
  }
  spec->activation = FusedActivation::kNone;
  if (fused_ops.size() == 2) {
    const std::string& a = fused_ops[1];
    if (a == "Relu") {
      spec->activation = FusedActivation::kRelu;
    } else if (a == "Relu6") {
      spec->activation = FusedActivation::kRelu6;
    } else if (a == "Elu") {
      spec->activation = FusedActivation::kElu;
    } else if (a == "LeakyRelu") {
      spec->activation = FusedActivation::kLeakyRelu;
    } else {
      return unsupported;
    }
  }
  if (num_args != spec->num_args) {
    return errors::InvalidArgument(
        op, " with fused_ops [", joined, "] takes ", spec->num_args,
        spec->batch_norm ? " extra arguments (scale, offset, mean, variance)"
                         : " extra argument (the bias)",
        ", but num_args is ", num_args);
  }
  if (spec->batch_norm && !(spec->epsilon >= 0.0f)) {
    return errors::InvalidArgument("epsilon must not be negative, got ",
                                   spec->epsilon);
  }
  return OkStatus();
}

// A fused op's epilogue for one call: per channel c, y = act(x * scale[c] +
// shift[c]) (scale is 1 for a bias add, and then not stored). Arithmetic is
// in double for double and in float for every other T (half and bfloat16
// included).
template <typename T>
class FusedEpilogue {
 public:
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

  // Reads the args of `spec` from the inputs of `ctx`, starting at input
  // `first_arg`: each must be a vector of `channels` values.
  // InvalidArgument naming the arg otherwise.
  static Status Create(const FusedOpSpec& spec, OpKernelContext* ctx,
                       int first_arg, int64_t channels, FusedEpilogue* out) {
    static const char* const kBnArgs[] = {"scale", "offset", "mean",
                                          "variance"};
    if (ctx->num_inputs() < first_arg + spec.num_args) {
      return errors::InvalidArgument("expected ", spec.num_args,
                                     " extra arguments, got ",
                                     ctx->num_inputs() - first_arg);
    }
    for (int i = 0; i < spec.num_args; ++i) {
      const Tensor& arg = ctx->input(first_arg + i);
      const char* name = spec.batch_norm ? kBnArgs[i] : "bias";
      if (arg.dims() != 1) {
        return errors::InvalidArgument(name, " must be 1-dimensional, got ",
                                       arg.shape().DebugString());
      }
      if (arg.dim_size(0) != channels) {
        return errors::InvalidArgument(
            name, " must have as many elements as the output has channels (",
            channels, "), got ", arg.shape().DebugString());
      }
    }
    out->activation_ = spec.activation;
    out->alpha_ = static_cast<Acc>(spec.leakyrelu_alpha);
    out->scale_.clear();
    out->shift_.assign(static_cast<size_t>(channels), Acc(0));
    if (!spec.batch_norm) {
      const T* bias = ctx->input(first_arg).flat<T>().data();
      for (int64_t c = 0; c < channels; ++c) {
        out->shift_[c] = static_cast<Acc>(bias[c]);
      }
      return OkStatus();
    }
    const T* scale = ctx->input(first_arg).flat<T>().data();
    const T* offset = ctx->input(first_arg + 1).flat<T>().data();
    const T* mean = ctx->input(first_arg + 2).flat<T>().data();
    const T* variance = ctx->input(first_arg + 3).flat<T>().data();
    out->scale_.resize(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      // (x - mean) * scale / sqrt(variance + epsilon) + offset, folded into
      // one multiply and one add per element.
      const Acc s = static_cast<Acc>(scale[c]) /
                    std::sqrt(static_cast<Acc>(variance[c]) +
                              static_cast<Acc>(spec.epsilon));
      out->scale_[c] = s;
      out->shift_[c] = static_cast<Acc>(offset[c]) - static_cast<Acc>(mean[c]) * s;
    }
    return OkStatus();
  }

  // Applies the epilogue in place to `rows` rows of `channels` values each.
  void Apply(T* data, int64_t rows, int64_t channels) const {
    switch (activation_) {
      case FusedActivation::kNone:
        return Run(data, rows, channels, [](Acc x) { return x; });
      case FusedActivation::kRelu:
        // NaN stays NaN, as in Relu.
        return Run(data, rows, channels,
                   [](Acc x) { return x < Acc(0) ? Acc(0) : x; });
      case FusedActivation::kRelu6:
        return Run(data, rows, channels, [](Acc x) {
          return x < Acc(0) ? Acc(0) : (x > Acc(6) ? Acc(6) : x);
        });
      case FusedActivation::kElu:
        return Run(data, rows, channels,
                   [](Acc x) { return x >= Acc(0) ? x : std::expm1(x); });
      case FusedActivation::kLeakyRelu: {
        const Acc alpha = alpha_;
        return Run(data, rows, channels,
                   [alpha](Acc x) { return x > Acc(0) ? x : x * alpha; });
      }
    }
  }

 private:
  template <typename Act>
  void Run(T* data, int64_t rows, int64_t channels, Act act) const {
    const Acc* shift = shift_.data();
    if (scale_.empty()) {
      for (int64_t r = 0; r < rows; ++r) {
        T* row = data + r * channels;
        for (int64_t c = 0; c < channels; ++c) {
          row[c] = static_cast<T>(act(static_cast<Acc>(row[c]) + shift[c]));
        }
      }
      return;
    }
    const Acc* scale = scale_.data();
    for (int64_t r = 0; r < rows; ++r) {
      T* row = data + r * channels;
      for (int64_t c = 0; c < channels; ++c) {
        row[c] = static_cast<T>(
            act(static_cast<Acc>(row[c]) * scale[c] + shift[c]));
      }
    }
  }

  FusedActivation activation_ = FusedActivation::kNone;
  Acc alpha_ = Acc(0);
  std::vector<Acc> scale_;
  std::vector<Acc> shift_;
};

}  // namespace opkit

#endif  // OPKIT_KERNELS_FUSED_EPILOGUE_H_

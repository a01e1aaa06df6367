// The work that TensorFlow's fused ops (_FusedConv2D, _FusedMatMul,
// _FusedDepthwiseConv2dNative) do after their convolution or product: add a
// bias or apply an inference batch norm per output channel, optionally add
// a tensor of the output's shape (a residual), then an activation. Applied to a block of rows of a [rows, channels] output right
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
//   OP_REQUIRES_OK(ctx, epilogue.BindOutput(*output));  // where allow_add
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
// "LeakyRelu"; and, where allow_add, TensorFlow's oneDNN fusions
// ["BiasAdd", "Add"] with the same optional activation (the second arg is
// added element-wise after the bias).
struct FusedOpSpec {
  // Batch norm (scale, offset, mean, variance args) instead of a bias (one
  // arg).
  bool batch_norm = false;
  // A bias, then the second arg added element-wise (["BiasAdd", "Add"]).
  bool add = false;
  FusedActivation activation = FusedActivation::kNone;
  float epsilon = 0.0001f;
  float leakyrelu_alpha = 0.2f;
  // How many `args` inputs the op has: 1 for a bias, 2 for a bias and an
  // addend, 4 for a batch norm.
  int num_args = 0;
};

// Reads the fused attrs of the kernel being built into *spec. Unimplemented
// ("Fusion is not implemented: [...]", as TensorFlow) for a `fused_ops`
// list that is not one of the accepted ones; InvalidArgument when
// `num_args` does not match what the list needs, or epsilon is negative.
inline Status ParseFusedOps(OpKernelConstruction* ctx, std::string_view op,
                            bool allow_batch_norm, FusedOpSpec* spec,
                            bool allow_add = false) {
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
      allow_add ? ", [BiasAdd,Add]" : "",
      " alone or followed by one of Relu, Relu6, Elu, LeakyRelu");
  if (fused_ops.empty() || fused_ops.size() > 3) return unsupported;
  size_t next = 1;  // where the activation would be
  spec->add = false;
  if (fused_ops[0] == "BiasAdd") {
    spec->batch_norm = false;
    spec->num_args = 1;
    if (fused_ops.size() > 1 && fused_ops[1] == "Add") {
      if (!allow_add) return unsupported;
      spec->add = true;
      spec->num_args = 2;
      next = 2;
    }
  } else if (fused_ops[0] == "FusedBatchNorm" && allow_batch_norm) {
    spec->batch_norm = true;
    spec->num_args = 4;
  } else {
    return unsupported;
  }
  spec->activation = FusedActivation::kNone;
  if (fused_ops.size() > next + 1) return unsupported;
  if (fused_ops.size() == next + 1) {
    const std::string& a = fused_ops[next];
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
        : spec->add      ? " extra arguments (the bias, then the tensor to add)"
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
    // The addend (spec.add) is checked against the output in BindOutput.
    const int per_channel_args = spec.add ? 1 : spec.num_args;
    for (int i = 0; i < per_channel_args; ++i) {
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
    out->addend_arg_ = spec.add ? &ctx->input(first_arg + 1) : nullptr;
    out->addend_ = nullptr;
    out->out_base_ = nullptr;
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

  // With an addend (["BiasAdd", "Add"]): checks that it has the shape of
  // `output`, the tensor every Apply writes into; InvalidArgument otherwise.
  // Without one, nothing to do.
  Status BindOutput(const Tensor& output) {
    if (addend_arg_ == nullptr) return OkStatus();
    if (addend_arg_->dtype() != output.dtype() ||
        addend_arg_->shape() != output.shape()) {
      return errors::InvalidArgument(
          "the tensor to add (fused_ops [BiasAdd,Add]) must have the output's "
          "type and shape ", DataTypeString(output.dtype()), " ",
          output.shape().DebugString(), ", got ",
          DataTypeString(addend_arg_->dtype()), " ",
          addend_arg_->shape().DebugString());
    }
    addend_ = addend_arg_->flat<T>().data();
    out_base_ = output.flat<T>().data();
    return OkStatus();
  }

  // Applies the epilogue in place to `rows` rows of `channels` values each,
  // starting at `data` (inside the output given to BindOutput when there is
  // an addend).
  void Apply(T* data, int64_t rows, int64_t channels) const {
    const T* add =
        addend_ == nullptr ? nullptr : addend_ + (data - out_base_);
    switch (activation_) {
      case FusedActivation::kNone:
        return Run(data, add, rows, channels, [](Acc x) { return x; });
      case FusedActivation::kRelu:
        // NaN stays NaN, as in Relu.
        return Run(data, add, rows, channels,
                   [](Acc x) { return x < Acc(0) ? Acc(0) : x; });
      case FusedActivation::kRelu6:
        return Run(data, add, rows, channels, [](Acc x) {
          return x < Acc(0) ? Acc(0) : (x > Acc(6) ? Acc(6) : x);
        });
      case FusedActivation::kElu:
        return Run(data, add, rows, channels,
                   [](Acc x) { return x >= Acc(0) ? x : std::expm1(x); });
      case FusedActivation::kLeakyRelu: {
        const Acc alpha = alpha_;
        return Run(data, add, rows, channels,
                   [alpha](Acc x) { return x > Acc(0) ? x : x * alpha; });
      }
    }
  }

 private:
  // `add`, when not null, holds the addend's values for the same rows: it
  // goes in after the bias and before the activation.
  template <typename Act>
  void Run(T* data, const T* add, int64_t rows, int64_t channels,
           Act act) const {
    const Acc* shift = shift_.data();
    if (add != nullptr) {
      for (int64_t r = 0; r < rows; ++r) {
        T* row = data + r * channels;
        const T* add_row = add + r * channels;
        for (int64_t c = 0; c < channels; ++c) {
          row[c] = static_cast<T>(act(static_cast<Acc>(row[c]) + shift[c] +
                                      static_cast<Acc>(add_row[c])));
        }
      }
      return;
    }
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

  // The addend arg (["BiasAdd", "Add"]), and once BindOutput has checked
  // it, its values and the output they line up with.
  const Tensor* addend_arg_ = nullptr;
  const T* addend_ = nullptr;
  const T* out_base_ = nullptr;
  FusedActivation activation_ = FusedActivation::kNone;
  Acc alpha_ = Acc(0);
  std::vector<Acc> scale_;
  std::vector<Acc> shift_;
};

}  // namespace opkit

#endif  // OPKIT_KERNELS_FUSED_EPILOGUE_H_

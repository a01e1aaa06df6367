// CPU kernels of SaveV2, RestoreV2 and MergeV2Checkpoints over the
// TensorBundle format (io/tensor_bundle.h). Only whole tensors: a
// non-empty shape_and_slices entry is Unimplemented. The validation and
// its messages follow TensorFlow's save_restore_v2_ops.cc.
#include <unistd.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/io/tensor_bundle.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace {

constexpr int kFixedInputs = 3;  // prefix, tensor_names, shape_and_slices

// The checks SaveV2 and RestoreV2 share: a one-element prefix, and two
// vectors of names and slice specs of one length.
Status ValidateInputs(bool is_save_op, OpKernelContext* ctx) {
  const Tensor& prefix = ctx->input(0);
  const Tensor& tensor_names = ctx->input(1);
  const Tensor& shape_and_slices = ctx->input(2);
  if (prefix.NumElements() != 1) {
    return errors::InvalidArgument("Input prefix should have a single element, got ",
                                   prefix.NumElements(), " instead.");
  }
  if (!TensorShapeUtils::IsVector(tensor_names.shape()) ||
      !TensorShapeUtils::IsVector(shape_and_slices.shape())) {
    return errors::InvalidArgument(
        "Input tensor_names and shape_and_slices should be an 1-D tensors, got ",
        tensor_names.shape().DebugString(), " and ",
        shape_and_slices.shape().DebugString(), " instead.");
  }
  if (tensor_names.NumElements() != shape_and_slices.NumElements()) {
    return errors::InvalidArgument(
        "tensor_names and shape_and_slices have different number of elements: ",
        tensor_names.NumElements(), " vs. ", shape_and_slices.NumElements());
  }
  if (tensor_names.NumElements() >
      std::numeric_limits<int>::max() - kFixedInputs) {
    return errors::InvalidArgument("Too many inputs to the op");
  }
  if (is_save_op && ctx->num_inputs() - kFixedInputs != tensor_names.NumElements()) {
    return errors::InvalidArgument("Got ", tensor_names.NumElements(),
                                   " tensor names but ",
                                   ctx->num_inputs() - kFixedInputs, " tensors.");
  }
  return OkStatus();
}

Status SlicesUnimplemented(const std::string& name, const std::string& spec) {
  return errors::Unimplemented(
      "Tensor '", name, "' has shape_and_slices '", spec,
      "': saving and restoring slices of tensors is not supported; pass '' to "
      "save or restore the whole tensor");
}

class SaveV2 : public OpKernel {
 public:
  explicit SaveV2(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, ValidateInputs(/*is_save_op=*/true, ctx));
    const std::string prefix = ctx->input(0).flat<tstring>()(0);
    const auto names = ctx->input(1).flat<tstring>();
    const auto slices = ctx->input(2).flat<tstring>();
    for (int64_t i = 0; i < names.size(); ++i) {
      OP_REQUIRES(ctx, slices(i).empty(), SlicesUnimplemented(names(i), slices(i)));
    }
    BundleWriter writer(Env::Default(), prefix);
    OP_REQUIRES_OK(ctx, writer.status());
    for (int64_t i = 0; i < names.size(); ++i) {
      OP_REQUIRES_OK(ctx, writer.Add(names(i), ctx->input(kFixedInputs + i)));
    }
    OP_REQUIRES_OK(ctx, writer.Finish());
  }
};

class RestoreV2 : public OpKernel {
 public:
  explicit RestoreV2(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, ValidateInputs(/*is_save_op=*/false, ctx));
    const auto names = ctx->input(1).flat<tstring>();
    const auto slices = ctx->input(2).flat<tstring>();
    OP_REQUIRES(ctx, names.size() == static_cast<int64_t>(dtypes_.size()),
                errors::InvalidArgument("Got ", names.size(),
                                        " tensor names, but ", dtypes_.size(),
                                        " expected dtypes."));
    for (int64_t i = 0; i < names.size(); ++i) {
      OP_REQUIRES(ctx, slices(i).empty(), SlicesUnimplemented(names(i), slices(i)));
    }
    const std::string prefix = ctx->input(0).flat<tstring>()(0);
    BundleReader reader(Env::Default(), prefix);
    OP_REQUIRES_OK(ctx, reader.status());
    for (int64_t i = 0; i < names.size(); ++i) {
      const std::string& name = names(i);
      DataType dtype;
      TensorShape shape;
      OP_REQUIRES_OK(ctx, reader.LookupDtypeAndShape(name, &dtype, &shape));
      OP_REQUIRES(ctx, dtype == dtypes_[i],
                  errors::InvalidArgument(
                      "tensor_name = ", name, "; expected dtype ",
                      DataTypeString(dtypes_[i]), " does not equal restored dtype ",
                      DataTypeString(dtype)));
      // The reader checks the entry against its data file before it
      // allocates, so a damaged entry is DataLoss, not a huge allocation.
      Tensor value;
      OP_REQUIRES_OK(ctx, reader.Lookup(name, &value));
      ctx->set_output(static_cast<int>(i), std::move(value));
    }
  }

 private:
  std::vector<DataType> dtypes_;
};

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

class MergeV2Checkpoints : public OpKernel {
 public:
  explicit MergeV2Checkpoints(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefixes = ctx->input(0);
    const Tensor& destination = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(prefixes.shape()),
                errors::InvalidArgument(
                    "Input checkpoint_prefixes should be an 1-D tensor, got ",
                    prefixes.shape().DebugString(), " instead."));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(destination.shape()),
                errors::InvalidArgument(
                    "Input destination_prefix should be a scalar tensor, got ",
                    destination.shape().DebugString(), " instead."));
    const auto flat = prefixes.flat<tstring>();
    const std::vector<std::string> inputs(flat.data(), flat.data() + flat.size());
    const std::string merged = destination.scalar<tstring>()();
    OP_REQUIRES_OK(ctx, MergeBundles(Env::Default(), inputs, merged));
    if (delete_old_dirs_) {
      // The inputs' folders (a save's temporary folder), when empty now.
      const std::string merged_dir = Dirname(merged);
      for (const std::string& input : inputs) {
        const std::string dir = Dirname(input);
        if (!dir.empty() && dir != merged_dir) (void)::rmdir(dir.c_str());
      }
    }
  }

 private:
  bool delete_old_dirs_ = true;
};

REGISTER_KERNEL_BUILDER(Name("SaveV2").Device(DEVICE_CPU), SaveV2);
REGISTER_KERNEL_BUILDER(Name("RestoreV2").Device(DEVICE_CPU), RestoreV2);
REGISTER_KERNEL_BUILDER(Name("MergeV2Checkpoints").Device(DEVICE_CPU),
                        MergeV2Checkpoints);

}  // namespace
}  // namespace opkit

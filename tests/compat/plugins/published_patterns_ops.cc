// An op library written with the habits of published TensorFlow op
// libraries that the first compat/ headers did not cover (each found by
// building such libraries against compat/): `#define EIGEN_USE_THREADS`
// above the includes, std::priority_queue with only op_kernel.h included,
// a Padding attr read with GetAttr, tensor_format.h, bounds_check.h,
// strings::StrCat through errors.h, TF_RETURN_IF_ERROR around a template
// call with a comma, abseil spellings, and shape functions returning
// absl::Status. tests/compat/build_published_patterns.sh compiles it with
// -Wall -Werror and only opkit-config's flags, loads it and runs its ops.
#define EIGEN_USE_THREADS

#include "tensorflow/core/framework/bounds_check.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/lib/core/errors.h"
#include "tensorflow/core/util/padding.h"
#include "tensorflow/core/util/tensor_format.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tensorflow {
namespace {

REGISTER_OP("PublishedTopOfQueue")
    .Output("top: int32")
    .SetShapeFn([](shape_inference::InferenceContext* c) -> absl::Status {
      c->set_output(0, c->Scalar());
      return absl::OkStatus();
    });

// The largest of a few values through std::priority_queue (<queue> comes
// with op_kernel.h, as in TensorFlow): 41.
class TopOfQueueOp : public OpKernel {
 public:
  explicit TopOfQueueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    std::priority_queue<int32> queue;
    for (int32 v : {3, 41, 7}) queue.push(v);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = queue.top();
  }
};
REGISTER_KERNEL_BUILDER(Name("PublishedTopOfQueue").Device(DEVICE_CPU),
                        TopOfQueueOp);

template <typename T, int N>
Status CheckIndex(T index, T limit) {
  if (!FastBoundsCheck(index, limit)) {
    return errors::InvalidArgument(
        strings::StrCat("index ", index, " is not in [0, ", limit, ")"));
  }
  return absl::OkStatus();
}

REGISTER_OP("PublishedPaddingCode")
    .Output("code: int32")
    .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
    .Attr("data_format: string = 'NHWC'")
    .SetShapeFn(shape_inference::ScalarShape);

// 100 * (padding: SAME 2, VALID 1) + the index of 'C' in data_format,
// after a bounds check through TF_RETURN_IF_ERROR on a template call whose
// arguments hold a comma: 203 for the defaults.
class PaddingCodeOp : public OpKernel {
 public:
  explicit PaddingCodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding_));
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    OP_REQUIRES(ctx, FormatFromString(data_format, &format_),
                errors::InvalidArgument(absl::StrCat("Invalid data format ",
                                                     data_format)));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, Check());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    const int32 padding_code = padding_ == SAME ? 2 : (padding_ == VALID ? 1 : 0);
    out->scalar<int32>()() =
        100 * padding_code + GetTensorFeatureDimIndex(4, format_);
  }

 private:
  Status Check() {
    TF_RETURN_IF_ERROR(CheckIndex<int64, 2>(3, 4));
    return OkStatus();
  }
  Padding padding_;
  TensorFormat format_;
};
REGISTER_KERNEL_BUILDER(Name("PublishedPaddingCode").Device(DEVICE_CPU),
                        PaddingCodeOp);

}  // namespace
}  // namespace tensorflow

// Tests of how compat/ maps namespace tensorflow onto opkit (Note [Compat
// namespace] in compat/tensorflow/core/platform/types.h): code that declares
// into namespace tensorflow before or after including a compat header, as
// real op libraries' functor headers do, compiles and means opkit's entities.
//
// The block below stands for a user's own header included first, before any
// TensorFlow header (the order Google's style puts a .cc's own header in):
// it forward-declares TensorFlow classes and a functor template. With the
// flags opkit gives a plugin (-Dtensorflow=opkit) these are declarations of
// opkit's classes.
namespace tensorflow {
class OpKernelContext;
class Tensor;
namespace functor {
template <typename Device, typename T>
struct ScaleBy;
}  // namespace functor
// A user function declared against the forward declarations only.
void ScaleInPlace(OpKernelContext* ctx, Tensor* t, float factor);
}  // namespace tensorflow

#include <string>
#include <typeinfo>
#include <type_traits>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"

// A second user header, included after the compat headers: more forward
// declarations of names the compat headers already defined.
namespace tensorflow {
class OpKernel;
class TensorShape;
namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference
}  // namespace tensorflow

namespace tensorflow {
namespace functor {

// The functor the first header declared, defined the way TensorFlow's
// kernels define CPU functors.
template <typename T>
struct ScaleBy<Eigen::ThreadPoolDevice, T> {
  void operator()(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Flat out,
                  T factor) {
    out.device(d) = out * factor;
  }
};

}  // namespace functor

void ScaleInPlace(OpKernelContext* ctx, Tensor* t, float factor) {
  functor::ScaleBy<Eigen::ThreadPoolDevice, float>()(
      ctx->eigen_device<Eigen::ThreadPoolDevice>(), t->flat<float>(), factor);
}

namespace {

REGISTER_OP("CompatNamespaceTriple")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    });

class TripleOp : public OpKernel {
 public:
  explicit TripleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor out;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, ctx->input(0).shape(), &out));
    out.flat<float>() = ctx->input(0).flat<float>();
    ScaleInPlace(ctx, &out, 3.0f);
    ctx->set_output(0, out);
  }
};

REGISTER_KERNEL_BUILDER(Name("CompatNamespaceTriple").Device(DEVICE_CPU), TripleOp);

}  // namespace
}  // namespace tensorflow

namespace {

TEST(CompatNamespaceTest, ForwardDeclarationsRedeclareOpkitClasses) {
  static_assert(std::is_same_v<tensorflow::OpKernelContext, opkit::OpKernelContext>);
  static_assert(std::is_same_v<tensorflow::Tensor, opkit::Tensor>);
  static_assert(std::is_same_v<tensorflow::shape_inference::InferenceContext,
                               opkit::shape_inference::InferenceContext>);
  static_assert(std::is_same_v<tensorflow::functor::ScaleBy<Eigen::ThreadPoolDevice, float>,
                               opkit::functor::ScaleBy<Eigen::ThreadPoolDevice, float>>);
}

// Symbols of compat code are opkit's, never TensorFlow's, so a process can
// load opkit and TensorFlow (and their plugins) side by side without the
// dynamic linker binding one's calls to the other's definitions.
TEST(CompatNamespaceTest, NamesAreMangledAsOpkitNotTensorFlow) {
  const std::string kernel_context = typeid(tensorflow::OpKernelContext).name();
  EXPECT_NE(kernel_context.find("5opkit"), std::string::npos) << kernel_context;
  EXPECT_EQ(kernel_context.find("tensorflow"), std::string::npos) << kernel_context;
  const std::string user_fn = typeid(&tensorflow::ScaleInPlace).name();
  EXPECT_NE(user_fn.find("5opkit"), std::string::npos) << user_fn;
}

TEST(CompatNamespaceTest, KernelUsingForwardDeclaredFunctorRuns) {
  auto created = opkit::EagerContext::Create();
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<opkit::EagerContext> ctx = std::move(created).value();
  opkit::Tensor x(opkit::DT_FLOAT, opkit::TensorShape({3}));
  x.flat<float>().setValues({1.0f, -2.0f, 0.5f});
  std::vector<opkit::Tensor> out;
  opkit::Status s = ctx->Run("CompatNamespaceTriple", {x}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 3.0f);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(1), -6.0f);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(2), 1.5f);
}

}  // namespace

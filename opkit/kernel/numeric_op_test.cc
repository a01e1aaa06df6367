// Tests of numeric_op.h: UnaryOp/BinaryOp check the node's signature, and
// UnaryElementWiseOp/BinaryElementWiseOp allocate or forward the output and
// dispatch to the derived kernel (by rank for the binary one), with
// TensorFlow's error texts. Uses the OpKernelTest fixture's own registries.
#include "opkit/kernel/numeric_op.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/testing/op_kernel_test_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using kernel_test::OpKernelTest;

// relu6(x) = min(max(x, 0), 6), written as an activation library writes it.
template <typename T>
class Relu6Kernel : public UnaryElementWiseOp<T, Relu6Kernel<T>> {
 public:
  using UnaryElementWiseOp<T, Relu6Kernel<T>>::UnaryElementWiseOp;
  void Operate(OpKernelContext* ctx, const Tensor& input, Tensor* output) {
    output->flat<T>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
        input.flat<T>().cwiseMax(T(0)).cwiseMin(T(6));
  }
};

// The gradient: g where 0 < a < 6, else 0. Records the rank it ran for.
template <typename T>
class Relu6GradKernel : public BinaryElementWiseOp<T, Relu6GradKernel<T>> {
 public:
  using BinaryElementWiseOp<T, Relu6GradKernel<T>>::BinaryElementWiseOp;
  template <int NDIMS>
  void Operate(OpKernelContext* /*ctx*/, const Tensor& g, const Tensor& a,
               Tensor* output) {
    last_ndims = NDIMS;
    auto gf = g.flat<T>();
    auto af = a.flat<T>();
    auto out = output->flat<T>();
    for (int64_t i = 0; i < out.size(); ++i) {
      out(i) = (af(i) > T(0) && af(i) < T(6)) ? gf(i) : T(0);
    }
  }
  int last_ndims = -1;
};

class NumericOpTest : public OpKernelTest {
 protected:
  void SetUp() override {
    OpKernelTest::SetUp();
    AddOp(OpDefBuilder("Relu6Like")
              .Input("features: T")
              .Output("activations: T")
              .Attr("T: {float, int32}"));
    AddOp(OpDefBuilder("Relu6GradLike")
              .Input("gradients: T")
              .Input("features: T")
              .Output("backprops: T")
              .Attr("T: {float, int32}"));
    RegisterKernel<Relu6Kernel<float>>("Relu6Like", "Relu6Kernel<float>");
    RegisterKernel<Relu6GradKernel<float>>("Relu6GradLike",
                                           "Relu6GradKernel<float>");
  }

  static NodeDef Node(const char* op, int num_inputs, DataType t) {
    NodeDef node;
    node.set_name("n");
    node.set_op(op);
    for (int i = 0; i < num_inputs; ++i) node.add_input("in");
    AddNodeAttr("T", t, &node);
    return node;
  }

  static Tensor Floats(const TensorShape& shape, std::vector<float> v) {
    Tensor t(DT_FLOAT, shape);
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
    return t;
  }
};

TEST_F(NumericOpTest, UnaryElementWiseOpForwardsAndComputes) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(Node("Relu6Like", 1, DT_FLOAT), &kernel), IsOk());
  std::vector<Tensor> inputs = {Floats(TensorShape({4}), {-1, 3, 7, 6})};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  ASSERT_THAT(call->ctx->status(), IsOk());
  Tensor out;
  ASSERT_THAT(call->ctx->release_output(0, &out), IsOk());
  // Nothing else held the input: its buffer became the output.
  EXPECT_TRUE(out.SharesBufferWith(inputs[0]));
  EXPECT_THAT(std::vector<float>(out.flat<float>().data(),
                                 out.flat<float>().data() + 4),
              ::testing::ElementsAre(0.f, 3.f, 6.f, 6.f));
}

TEST_F(NumericOpTest, SignatureIsCheckedAtConstruction) {
  std::unique_ptr<OpKernel> kernel;
  EXPECT_THAT(Create(Node("Relu6Like", 1, DT_INT32), &kernel),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Signature mismatch, have: int32->int32 "
                                 "expected: float->float")));
  EXPECT_THAT(Create(Node("Relu6GradLike", 2, DT_INT32), &kernel),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Signature mismatch, have: int32, int32->int32 "
                                 "expected: float, float->float")));
}

TEST_F(NumericOpTest, BinaryElementWiseOpDispatchesOnRank) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(Node("Relu6GradLike", 2, DT_FLOAT), &kernel), IsOk());
  auto* grad = static_cast<Relu6GradKernel<float>*>(kernel.get());
  Tensor g = Floats(TensorShape({2, 2}), {1, 2, 3, 4});
  Tensor a = Floats(TensorShape({2, 2}), {-1, 3, 7, 5});
  std::vector<Tensor> inputs = {g, a};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  ASSERT_THAT(call->ctx->status(), IsOk());
  EXPECT_EQ(grad->last_ndims, 2);
  Tensor out;
  ASSERT_THAT(call->ctx->release_output(0, &out), IsOk());
  EXPECT_EQ(out.shape(), TensorShape({2, 2}));
  EXPECT_THAT(std::vector<float>(out.flat<float>().data(),
                                 out.flat<float>().data() + 4),
              ::testing::ElementsAre(0.f, 2.f, 0.f, 4.f));

  std::vector<Tensor> scalars = {Tensor(2.0f), Tensor(1.0f)};
  auto scalar_call = MakeCall(kernel.get(), &scalars);
  kernel->Compute(scalar_call->ctx.get());
  ASSERT_THAT(scalar_call->ctx->status(), IsOk());
  EXPECT_EQ(grad->last_ndims, 0);
}

TEST_F(NumericOpTest, BinaryElementWiseOpRejectsDifferentShapes) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(Node("Relu6GradLike", 2, DT_FLOAT), &kernel), IsOk());
  std::vector<Tensor> inputs = {Floats(TensorShape({2}), {1, 2}),
                                Floats(TensorShape({3}), {1, 2, 3})};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Inputs to operation n of type Relu6GradLike "
                                 "must have the same size and shape.  Input "
                                 "0: [2] != input 1: [3]")));
}

TEST_F(NumericOpTest, BinaryElementWiseOpRejectsRankAboveEight) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(Node("Relu6GradLike", 2, DT_FLOAT), &kernel), IsOk());
  const TensorShape rank9({1, 1, 1, 1, 1, 1, 1, 1, 2});
  std::vector<Tensor> inputs = {Floats(rank9, {1, 2}), Floats(rank9, {1, 2})};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("We only handle up to Tensor::dims() up to "
                                 "8, not 9")));
}

}  // namespace
}  // namespace opkit

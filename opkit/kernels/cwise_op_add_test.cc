#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernels/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

class AddV2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }
  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(AddV2Test, SameShape) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2, 3}, TensorShape({3})),
                                  AsTensor<float>({10, 20, 30}, TensorShape({3}))},
                        &out),
              IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11, 22, 33));
}

TEST_F(AddV2Test, EveryRegisteredType) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<int32>({1, 2}, TensorShape({2})),
                                  AsTensor<int32>({3, 4}, TensorShape({2}))}, &out),
              IsOk());
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(4, 6));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<int64>({1LL << 40}, TensorShape({1})),
                                  AsTensor<int64>({1}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_THAT(Values<int64>(out[0]), ElementsAre((1LL << 40) + 1));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<double>({0.5}, TensorShape({})),
                                  AsTensor<double>({0.25}, TensorShape({}))}, &out),
              IsOk());
  EXPECT_THAT(Values<double>(out[0]), ElementsAre(0.75));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<half>({half(1.5f)}, TensorShape({1})),
                                  AsTensor<half>({half(2.0f)}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_EQ(static_cast<float>(Values<half>(out[0])[0]), 3.5f);
}

TEST_F(AddV2Test, Broadcasting) {
  std::vector<Tensor> out;
  // [2,1] + [3] -> [2,3]
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2}, TensorShape({2, 1})),
                                  AsTensor<float>({10, 20, 30}, TensorShape({3}))},
                        &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11, 21, 31, 12, 22, 32));
  // scalar + vector, both orders
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1}, TensorShape({})),
                                  AsTensor<float>({1, 2}, TensorShape({2}))}, &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(2, 3));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2}, TensorShape({2})),
                                  AsTensor<float>({5}, TensorShape({1, 1}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({1, 2}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(6, 7));
}

TEST_F(AddV2Test, EmptyInputs) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {Tensor(DT_FLOAT, TensorShape({0, 3})),
                                  AsTensor<float>({1, 2, 3}, TensorShape({3}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 3}));
}

TEST_F(AddV2Test, LargeInputsUseThePool) {
  const int64_t n = 1 << 18;
  Tensor a(DT_FLOAT, TensorShape({n})), b(DT_FLOAT, TensorShape({n}));
  a.flat<float>().setConstant(1.5f);
  b.flat<float>().setConstant(2.0f);
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {a, b}, &out), IsOk());
  auto f = out[0].flat<float>();
  EXPECT_EQ(f(0), 3.5f);
  EXPECT_EQ(f(n - 1), 3.5f);
  // The inputs the caller holds are not overwritten.
  EXPECT_EQ(a.flat<float>()(0), 1.5f);
}

TEST_F(AddV2Test, IncompatibleShapesAreAnError) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2}, TensorShape({2})),
                                  AsTensor<float>({1, 2, 3}, TensorShape({3}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Incompatible shapes: [2] vs. [3]")));
}

TEST_F(AddV2Test, MixedTypesAreAnError) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1}, TensorShape({1})),
                                  AsTensor<int32>({1}, TensorShape({1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("was expected to be a float tensor but is a int32")));
}

TEST_F(AddV2Test, TypeWithoutKernelIsNotFound) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddV2", {AsTensor<uint8>({1}, TensorShape({1})),
                                  AsTensor<uint8>({1}, TensorShape({1}))}, &out),
              StatusIs(error::NOT_FOUND, HasSubstr("No OpKernel was registered")));
}

}  // namespace
}  // namespace opkit

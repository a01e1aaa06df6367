// Tests of the Const, Placeholder, Fill, ZerosLike and OnesLike kernels.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

using test::Attr;
using test::I32;
using test::I64;
using test::Iota;
using test::Strings;
using OpTest = test::EagerOpTest;

using ConstantOpTest = OpTest;

TEST_F(ConstantOpTest, ConstOutputsItsValue) {
  Tensor v = AsTensor<int32>({1, 2, 3}, TensorShape({3}));
  EagerAttrs attrs = {{"value", Attr(v)}, {"dtype", Attr(DT_INT32)}};
  ASSERT_THAT(Run("Const", {}, attrs), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3}));
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1, 2, 3));
  Tensor s = Strings({"hi"}, TensorShape({}));
  ASSERT_THAT(Run("Const", {}, {{"value", Attr(s)}, {"dtype", Attr(DT_STRING)}}), IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("hi"));
}

TEST_F(ConstantOpTest, ConstRejectsMismatchedAndMalformedValues) {
  Tensor v = AsTensor<int32>({1}, TensorShape({1}));
  EXPECT_THAT(Run("Const", {}, {{"value", Attr(v)}, {"dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Type mismatch between value (int32) and dtype (float)")));
  TensorProto bad;
  bad.set_dtype(DT_FLOAT);
  bad.mutable_tensor_shape()->add_dim()->set_size(2);
  bad.set_tensor_content("abc");  // 3 bytes for 2 floats
  EXPECT_THAT(Run("Const", {}, {{"value", Attr(bad)}, {"dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT));
  TensorProto negative;
  negative.set_dtype(DT_FLOAT);
  negative.mutable_tensor_shape()->add_dim()->set_size(-5);
  EXPECT_THAT(Run("Const", {}, {{"value", Attr(negative)}, {"dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ConstantOpTest, UnfedPlaceholderFails) {
  EXPECT_THAT(Run("Placeholder", {},
                  {{"dtype", Attr(DT_FLOAT)}, {"shape", Attr(PartialTensorShape({-1, 3}))}}),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("You must feed a value for placeholder tensor '"),
                             HasSubstr("' with dtype float and shape [?,3]"))));
  EXPECT_THAT(Run("Placeholder", {}, {{"dtype", Attr(DT_INT32)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("' with dtype int32")));
}

TEST_F(ConstantOpTest, Fill) {
  ASSERT_THAT(Run("Fill", {I32({2, 3}), AsTensor<float>({7}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(7, 7, 7, 7, 7, 7));
  ASSERT_THAT(Run("Fill", {I64({2}), Strings({"s"}, TensorShape({}))}), IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("s", "s"));
  ASSERT_THAT(Run("Fill", {I32({0, 5}), AsTensor<bool>({true}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 5}));
  ASSERT_THAT(Run("Fill", {Tensor(DT_INT32, TensorShape({0})),
                           AsTensor<complex64>({{1, 2}}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(Values<complex64>(out_[0])[0], complex64(1, 2));
}

TEST_F(ConstantOpTest, FillErrors) {
  Tensor v = AsTensor<float>({7}, TensorShape({}));
  EXPECT_THAT(Run("Fill", {I32({2, -1}), v}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("dims[1] = -1 must be >= 0")));
  EXPECT_THAT(Run("Fill", {AsTensor<int32>({2}, TensorShape({})), v}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("dims must be a vector, got shape []")));
  EXPECT_THAT(Run("Fill", {I32({2}), AsTensor<float>({1, 2}, TensorShape({2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("value must be a scalar, got shape [2]")));
  EXPECT_THAT(Run("Fill", {I64({int64{1} << 40, int64{1} << 40}), v}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ConstantOpTest, FillBeyondTheAllocationLimitIsResourceExhaustedNamingTheOp) {
  // Note [Allocation limit]: dims that are valid but too big for the limit.
  ScopedAllocationLimit limit(1 << 20);
  EXPECT_THAT(Run("Fill", {I64({1 << 16, 1 << 16}), AsTensor<float>({7}, TensorShape({}))}),
              StatusIs(error::RESOURCE_EXHAUSTED,
                       AllOf(HasSubstr("shape [65536,65536]"), HasSubstr("allocation limit"),
                             HasSubstr("Fill"))));
}

TEST_F(ConstantOpTest, ZerosLikeAndOnesLike) {
  ASSERT_THAT(Run("ZerosLike", {Iota(TensorShape({2, 2}))}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 0, 0));
  ASSERT_THAT(Run("ZerosLike", {Strings({"a", "b"}, TensorShape({2}))}), IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("", ""));
  ASSERT_THAT(Run("ZerosLike", {AsTensor<bool>({true}, TensorShape({1}))}), IsOk());
  EXPECT_THAT(Values<bool>(out_[0]), ElementsAre(false));
  Tensor in = Iota(TensorShape({3}));
  ASSERT_THAT(Run("OnesLike", {in}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 1, 1));
  // The caller's input is not overwritten.
  EXPECT_THAT(Values<float>(in), ElementsAre(0, 1, 2));
  ASSERT_THAT(Run("OnesLike", {AsTensor<int64>({5, 6}, TensorShape({2}))}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(1, 1));
  ASSERT_THAT(Run("OnesLike", {AsTensor<bool>({false}, TensorShape({1}))}), IsOk());
  EXPECT_THAT(Values<bool>(out_[0]), ElementsAre(true));
  ASSERT_THAT(Run("OnesLike", {AsTensor<bfloat16>({bfloat16(3.f)}, TensorShape({1}))}), IsOk());
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(out_[0])[0]), 1.f);
  ASSERT_THAT(Run("OnesLike", {Tensor(DT_DOUBLE, TensorShape({0}))}), IsOk());
  EXPECT_EQ(out_[0].NumElements(), 0);
}

}  // namespace
}  // namespace opkit

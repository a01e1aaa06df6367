// Tests of ReadIntTensor and the array-op shape functions: Reduction, Concat, ConcatV2,
// Reshape, Transpose. Run against a test-local OpRegistry
// (testing/common_shape_fns_test_fixture.h).
#include "opkit/shape/common_shape_fns.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/shape/testing/common_shape_fns_test_fixture.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using shape_test::CommonShapeFnsTest;
using shape_test::Int32s;
using shape_test::Int64s;

TEST(ReadIntTensorTest, ReadsInt32AndInt64AsInt64) {
  std::vector<int64_t> out = {99};
  Tensor i32(DT_INT32, TensorShape({3}));
  i32.flat<int32>()(0) = -1;
  i32.flat<int32>()(1) = 0;
  i32.flat<int32>()(2) = std::numeric_limits<int32>::max();
  OPKIT_ASSERT_OK(ReadIntTensor(i32, "axis", &out));
  EXPECT_THAT(out, ::testing::ElementsAre(-1, 0, std::numeric_limits<int32>::max()));

  Tensor i64(DT_INT64, TensorShape({1}));
  i64.flat<int64>()(0) = std::numeric_limits<int64_t>::min();
  OPKIT_ASSERT_OK(ReadIntTensor(i64, "axis", &out));
  EXPECT_THAT(out, ::testing::ElementsAre(std::numeric_limits<int64_t>::min()));

  OPKIT_ASSERT_OK(ReadIntTensor(Tensor(DT_INT64, TensorShape({0})), "axis", &out));
  EXPECT_TRUE(out.empty());
}

TEST(ReadIntTensorTest, OtherTypesNameTheInput) {
  std::vector<int64_t> out;
  EXPECT_THAT(ReadIntTensor(Tensor(DT_FLOAT, TensorShape({2})), "multiples", &out),
              ::opkit::testing::StatusIs(error::INVALID_ARGUMENT,
                       "multiples must be int32 or int64, got float"));
}

TEST_F(CommonShapeFnsTest, ReductionWithoutConstantAxes) {
  Op("Sum");
  EXPECT_EQ(Infer("[2,3];[1]"), "?");
  EXPECT_EQ(Infer("?;[1]"), "?");
  EXPECT_INFER_ERROR("Shape must be at most rank 1 but is rank 2",
                     "[2,3];[1,1]");
  Op("Sum");
  Attr("keep_dims", true);
  EXPECT_EQ(Infer("[2,3];[1]"), "[?,?]");
  EXPECT_EQ(Infer("?;[1]"), "?");
}

TEST_F(CommonShapeFnsTest, ReductionWithConstantAxes) {
  Op("Sum");
  Const(1, Int32s({1}));
  EXPECT_EQ(Infer("[2,3];[1]"), "[2]");
  EXPECT_EQ(Infer("?;[1]"), "?");
  EXPECT_EQ(Infer("[?,3,4];[1]"), "[?,4]");
  Op("Sum");
  Const(1, Int32s({-1}));
  EXPECT_EQ(Infer("[2,3];[1]"), "[2]");
  Op("Sum");
  Const(1, Int64s({0, 1}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[]");
  Op("Sum");
  Const(1, Int32s({0, 0}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3]");
  Op("Sum");
  Const(1, Tensor(int32{0}));
  EXPECT_EQ(Infer("[2,3];[]"), "[3]");
  Op("Sum");
  Const(1, Int32s({}));
  EXPECT_EQ(Infer("[2,3];[0]"), "[2,3]");
  Op("Sum");
  Attr("keep_dims", true);
  Const(1, Int32s({0, -2}));
  EXPECT_EQ(Infer("[2,3,4];[2]"), "[1,1,4]");

  Op("Sum");
  Const(1, Int32s({2}));
  EXPECT_INFER_ERROR("Invalid reduction dimension 2 for input with 2 dimensions.",
                     "[2,3];[1]");
  Op("Sum");
  Const(1, Int64s({-3}));
  EXPECT_INFER_ERROR("Invalid reduction dimension -3 for input with 2 dimensions.",
                     "[2,3];[1]");
  Op("Sum");
  Const(1, Int64s({std::numeric_limits<int64>::min()}));
  EXPECT_INFER_ERROR("Invalid reduction dimension", "[2,3];[1]");
  Op("Sum");
  Attr("Tidx", DT_FLOAT);
  Const(1, Tensor(1.0f));
  EXPECT_INFER_ERROR("reduction_indices can only be int32 or int64",
                     "[2,3];[]");
}

TEST_F(CommonShapeFnsTest, ConcatV2WithoutConstantAxis) {
  Op("ConcatV2");
  EXPECT_EQ(Infer("[2,3];[4,3];[]"), "[?,?]");
  EXPECT_EQ(Infer("?;?;[]"), "?");
  EXPECT_EQ(Infer("?;[2,3];[]"), "[?,?]");
  EXPECT_EQ(Infer("?;?;?"), "?");
  EXPECT_INFER_ERROR("Can't concatenate scalars (use tf.stack instead)",
                     "[];[];[]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 2", "[2];[2,3];[]");
  EXPECT_INFER_ERROR("Shape must be rank 0 but is rank 1", "[2];[2];[1]");
}

TEST_F(CommonShapeFnsTest, ConcatV2WithConstantAxis) {
  Op("ConcatV2");
  Const(2, Tensor(int32{0}));
  EXPECT_EQ(Infer("[2,3];[4,3];[]"), "[6,3]");
  EXPECT_EQ(Infer("[2,?];[?,3];[]"), "[?,3]");
  EXPECT_EQ(Infer("?;[4,3];[]"), "[?,3]");
  EXPECT_EQ(Infer("?;?;[]"), "?");
  EXPECT_INFER_ERROR("must be equal", "[2,3];[4,5];[]");
  EXPECT_INFER_ERROR("Shape must be at least rank 1 but is rank 0",
                     "[];[];[]");
  Op("ConcatV2", 3);
  Const(3, Int64s({1}));
  EXPECT_EQ(Infer("[2,3];[2,4];[?,1];[]"), "[2,8]");
  Op("ConcatV2");
  Const(2, Tensor(int32{-1}));
  EXPECT_EQ(Infer("[2,3];[2,4];[]"), "[2,7]");
  Op("ConcatV2");
  Const(2, Tensor(int32{-2}));
  EXPECT_EQ(Infer("[2,3,5];[2,4,5];[]"), "[2,7,5]");
  Op("ConcatV2");
  Const(2, Tensor(int32{2}));
  EXPECT_INFER_ERROR("Shape must be at least rank 3 but is rank 2",
                     "[2,3];[2,3];[]");
  Op("ConcatV2");
  Const(2, Tensor(int64{std::numeric_limits<int64>::min()}));
  EXPECT_INFER_ERROR("is out of range", "[2,3];[2,3];[]");
  Op("ConcatV2");
  Attr("Tidx", DT_FLOAT);
  Const(2, Tensor(1.0f));
  EXPECT_INFER_ERROR("Concat axis must be int32 or int64", "[2,3];[2,3];[]");
  // Sizes whose sum overflows int64.
  Op("ConcatV2");
  Const(2, Tensor(int32{0}));
  EXPECT_INFER_ERROR("overflow",
                     "[9223372036854775807];[9223372036854775807];[]");
}

TEST_F(CommonShapeFnsTest, Concat) {
  Op("Concat");
  Const(0, Tensor(int32{1}));
  EXPECT_EQ(Infer("[];[2,3];[2,4]"), "[2,7]");
  Op("Concat");
  EXPECT_EQ(Infer("[];[2,3];[2,4]"), "[?,?]");
  Op("ConcatTooMany", 3);
  EXPECT_INFER_ERROR("needs 4 + 1 inputs", "[];[2,3];[2,4];[2,5]");
}

TEST_F(CommonShapeFnsTest, Reshape) {
  Op("Reshape");
  EXPECT_EQ(Infer("[2,3];[2]"), "[?,?]");
  EXPECT_EQ(Infer("[2,3];?"), "?");
  EXPECT_EQ(Infer("?;[2]"), "[?,?]");
  Op("Reshape");
  Const(1, Int32s({3, 2}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3,2]");
  EXPECT_EQ(Infer("?;[2]"), "[3,2]");
  EXPECT_EQ(Infer("[?,2];[2]"), "[3,2]");
  EXPECT_INFER_ERROR(
      "Cannot reshape a tensor with 8 elements to shape [3,2] (6 elements)",
      "[2,4];[2]");
  EXPECT_INFER_ERROR("Dimension size must be evenly divisible by 4 but is 6",
                     "[?,4];[2]");
  Op("Reshape");
  Const(1, Int32s({-1}));
  EXPECT_EQ(Infer("[2,3];[1]"), "[6]");
  EXPECT_EQ(Infer("[2,?];[1]"), "[?]");
  EXPECT_EQ(Infer("?;[1]"), "[?]");
  Op("Reshape");
  Const(1, Int64s({-1, 2}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3,2]");
  EXPECT_EQ(Infer("[3,?];[2]"), "[?,2]");
  EXPECT_INFER_ERROR("Dimension size must be evenly divisible by 2 but is 7",
                     "[7];[2]");
  EXPECT_EQ(Infer("[0,3];[2]"), "[0,2]");
  Op("Reshape");
  Const(1, Int32s({3, -1}));
  EXPECT_EQ(Infer("[?,3];[2]"), "[3,?]");
  EXPECT_TRUE(ctx_->Dim(ctx_->output(0), 1).SameHandle(
      ctx_->Dim(ctx_->input(0), 0)));
  Op("Reshape");
  Const(1, Int32s({-1, 0}));
  EXPECT_EQ(Infer("[0,3];[2]"), "[?,0]");
  Op("Reshape");
  Const(1, Int32s({-1, -1}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[?,?]");
  Op("Reshape");
  Const(1, Int32s({4}));
  EXPECT_INFER_ERROR(
      "Cannot reshape a tensor with 6 elements to shape [4] (4 elements)",
      "[2,3];[1]");
  Op("Reshape");
  Const(1, Int32s({-2, 3}));
  EXPECT_FALSE(Run("[2,3];[2]").ok());
  Op("Reshape");
  Const(1, Int64s({4294967296LL, 4294967296LL, 4}));
  EXPECT_FALSE(Run("[2,3];[3]").ok());
}

TEST_F(CommonShapeFnsTest, Transpose) {
  Op("Transpose");
  EXPECT_EQ(Infer("[2,3];[2]"), "[?,?]");
  EXPECT_EQ(Infer("?;[3]"), "[?,?,?]");
  EXPECT_EQ(Infer("?;?"), "?");
  EXPECT_EQ(Infer("?;[1]"), "?");
  EXPECT_EQ(Infer("[2,3];?"), "[?,?]");
  EXPECT_INFER_ERROR("Dimension must be 2 but is 3", "[2,3];[3]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 2", "[2,3];[2,1]");
  EXPECT_INFER_ERROR("the maximum rank is 254", "?;[1000000000]");
  Op("Transpose");
  Const(1, Int32s({1, 0}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3,2]");
  EXPECT_EQ(Infer("?;[2]"), "[?,?]");
  EXPECT_EQ(Infer("[2,?];?"), "[?,2]");
  Op("Transpose");
  Const(1, Int64s({2, 0, 1}));
  EXPECT_EQ(Infer("[2,3,4];[3]"), "[4,2,3]");
  Op("Transpose");
  Const(1, Int32s({2, 0}));
  EXPECT_INFER_ERROR("perm dim 2 is out of range of input rank 2",
                     "[2,3];[2]");
  Op("Transpose");
  Const(1, Int32s({-1, 0}));
  EXPECT_INFER_ERROR("perm dim -1 is out of range of input rank 2",
                     "[2,3];[2]");
  Op("Transpose");
  Const(1, Int32s({0, 1, 2}));
  EXPECT_INFER_ERROR("perm must have 2 elements, but has 3", "[2,3];?");
  Op("Transpose");
  Attr("Tperm", DT_FLOAT);
  Tensor f(DT_FLOAT, TensorShape({2}));
  f.flat<float>()(0) = 1;
  f.flat<float>()(1) = 0;
  Const(1, f);
  EXPECT_INFER_ERROR("perm must be int32 or int64", "[2,3];[2]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

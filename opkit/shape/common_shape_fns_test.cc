// Tests of the common shape functions: unchanged, unknown and scalar
// outputs, MatMul, BatchMatMulV2, BiasAdd, broadcasting; and all families
// through the INFER_OK / INFER_ERROR syntax. Run against a test-local
// OpRegistry (testing/common_shape_fns_test_fixture.h).
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
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using ::opkit::testing::StatusIs;
using shape_test::CommonShapeFnsTest;
using shape_test::Int32s;
using shape_test::TestOps;

TEST_F(CommonShapeFnsTest, UnchangedShapeKeepsTheHandle) {
  Op("Identity");
  EXPECT_EQ(Infer("[1,?]"), "[1,?]");
  EXPECT_TRUE(ctx_->output(0).SameHandle(ctx_->input(0)));
  EXPECT_EQ(Infer("?"), "?");
  EXPECT_EQ(Infer("[]"), "[]");
}

TEST_F(CommonShapeFnsTest, UnknownScalarAndNoOutputs) {
  Op("TwoUnknown");
  EXPECT_EQ(Infer("[1,2]"), "?;?");
  Op("Scalar");
  EXPECT_EQ(Infer("[1,2]"), "[]");
  Op("NoOut");
  EXPECT_EQ(Infer("[1,2]"), "");
}

TEST_F(CommonShapeFnsTest, UnchangedShapeWithRank) {
  Op("Rank2");
  EXPECT_EQ(Infer("[1,?]"), "[1,?]");
  EXPECT_EQ(Infer("?"), "[?,?]");
  EXPECT_INFER_ERROR("Shape must be rank 2 but is rank 1", "[1]");
  Op("RankAtLeast2");
  EXPECT_EQ(Infer("[1,2,3]"), "[1,2,3]");
  EXPECT_EQ(Infer("?"), "?");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1", "[1]");
  Op("RankAtMost2");
  EXPECT_EQ(Infer("[1]"), "[1]");
  EXPECT_EQ(Infer("?"), "?");
  EXPECT_INFER_ERROR("Shape must be at most rank 2 but is rank 3", "[1,2,3]");
}

TEST_F(CommonShapeFnsTest, MatMul) {
  Op("MatMul");
  EXPECT_EQ(Infer("[2,3];[3,4]"), "[2,4]");
  EXPECT_EQ(Infer("?;?"), "[?,?]");
  EXPECT_EQ(Infer("[2,?];[?,4]"), "[2,4]");
  EXPECT_EQ(Infer("?;[3,4]"), "[?,4]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 4",
                     "[2,3];[4,5]");
  EXPECT_INFER_ERROR("Shape must be rank 2 but is rank 1", "[2];[3,4]");
  EXPECT_INFER_ERROR("Shape must be rank 2 but is rank 3", "[2,3];[3,4,5]");
  Op("MatMul");
  Attr("transpose_a", true);
  EXPECT_EQ(Infer("[3,2];[3,4]"), "[2,4]");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[2,3];[3,4]");
  Op("MatMul");
  Attr("transpose_b", true);
  EXPECT_EQ(Infer("[2,3];[4,3]"), "[2,4]");
  Op("MatMul");
  Attr("transpose_a", true);
  Attr("transpose_b", true);
  EXPECT_EQ(Infer("[3,2];[4,3]"), "[2,4]");
  // A missing bool attr is the attr lookup's error.
  Op("MatMul");
  node_.mutable_attr()->erase("transpose_a");
  EXPECT_THAT(Run("[2,3];[3,4]"), StatusIs(error::NOT_FOUND));
  Op("MatMul");
  Attr("transpose_a", 3);
  EXPECT_THAT(Run("[2,3];[3,4]"), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(CommonShapeFnsTest, BatchMatMulV2) {
  Op("BatchMatMulV2");
  EXPECT_EQ(Infer("[3,4];[4,5]"), "[3,5]");
  EXPECT_EQ(Infer("[2,3,4];[4,5]"), "[2,3,5]");
  EXPECT_EQ(Infer("[1,2,3,4];[5,1,4,6]"), "[5,2,3,6]");
  EXPECT_EQ(Infer("[?,3,4];[7,4,5]"), "[7,3,5]");
  EXPECT_EQ(Infer("?;[3,4]"), "?");
  EXPECT_EQ(Infer("[2,3,4];?"), "?");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 2 and 3",
                     "[2,3,4];[3,4,5]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 4 and 5",
                     "[3,4];[5,6]");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1",
                     "[2];[2,2]");
  Op("BatchMatMulV2");
  Attr("adj_x", true);
  Attr("adj_y", true);
  EXPECT_EQ(Infer("[9,4,3];[5,4]"), "[9,3,5]");
}

TEST_F(CommonShapeFnsTest, BiasAdd) {
  Op("BiasAdd");
  EXPECT_EQ(Infer("[2,3];[3]"), "[2,3]");
  EXPECT_EQ(Infer("[?,?];[4]"), "[?,4]");
  EXPECT_EQ(Infer("[2,3,4];[?]"), "[2,3,4]");
  EXPECT_EQ(Infer("?;[3]"), "?");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[2,3];[4]");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1", "[2];[2]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 2", "[2,3];[3,1]");
  Op("BiasAdd");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4,5];[3]"), "[2,3,4,5]");
  EXPECT_EQ(Infer("[2,?,4];[3]"), "[2,3,4]");
  EXPECT_INFER_ERROR("Shape must be at least rank 3 but is rank 2",
                     "[2,3];[3]");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[2,3,4];[4]");
  // No data_format attr at all reads as NHWC.
  Op("BiasAddV1");
  EXPECT_EQ(Infer("[2,3,4];[4]"), "[2,3,4]");
}

TEST_F(CommonShapeFnsTest, BiasAddGrad) {
  Op("BiasAddGrad");
  EXPECT_EQ(Infer("[2,3]"), "[3]");
  EXPECT_EQ(Infer("?"), "[?]");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1", "[2]");
  Op("BiasAddGrad");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4]"), "[3]");
  EXPECT_INFER_ERROR("Shape must be at least rank 3 but is rank 2", "[2,3]");
}

TEST_F(CommonShapeFnsTest, Broadcast) {
  Op("AddV2");
  EXPECT_EQ(Infer("?;?"), "?");
  EXPECT_EQ(Infer("[1,2];?"), "?");
  EXPECT_EQ(Infer("?;[]"), "?");
  EXPECT_EQ(Infer("[];[]"), "[]");
  EXPECT_EQ(Infer("[2];[]"), "[2]");
  EXPECT_EQ(Infer("[];[2,3]"), "[2,3]");
  EXPECT_EQ(Infer("[1];[2]"), "[2]");
  EXPECT_EQ(Infer("[2];[1]"), "[2]");
  EXPECT_EQ(Infer("[3,1];[1,4]"), "[3,4]");
  EXPECT_EQ(Infer("[5,1,3];[4,1]"), "[5,4,3]");
  EXPECT_EQ(Infer("[?];[1]"), "[?]");
  EXPECT_EQ(Infer("[1];[?]"), "[?]");
  EXPECT_EQ(Infer("[?];[2]"), "[2]");
  EXPECT_EQ(Infer("[2];[?]"), "[2]");
  EXPECT_EQ(Infer("[?];[?]"), "[?]");
  EXPECT_EQ(Infer("[?];[0]"), "[?]");
  EXPECT_EQ(Infer("[0];[1]"), "[0]");
  EXPECT_EQ(Infer("[1,?];[5]"), "[1,5]");
  EXPECT_EQ(Infer("[2,?,1];[?,3]"), "[2,?,3]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 2 and 3", "[2];[3]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 0 and 2", "[0];[2]");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[4,2];[3,2]");

  Op("BroadcastNoError");
  EXPECT_EQ(Infer("[2];[3]"), "[]");
  EXPECT_EQ(Infer("[?];[3]"), "?");
  EXPECT_EQ(Infer("[?];[0]"), "?");
  EXPECT_EQ(Infer("[1];[3]"), "[3]");

  Op("BroadcastOut1");
  EXPECT_EQ(Infer("[2,1];[3]"), "[];[2,3]");
  Op("BroadcastOut5");
  EXPECT_INFER_ERROR("Output index 5 is out of range", "[2];[2]");
}

TEST_F(CommonShapeFnsTest, BroadcastSameUnknownHandle) {
  // Both inputs of AddV2(x, x) share the handle of an unknown dimension.
  Op("AddV2");
  InferenceContext c(0, AttrSlice(node_), reg_->op_def,
                     std::vector<PartialTensorShape>{PartialTensorShape({-1}),
                                                     PartialTensorShape({-1})},
                     {nullptr, nullptr});
  OPKIT_ASSERT_OK(c.construction_status());
  ShapeHandle out;
  OPKIT_ASSERT_OK(BroadcastBinaryOpOutputShapeFnHelper(&c, c.input(0),
                                                       c.input(0), true, &out));
  EXPECT_TRUE(c.Dim(out, 0).SameHandle(c.Dim(c.input(0), 0)));
  // Two different unknown dimensions give a new unknown one.
  OPKIT_ASSERT_OK(BroadcastBinaryOpOutputShapeFnHelper(&c, c.input(0),
                                                       c.input(1), true, &out));
  EXPECT_FALSE(c.ValueKnown(c.Dim(out, 0)));
  EXPECT_FALSE(c.Dim(out, 0).SameHandle(c.Dim(c.input(0), 0)));
}


// The same functions through the INFER_OK / INFER_ERROR syntax, which also
// checks that input handles flow to the outputs (what lets later shape
// functions know two unknown dimensions are equal).
ShapeInferenceTestOp TestOp(const char* name) {
  ShapeInferenceTestOp op(name);
  op.registry = &TestOps();
  return op;
}

TEST(CommonShapeFnsHandlesTest, UnchangedAndMatMul) {
  ShapeInferenceTestOp op = TestOp("Identity");
  INFER_OK(op, "[1,?]", "in0");
  INFER_OK(op, "?", "in0");
  op = TestOp("Rank2");
  INFER_OK(op, "[1,?]", "in0");
  INFER_OK(op, "?", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1]");

  op = TestOp("MatMul");
  INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1];[2,3]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[1,2];[3,4]");
  AddNodeAttr("transpose_a", true, &op.node_def);
  INFER_OK(op, "[?,1];[?,2]", "[d0_1,d1_1]");

  op = TestOp("BatchMatMulV2");
  INFER_OK(op, "[?,3,4];[7,4,5]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "[1,3,4];[?,4,5]", "[d1_0,d0_1,d1_2]");
}

TEST(CommonShapeFnsHandlesTest, BiasAddAndBroadcast) {
  ShapeInferenceTestOp op = TestOp("BiasAdd");
  INFER_OK(op, "[2,?];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "[2,3];[?]", "[d0_0,d0_1]");
  INFER_OK(op, "?;[3]", "?");
  op = TestOp("BiasAddGrad");
  INFER_OK(op, "[2,?,4]", "[d0_2]");

  op = TestOp("AddV2");
  INFER_OK(op, "[?,1];[1,?]", "[d0_0,d1_1]");
  INFER_OK(op, "[2];[?]", "[d0_0]");
  INFER_OK(op, "[1];[?]", "[d1_0]");
  INFER_OK(op, "[?];[?]", "[?]");
  INFER_OK(op, "[5,1];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "?;[3]", "?");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
}

TEST(CommonShapeFnsHandlesTest, ConstantInputs) {
  Tensor axis0(int32{0});
  Tensor axes1 = Int32s({1});
  Tensor perm = Int32s({1, 0});
  Tensor new_shape = Int32s({3, -1});

  ShapeInferenceTestOp op = TestOp("ConcatV2");
  AddNodeAttr("N", 2, &op.node_def);
  op.input_tensors = {nullptr, nullptr, &axis0};
  INFER_OK(op, "[2,3];[4,?];[]", "[6,d0_1]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[];[]");

  op = TestOp("Sum");
  op.input_tensors = {nullptr, &axes1};
  INFER_OK(op, "[2,3,4];[1]", "[d0_0,d0_2]");
  AddNodeAttr("keep_dims", true, &op.node_def);
  INFER_OK(op, "[2,3,4];[1]", "[d0_0,1,d0_2]");

  op = TestOp("Transpose");
  op.input_tensors = {nullptr, &perm};
  INFER_OK(op, "[?,?];[2]", "[d0_1,d0_0]");
  INFER_ERROR("Dimension must be 3 but is 2", op, "[1,2,3];[2]");

  op = TestOp("Reshape");
  op.input_tensors = {nullptr, &new_shape};
  INFER_OK(op, "[?,3];[2]", "[3,d0_0]");
  INFER_OK(op, "[2,3];[2]", "[3,2]");
}

TEST(CommonShapeFnsHandlesTest, ConvAndPool) {
  ShapeInferenceTestOp op = TestOp("Conv2D");
  AddNodeAttr("padding", "VALID", &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  INFER_OK(op, "[?,5,5,3];[2,2,3,?]", "[d0_0,4,4,d1_3]");
  INFER_ERROR("Negative dimension size caused by subtracting 3 from 2", op,
              "[1,2,2,3];[3,3,3,4]");

  op = TestOp("AvgPool");
  AddNodeAttr("padding", "VALID", &op.node_def);
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 1}, &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, &op.node_def);
  INFER_OK(op, "[?,4,4,?]", "[d0_0,2,2,d0_3]");
  op.name = "MaxPool";
  op.node_def.set_op("MaxPool");
  // A depth window of 1 at stride 1 keeps the input's depth handle, as
  // TensorFlow's dimension arithmetic does.
  INFER_OK(op, "[?,4,4,3]", "[d0_0,2,2,d0_3]");
  AddNodeAttr("padding", "SAME", &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  INFER_OK(op, "[?,4,?,3]", "[d0_0,d0_1,d0_2,d0_3]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

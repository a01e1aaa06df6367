// Registrations and shape functions of the NN ops (nn_ops.cc), in
// TensorFlow's test syntax.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/tensor/tensor.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;
using ::opkit::testing::IsOk;

TEST(NnOpsTest, AllRegistered) {
  for (const char* name :
       {"Relu", "Relu6", "Elu", "Softmax", "LogSoftmax", "BiasAdd", "Conv2D",
        "MaxPool", "AvgPool", "FusedBatchNormV3", "ReluGrad", "Relu6Grad",
        "EluGrad", "LeakyReluGrad", "Selu", "SeluGrad", "BiasAddGrad",
        "MaxPoolGrad", "AvgPoolGrad", "SoftmaxCrossEntropyWithLogits",
        "SparseSoftmaxCrossEntropyWithLogits", "FusedBatchNormGradV3"}) {
    const OpDef* def = nullptr;
    EXPECT_THAT(OpRegistry::Global()->LookUpOpDef(name, &def), IsOk()) << name;
  }
}

TEST(NnOpsTest, TypeAttrsAsTensorFlow) {
  const OpDef* def = nullptr;
  ASSERT_THAT(OpRegistry::Global()->LookUpOpDef("Conv2D", &def), IsOk());
  ASSERT_GE(def->attr_size(), 1);
  EXPECT_EQ(def->attr(0).name(), "T");
  std::vector<int> allowed(def->attr(0).allowed_values().list().type().begin(),
                           def->attr(0).allowed_values().list().type().end());
  EXPECT_THAT(allowed, ::testing::UnorderedElementsAre(
                           DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32));
  ASSERT_THAT(OpRegistry::Global()->LookUpOpDef("MaxPool", &def), IsOk());
  EXPECT_EQ(def->attr(0).default_value().type(), DT_FLOAT);
}

TEST(NnOpsShapeTest, Activations) {
  for (const char* name : {"Relu", "Relu6", "Elu", "LeakyRelu"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[]", "in0");
    INFER_OK(op, "[1,?,3]", "in0");
  }
}

TEST(NnOpsShapeTest, Softmax) {
  for (const char* name : {"Softmax", "LogSoftmax"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[2,3]", "in0");
    INFER_OK(op, "[4]", "in0");
    INFER_OK(op, "[1,?,3]", "in0");
    INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[]");
  }
}

TEST(NnOpsShapeTest, BiasAdd) {
  ShapeInferenceTestOp op("BiasAdd");
  INFER_OK(op, "[2,3];[3]", "[d0_0,d0_1]");
  INFER_OK(op, "[2,?];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "[1,2,3,4];[4]", "[d0_0,d0_1,d0_2,d0_3]");
  INFER_OK(op, "?;[3]", "?");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[3];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,3];[3,1]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4]");
  AddNodeAttr("data_format", "NCHW", &op.node_def);
  INFER_OK(op, "[1,3,5,5];[3]", "[d0_0,d0_1,d0_2,d0_3]");
  INFER_OK(op, "[1,?,5,5];[3]", "[d0_0,d1_0,d0_2,d0_3]");
  INFER_ERROR("Dimensions must be equal, but are 5 and 3", op,
              "[1,5,3,3];[3]");
}

ShapeInferenceTestOp ConvOp(const std::string& padding,
                            const std::vector<int32>& strides,
                            const std::string& data_format = "NHWC") {
  ShapeInferenceTestOp op("Conv2D");
  AddNodeAttr("padding", padding, &op.node_def);
  AddNodeAttr("strides", strides, &op.node_def);
  AddNodeAttr("data_format", data_format, &op.node_def);
  return op;
}

TEST(NnOpsShapeTest, Conv2D) {
  ShapeInferenceTestOp op = ConvOp("VALID", {1, 1, 1, 1});
  INFER_OK(op, "[1,5,5,3];[2,2,3,4]", "[d0_0,4,4,d1_3]");
  INFER_OK(op, "?;?", "[?,?,?,?]");
  INFER_OK(op, "[?,5,?,3];[2,2,3,?]", "[d0_0,4,?,d1_3]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[1,5,5];[2,2,3,4]");
  INFER_ERROR("Negative dimension size caused by subtracting 3 from 2", op,
              "[1,2,2,3];[3,3,3,4]");
  INFER_ERROR("Depth of input (3) is not a multiple of input depth of filter "
              "(2)",
              op, "[1,5,5,3];[2,2,2,4]");
  // Grouped: depth 4 in groups of 2 channels.
  INFER_OK(op, "[1,5,5,4];[2,2,2,6]", "[d0_0,4,4,d1_3]");

  op = ConvOp("SAME", {1, 2, 2, 1});
  INFER_OK(op, "[1,5,5,3];[3,3,3,4]", "[d0_0,3,3,d1_3]");
  op = ConvOp("VALID", {1, 1, 1, 1});
  AddNodeAttr("dilations", std::vector<int32>{1, 2, 2, 1}, &op.node_def);
  INFER_OK(op, "[1,5,5,3];[2,2,3,4]", "[d0_0,3,3,d1_3]");

  op = ConvOp("VALID", {1, 1, 1, 1}, "NCHW");
  INFER_OK(op, "[1,3,5,5];[2,2,3,4]", "[d0_0,d1_3,4,4]");

  op = ConvOp("EXPLICIT", {1, 1, 1, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 2, 3, 4, 0, 0},
              &op.node_def);
  INFER_OK(op, "[1,5,5,3];[2,2,3,4]", "[d0_0,7,11,d1_3]");
  op = ConvOp("EXPLICIT", {1, 1, 1, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 2},
              &op.node_def);
  INFER_ERROR("explicit_paddings attribute must contain 8 values, but got: 4",
              op, "[1,5,5,3];[2,2,3,4]");
  op = ConvOp("VALID", {1, 1, 1, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 1, 1, 0, 0},
              &op.node_def);
  INFER_ERROR("explicit_paddings attribute must be empty", op,
              "[1,5,5,3];[2,2,3,4]");
  op = ConvOp("VALID", {1, 1, 1});
  INFER_ERROR("requires the stride attribute to contain 4 values", op,
              "[1,5,5,3];[2,2,3,4]");
  op = ConvOp("VALID", {1, 0, 1, 1});
  INFER_ERROR("Stride must be > 0, but got 0", op, "[1,5,5,3];[2,2,3,4]");
}

TEST(NnOpsShapeTest, DepthwiseConv2dNative) {
  auto make = [](const char* padding, std::vector<int32> strides,
                 const char* format = "NHWC") {
    ShapeInferenceTestOp op("DepthwiseConv2dNative");
    AddNodeAttr("padding", padding, &op.node_def);
    AddNodeAttr("strides", strides, &op.node_def);
    AddNodeAttr("data_format", format, &op.node_def);
    return op;
  };
  // Output channels: in_depth * multiplier.
  ShapeInferenceTestOp op = make("VALID", {1, 1, 1, 1});
  INFER_OK(op, "[1,5,5,3];[2,2,3,4]", "[d0_0,4,4,12]");
  INFER_OK(op, "[1,5,5,?];[2,2,3,4]", "[d0_0,4,4,12]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 2", op,
              "[1,5,5,3];[2,2,2,4]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[1,5,5];[2,2,3,4]");
  op = make("SAME", {1, 2, 2, 1});
  INFER_OK(op, "[1,112,112,32];[3,3,32,1]", "[d0_0,56,56,d0_3]");
  op = make("VALID", {1, 1, 2, 2}, "NCHW");
  INFER_OK(op, "[1,3,5,5];[3,3,3,2]", "[d0_0,6,2,2]");
  op = make("EXPLICIT", {1, 1, 1, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 2, 3, 4, 0, 0},
              &op.node_def);
  INFER_OK(op, "[1,5,5,3];[2,2,3,1]", "[d0_0,7,11,d0_3]");
  op = make("VALID", {1, 1, 1});
  INFER_ERROR("stride attribute to contain 4 values", op, "[1,5,5,3];[2,2,3,1]");
}

TEST(NnOpsShapeTest, Conv2DBackpropInputAndFilter) {
  ShapeInferenceTestOp op("Conv2DBackpropInput");
  AddNodeAttr("padding", "SAME", &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, &op.node_def);
  AddNodeAttr("data_format", "NHWC", &op.node_def);
  INFER_OK(op, "[4];[3,3,2,5];[1,2,2,5]", "[d2_0,?,?,?]");
  Tensor sizes(DT_INT32, TensorShape({4}));
  sizes.flat<int32>().setValues({1, 4, 4, 2});
  op.input_tensors = {&sizes, nullptr, nullptr};
  INFER_OK(op, "[4];[3,3,2,5];[1,2,2,5]", "[d2_0,4,4,2]");
  INFER_ERROR("Dimensions must be equal, but are 4 and 5", op,
              "[4];[3,3,2,5];[1,2,2,4]");
  Tensor hw(DT_INT32, TensorShape({2}));
  hw.flat<int32>().setValues({4, 4});
  op.input_tensors = {&hw, nullptr, nullptr};
  INFER_OK(op, "[2];[3,3,2,5];[1,2,2,5]", "[d2_0,4,4,d1_2]");

  ShapeInferenceTestOp filter("Conv2DBackpropFilter");
  AddNodeAttr("padding", "SAME", &filter.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, &filter.node_def);
  INFER_OK(filter, "[1,4,4,2];[4];[1,2,2,5]", "[?,?,?,?]");
  Tensor filter_sizes(DT_INT32, TensorShape({4}));
  filter_sizes.flat<int32>().setValues({3, 3, 2, 5});
  filter.input_tensors = {nullptr, &filter_sizes, nullptr};
  INFER_OK(filter, "[1,4,4,2];[4];[1,2,2,5]", "[3,3,2,5]");
  Tensor three(DT_INT32, TensorShape({3}));
  three.flat<int32>().setValues({3, 3, 2});
  filter.input_tensors = {nullptr, &three, nullptr};
  INFER_ERROR("Shape must be rank 4 but is rank 3", filter,
              "[1,4,4,2];[3];[1,2,2,5]");
}

TEST(NnOpsShapeTest, Conv3D) {
  ShapeInferenceTestOp op("Conv3D");
  AddNodeAttr("padding", "SAME", &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 2, 2, 1}, &op.node_def);
  INFER_OK(op, "[1,3,4,4,2];[2,2,2,2,3]", "[d0_0,d0_1,2,2,d1_4]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[1,3,4,4];[2,2,2,2,3]");
  ShapeInferenceTestOp valid("Conv3D");
  AddNodeAttr("padding", "VALID", &valid.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1, 1}, &valid.node_def);
  INFER_OK(valid, "[1,3,4,4,2];[2,2,2,2,3]", "[d0_0,2,3,3,d1_4]");
}

ShapeInferenceTestOp PoolOp(const char* name, const std::string& padding,
                            const std::vector<int32>& ksize,
                            const std::vector<int32>& strides) {
  ShapeInferenceTestOp op(name);
  AddNodeAttr("padding", padding, &op.node_def);
  AddNodeAttr("ksize", ksize, &op.node_def);
  AddNodeAttr("strides", strides, &op.node_def);
  return op;
}

TEST(NnOpsShapeTest, MaxPool) {
  ShapeInferenceTestOp op = PoolOp("MaxPool", "VALID", {1, 2, 2, 1},
                                   {1, 2, 2, 1});
  INFER_OK(op, "[1,4,4,3]", "[d0_0,2,2,d0_3]");
  INFER_OK(op, "?", "[?,?,?,?]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[1,4,4]");
  op = PoolOp("MaxPool", "SAME", {1, 3, 3, 1}, {1, 2, 2, 1});
  INFER_OK(op, "[1,5,5,3]", "[d0_0,3,3,d0_3]");
  op = PoolOp("MaxPool", "VALID", {1, 1, 1, 2}, {1, 1, 1, 2});
  INFER_OK(op, "[1,4,4,6]", "[d0_0,d0_1,d0_2,3]");
  op = PoolOp("MaxPool", "EXPLICIT", {1, 2, 2, 1}, {1, 2, 2, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 0, 1, 0, 0},
              &op.node_def);
  INFER_OK(op, "[1,4,4,3]", "[d0_0,3,2,d0_3]");
  // Padding as large as the window: a window could pool no input.
  op = PoolOp("MaxPool", "EXPLICIT", {1, 2, 2, 1}, {1, 2, 2, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 0, 2, 0, 0},
              &op.node_def);
  INFER_ERROR("must be smaller than the window size 2", op, "[1,4,4,3]");
  op = PoolOp("MaxPool", "EXPLICIT", {1, 2, 2, 1}, {1, 2, 2, 1});
  AddNodeAttr("explicit_paddings", std::vector<int64>{1, 0, 1, 1, 0, 2, 0, 0},
              &op.node_def);
  INFER_ERROR("Nonzero explicit padding in the batch or depth dimensions", op,
              "[1,4,4,3]");
  op = PoolOp("MaxPool", "EXPLICIT", {1, 2, 2, 1}, {1, 2, 2, 1});
  INFER_ERROR("explicit_paddings attribute must contain 8 values, but got: 0",
              op, "[1,4,4,3]");
  op = PoolOp("MaxPool", "VALID", {1, 1, 2, 2}, {1, 1, 2, 2});
  AddNodeAttr("data_format", "NCHW", &op.node_def);
  INFER_OK(op, "[1,3,4,4]", "[d0_0,d0_1,2,2]");
}

TEST(NnOpsShapeTest, AvgPool) {
  ShapeInferenceTestOp op = PoolOp("AvgPool", "VALID", {1, 2, 2, 1},
                                   {1, 2, 2, 1});
  INFER_OK(op, "[1,4,4,3]", "[d0_0,2,2,d0_3]");
  INFER_OK(op, "[?,5,?,3]", "[d0_0,2,?,d0_3]");
  op = PoolOp("AvgPool", "SAME", {1, 3, 3, 1}, {1, 1, 1, 1});
  // SAME at stride 1 keeps the input's dimensions themselves.
  INFER_OK(op, "[2,5,?,3]", "[d0_0,d0_1,d0_2,d0_3]");
  INFER_ERROR("Shape must be rank 4 but is rank 2", op, "[5,5]");
  op = PoolOp("AvgPool", "VALID", {1, 2, 2}, {1, 2, 2, 1});
  INFER_ERROR("AvgPool requires the ksize attribute to contain 4 values", op,
              "[1,4,4,3]");
}

TEST(NnOpsShapeTest, FusedBatchNormV3) {
  ShapeInferenceTestOp op("FusedBatchNormV3");
  AddNodeAttr("is_training", false, &op.node_def);
  INFER_OK(op, "[2,4,4,3];[3];[3];[3];[3]",
           "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[d0_3];[d0_3];?");
  INFER_OK(op, "[2,4,4,?];[?];[3];[?];[?]",
           "[d0_0,d0_1,d0_2,d2_0];[d2_0];[d2_0];[d2_0];[d2_0];?");
  INFER_OK(op, "?;?;?;?;?", "[?,?,?,?];[?];[?];[?];[?];?");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op,
              "[2,4,4];[3];[3];[3];[3]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[2,4,4,3];[3];[3];[4];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op,
              "[2,4,4,3];[3];[3];[3];[3,1]");

  // Training with the default factor ignores mean and variance.
  ShapeInferenceTestOp train("FusedBatchNormV3");
  INFER_OK(train, "[2,4,4,3];[3];[3];[0];[0]",
           "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[d0_3];[d0_3];?");
  AddNodeAttr("exponential_avg_factor", 0.5f, &train.node_def);
  INFER_ERROR("Dimensions must be equal, but are 3 and 0", train,
              "[2,4,4,3];[3];[3];[0];[0]");

  ShapeInferenceTestOp nchw("FusedBatchNormV3");
  AddNodeAttr("data_format", "NCHW", &nchw.node_def);
  INFER_OK(nchw, "[2,3,4,4];[3];[3];[3];[3]",
           "[d0_0,d0_1,d0_2,d0_3];[d0_1];[d0_1];[d0_1];[d0_1];?");
  ShapeInferenceTestOp ncdhw("FusedBatchNormV3");
  AddNodeAttr("data_format", "NCDHW", &ncdhw.node_def);
  INFER_OK(ncdhw, "[2,3,4,4,4];[3];[3];[3];[3]",
           "[d0_0,d0_1,d0_2,d0_3,d0_4];[d0_1];[d0_1];[d0_1];[d0_1];?");
  INFER_ERROR("Shape must be rank 5 but is rank 4", ncdhw,
              "[2,3,4,4];[3];[3];[3];[3]");
}

TEST(NnOpsShapeTest, ActivationGradsMergeBothInputs) {
  for (const char* name :
       {"ReluGrad", "Relu6Grad", "EluGrad", "LeakyReluGrad", "SeluGrad"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];[2,3]", "in0");
    INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
    INFER_OK(op, "?;[4]", "in1");
    INFER_ERROR("Dimension 1 in both shapes must be equal", op, "[2,3];[2,4]");
  }
  ShapeInferenceTestOp selu("Selu");
  INFER_OK(selu, "[1,?,3]", "in0");
}

TEST(NnOpsShapeTest, BiasAddGrad) {
  ShapeInferenceTestOp op("BiasAddGrad");
  INFER_OK(op, "[2,3,4]", "[d0_2]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[3]");
  AddNodeAttr("data_format", "NCHW", &op.node_def);
  INFER_OK(op, "[2,3,4,5]", "[d0_1]");
}

TEST(NnOpsShapeTest, PoolGrads) {
  ShapeInferenceTestOp max = PoolOp("MaxPoolGrad", "VALID", {1, 2, 2, 1},
                                    {1, 2, 2, 1});
  INFER_OK(max, "[1,4,5,3];[1,2,2,3];[1,2,2,3]", "in0");
  INFER_ERROR("Shape must be rank 4 but is rank 3", max, "[1,4,5];?;?");
  ShapeInferenceTestOp avg = PoolOp("AvgPoolGrad", "VALID", {1, 2, 2, 1},
                                    {1, 2, 2, 1});
  Tensor shape = test::AsTensor<int32>({1, 4, 5, 3});
  avg.input_tensors.resize(2);
  avg.input_tensors[0] = &shape;
  INFER_OK(avg, "[4];[1,2,2,3]", "[1,4,5,3]");
}

TEST(NnOpsShapeTest, SoftmaxCrossEntropyWithLogits) {
  ShapeInferenceTestOp op("SoftmaxCrossEntropyWithLogits");
  INFER_OK(op, "[2,3];[2,3]", "[d0_0];in0");
  INFER_OK(op, "[?,3];[2,?]", "[d1_0];[d1_0,d0_1]");
  INFER_OK(op, "[1,3];[2,3]", "[d1_0];[d1_0,d0_1]");
  INFER_OK(op, "[3];[2,1]", "[d1_0];[d1_0,d0_0]");
  INFER_ERROR("must broadcast to a matrix [batch, classes], but broadcast to rank 3",
              op, "[2,2,3];[2,2,3]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[2,4]");
}

TEST(NnOpsShapeTest, SparseSoftmaxCrossEntropyWithLogits) {
  ShapeInferenceTestOp op("SparseSoftmaxCrossEntropyWithLogits");
  INFER_OK(op, "[2,3];[2]", "[d0_0];[d0_0,d0_1]");
  INFER_OK(op, "[?,3];[2]", "[d1_0];[d1_0,d0_1]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[3];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,3];[2,1]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2,4];[3]");
}

TEST(NnOpsShapeTest, FusedBatchNormGradV3) {
  ShapeInferenceTestOp op("FusedBatchNormGradV3");
  INFER_OK(op, "[2,4,4,3];[2,4,4,3];[3];[3];[3];?",
           "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[0];[0]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op,
              "[2,4,3];[2,4,4,3];[3];[3];[3];?");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[2,4,4,3];[2,4,4,3];[4];[3];[3];?");
}

TEST(NnOpsShapeTest, TopKV2ReplacesTheLastDimension) {
  ShapeInferenceTestOp op("TopKV2");
  INFER_OK(op, "[2,5];[]", "[d0_0,?];[d0_0,?]");
  INFER_OK(op, "?;[]", "?;?");
  Tensor k(DT_INT32, TensorShape({}));
  k.scalar<int32>()() = 3;
  op.input_tensors = {nullptr, &k};
  INFER_OK(op, "[2,5];[]", "[d0_0,3];[d0_0,3]");
  INFER_OK(op, "[?];[]", "[3];[3]");
  INFER_ERROR("input must have last dimension >= k = 3 but is 2", op, "[4,2];[]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[5];[1]");
  k.scalar<int32>()() = -1;
  INFER_ERROR("must be non-negative", op, "[5];[]");
}

// The fused ops take the shape of the op they start with; the args do not
// change it.
TEST(NnOpsShapeTest, FusedOps) {
  ShapeInferenceTestOp conv("_FusedConv2D");
  AddNodeAttr("padding", "VALID", &conv.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &conv.node_def);
  AddNodeAttr("num_args", 1, &conv.node_def);
  AddNodeAttr("T", DT_FLOAT, &conv.node_def);
  INFER_OK(conv, "[1,5,5,3];[2,2,3,4];[4]", "[d0_0,4,4,d1_3]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", conv,
              "[1,5,5];[2,2,3,4];[4]");

  ShapeInferenceTestOp matmul("_FusedMatMul");
  AddNodeAttr("num_args", 1, &matmul.node_def);
  AddNodeAttr("T", DT_FLOAT, &matmul.node_def);
  AddNodeAttr("transpose_b", true, &matmul.node_def);
  INFER_OK(matmul, "[2,3];[5,3];[5]", "[d0_0,d1_0]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", matmul,
              "[2,3];[5,4];[5]");

  ShapeInferenceTestOp depthwise("_FusedDepthwiseConv2dNative");
  AddNodeAttr("padding", "SAME", &depthwise.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, &depthwise.node_def);
  AddNodeAttr("num_args", 1, &depthwise.node_def);
  AddNodeAttr("T", DT_FLOAT, &depthwise.node_def);
  // Output channels: input channels (3) times the multiplier (2).
  INFER_OK(depthwise, "[1,5,5,3];[3,3,3,2];[6]", "[d0_0,3,3,6]");
}

}  // namespace
}  // namespace opkit

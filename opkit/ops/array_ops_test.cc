// Shape functions and OpDef details of the built-in array ops, in
// TensorFlow's test syntax (opkit/shape/shape_inference_testutil.h).
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/tensor/tensor.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

template <typename T>
Tensor Vec(std::vector<T> v) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<T>()(i) = v[i];
  return t;
}
template <typename T>
Tensor Scalar(T v) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({}));
  t.scalar<T>()() = v;
  return t;
}

TEST(ArrayOpsTest, EveryOpIsRegistered) {
  for (const char* name :
       {"Const", "Placeholder", "PlaceholderWithDefault", "Identity", "IdentityN",
        "StopGradient", "Reshape", "Transpose", "ConcatV2", "Pack", "Unpack", "Split",
        "SplitV", "Slice", "StridedSlice", "StridedSliceGrad", "Shape", "Size", "Rank",
        "Fill", "ZerosLike", "OnesLike", "ExpandDims", "Squeeze", "Tile", "GatherV2",
        "Range", "OneHot", "Pad"}) {
    const OpDef* def = nullptr;
    EXPECT_THAT(OpRegistry::Global()->LookUpOpDef(name, &def), testing::IsOk()) << name;
  }
}

TEST(ArrayOpsShapeTest, Const) {
  ShapeInferenceTestOp op("Const");
  TensorProto value;
  value.set_dtype(DT_FLOAT);
  value.mutable_tensor_shape()->add_dim()->set_size(2);
  value.mutable_tensor_shape()->add_dim()->set_size(3);
  AddNodeAttr("value", value, &op.node_def);
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  INFER_OK(op, "", "[2,3]");
  ShapeInferenceTestOp bad("Const");
  AddNodeAttr("value", value, &bad.node_def);
  AddNodeAttr("dtype", DT_INT32, &bad.node_def);
  INFER_ERROR("Type mismatch between value (float) and dtype (int32)", bad, "");
  ShapeInferenceTestOp negative("Const");
  value.mutable_tensor_shape()->mutable_dim(0)->set_size(-3);
  AddNodeAttr("value", value, &negative.node_def);
  AddNodeAttr("dtype", DT_FLOAT, &negative.node_def);
  INFER_ERROR("", negative, "");
}

TEST(ArrayOpsShapeTest, PlaceholderAndPlaceholderWithDefault) {
  ShapeInferenceTestOp op("Placeholder");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  INFER_OK(op, "", "?");
  AddNodeAttr("shape", PartialTensorShape({-1, 3}), &op.node_def);
  INFER_OK(op, "", "[?,3]");

  ShapeInferenceTestOp with_default("PlaceholderWithDefault");
  AddNodeAttr("dtype", DT_FLOAT, &with_default.node_def);
  AddNodeAttr("shape", PartialTensorShape({-1, 3}), &with_default.node_def);
  INFER_OK(with_default, "[5,3]", "[?,3]");
  INFER_OK(with_default, "?", "[?,3]");
  INFER_ERROR("Dimension 1 in both shapes must be equal", with_default, "[5,4]");
}

TEST(ArrayOpsShapeTest, IdentityNAndStopGradientAndLikes) {
  ShapeInferenceTestOp op("IdentityN");
  AddNodeAttr("T", std::vector<DataType>{DT_FLOAT, DT_INT32}, &op.node_def);
  INFER_OK(op, "[1,2];?", "in0;in1");
  for (const char* name : {"StopGradient", "ZerosLike", "OnesLike"}) {
    ShapeInferenceTestOp like(name);
    INFER_OK(like, "[1,?]", "in0");
  }
}

TEST(ArrayOpsShapeTest, Reshape) {
  ShapeInferenceTestOp op("Reshape");
  Tensor shape = Vec<int32>({3, -1});
  op.input_tensors = {nullptr, &shape};
  INFER_OK(op, "[2,3];[2]", "[3,2]");
  INFER_ERROR("Dimension size must be evenly divisible by 3 but is 5", op, "[5];[2]");
  Tensor four = Vec<int32>({4});
  op.input_tensors = {nullptr, &four};
  INFER_ERROR("Cannot reshape a tensor with 5 elements", op, "[5];[1]");
}

TEST(ArrayOpsShapeTest, Transpose) {
  ShapeInferenceTestOp op("Transpose");
  Tensor perm = Vec<int32>({1, 0, 2});
  op.input_tensors = {nullptr, &perm};
  INFER_OK(op, "[1,2,3];[3]", "[d0_1,d0_0,d0_2]");
}

TEST(ArrayOpsShapeTest, ConcatV2) {
  ShapeInferenceTestOp op("ConcatV2");
  AddNodeAttr("N", 2, &op.node_def);
  Tensor axis = Scalar<int32>(1);
  op.input_tensors = {nullptr, nullptr, &axis};
  INFER_OK(op, "[2,3];[2,4];[]", "[d0_0|d1_0,7]");
}

TEST(ArrayOpsShapeTest, Pack) {
  ShapeInferenceTestOp op("Pack");
  AddNodeAttr("N", 3, &op.node_def);
  INFER_OK(op, "[2,?];[?,3];?", "[3,d0_0,d1_1]");
  INFER_OK(op, "?;?;?", "?");
  INFER_ERROR("Shapes of all inputs must match", op, "[2];[3];?");
  AddNodeAttr("axis", 2, &op.node_def);
  INFER_OK(op, "[2,3];?;?", "[d0_0,d0_1,3]");
  ShapeInferenceTestOp bad("Pack");
  AddNodeAttr("N", 2, &bad.node_def);
  AddNodeAttr("axis", -3, &bad.node_def);
  INFER_ERROR("Invalid axis: -3; must be in [-2,2)", bad, "[2];[2]");
}

TEST(ArrayOpsShapeTest, Unpack) {
  ShapeInferenceTestOp op("Unpack");
  AddNodeAttr("num", 2, &op.node_def);
  INFER_OK(op, "[2,3]", "[d0_1];[d0_1]");
  INFER_OK(op, "?", "?;?");
  INFER_ERROR("Dimension must be 2 but is 3", op, "[3,3]");
  AddNodeAttr("axis", -1, &op.node_def);
  INFER_OK(op, "[4,2]", "[d0_0];[d0_0]");
  INFER_ERROR("Invalid axis: -1; must be in [0,0)", op, "[]");
}

TEST(ArrayOpsShapeTest, Split) {
  ShapeInferenceTestOp op("Split");
  AddNodeAttr("num_split", 2, &op.node_def);
  INFER_OK(op, "?;[4,6]", "[?,?];[?,?]");
  Tensor dim = Scalar<int32>(-1);
  op.input_tensors = {&dim};
  INFER_OK(op, "[];[4,6]", "[d1_0,3];[d1_0,3]");
  INFER_ERROR("Dimension size must be evenly divisible by 2 but is 5", op, "[];[4,5]");
  Tensor far = Scalar<int32>(3);
  op.input_tensors = {&far};
  INFER_ERROR("must be in range [-2, 2)", op, "[];[4,5]");
}

TEST(ArrayOpsShapeTest, SplitV) {
  ShapeInferenceTestOp op("SplitV");
  AddNodeAttr("num_split", 3, &op.node_def);
  Tensor sizes = Vec<int64>({1, -1, 2});
  Tensor dim = Scalar<int32>(0);
  op.input_tensors = {nullptr, &sizes, &dim};
  INFER_OK(op, "[6,2];[3];[]", "[1,d0_1];[3,d0_1];[2,d0_1]");
  INFER_OK(op, "[?,2];[3];[]", "[1,d0_1];[?,d0_1];[2,d0_1]");
  INFER_ERROR("Determined shape must either match input shape", op, "[2,2];[3];[]");
  Tensor two_unknown = Vec<int64>({-1, -1, 2});
  op.input_tensors = {nullptr, &two_unknown, &dim};
  INFER_ERROR("size_splits can only have one -1", op, "[6,2];[3];[]");
  Tensor short_sizes = Vec<int64>({1, 2});
  op.input_tensors = {nullptr, &short_sizes, &dim};
  INFER_ERROR("Length of size_splits should be equal to num_outputs", op, "[6,2];[2];[]");
}

TEST(ArrayOpsShapeTest, Slice) {
  ShapeInferenceTestOp op("Slice");
  INFER_OK(op, "[3,4];[2];[2]", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 3", op, "[3,4,5];[2];[2]");
  Tensor begin = Vec<int32>({1, 0});
  Tensor size = Vec<int32>({-1, 2});
  op.input_tensors = {nullptr, &begin, &size};
  INFER_OK(op, "[3,4];[2];[2]", "[2,2]");
  INFER_OK(op, "[?,4];[2];[2]", "[?,2]");
  Tensor too_big = Vec<int32>({1, 5});
  op.input_tensors = {nullptr, &begin, &too_big};
  INFER_ERROR("Expected size[1] in [0, 4], but got 5", op, "[3,4];[2];[2]");
}

TEST(ArrayOpsShapeTest, StridedSlice) {
  ShapeInferenceTestOp op("StridedSlice");
  INFER_OK(op, "[3,4];[2];[2];[2]", "?");
  Tensor begin = Vec<int32>({1, 0});
  Tensor end = Vec<int32>({3, 0});
  Tensor strides = Vec<int32>({1, 2});
  op.input_tensors = {nullptr, &begin, &end, &strides};
  AddNodeAttr("end_mask", 2, &op.node_def);
  INFER_OK(op, "[3,4];[2];[2];[2]", "[2,2]");
  INFER_OK(op, "[?,4];[2];[2];[2]", "[?,2]");
  ShapeInferenceTestOp shrink("StridedSlice");
  Tensor b1 = Vec<int32>({-1});
  Tensor e1 = Vec<int32>({0});
  Tensor s1 = Vec<int32>({1});
  shrink.input_tensors = {nullptr, &b1, &e1, &s1};
  AddNodeAttr("shrink_axis_mask", 1, &shrink.node_def);
  INFER_OK(shrink, "[5,6];[1];[1];[1]", "[6]");
  INFER_OK(shrink, "[?,6];[1];[1];[1]", "[6]");
  // Without begin/end values, masked dimensions are still known.
  ShapeInferenceTestOp masked("StridedSlice");
  Tensor s2 = Vec<int32>({1, -1});
  masked.input_tensors = {nullptr, nullptr, nullptr, &s2};
  AddNodeAttr("begin_mask", 1, &masked.node_def);
  AddNodeAttr("end_mask", 3, &masked.node_def);
  INFER_OK(masked, "[5,6,7];[2];[2];[2]", "[5,?,7]");
  ShapeInferenceTestOp zero("StridedSlice");
  Tensor s0 = Vec<int32>({0});
  zero.input_tensors = {nullptr, &b1, &e1, &s0};
  INFER_ERROR("strides[0] must be non-zero", zero, "[5];[1];[1];[1]");
}

TEST(ArrayOpsShapeTest, StridedSliceGradHasTheShapeInput) {
  ShapeInferenceTestOp op("StridedSliceGrad");
  INFER_OK(op, "[2];[1];[1];[1];?", "[?,?]");
  INFER_OK(op, "?;[1];[1];[1];?", "?");
  Tensor shape = Vec<int32>({3, 4});
  op.input_tensors = {&shape};
  INFER_OK(op, "[2];[1];[1];[1];[1,4]", "[3,4]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,1];[1];[1];[1];?");
}

TEST(ArrayOpsShapeTest, ShapeSizeRank) {
  ShapeInferenceTestOp shape("Shape");
  INFER_OK(shape, "[1,?,3]", "[3]");
  INFER_OK(shape, "?", "[?]");
  ShapeInferenceTestOp size("Size");
  INFER_OK(size, "[1,2]", "[]");
  ShapeInferenceTestOp rank("Rank");
  INFER_OK(rank, "?", "[]");
}

TEST(ArrayOpsShapeTest, Fill) {
  ShapeInferenceTestOp op("Fill");
  INFER_OK(op, "[2];[]", "[?,?]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1]");
  Tensor dims = Vec<int32>({2, 3});
  op.input_tensors = {&dims};
  INFER_OK(op, "[2];[]", "[2,3]");
  Tensor negative = Vec<int32>({2, -3});
  op.input_tensors = {&negative};
  INFER_ERROR("Fill dimensions must be >= 0", op, "[2];[]");
}

TEST(ArrayOpsShapeTest, ExpandDims) {
  ShapeInferenceTestOp op("ExpandDims");
  INFER_OK(op, "[2,3];[]", "?");
  Tensor dim = Scalar<int32>(-1);
  op.input_tensors = {nullptr, &dim};
  INFER_OK(op, "[2,3];[]", "[d0_0,d0_1,1]");
  Tensor zero = Scalar<int64>(0);
  op.input_tensors = {nullptr, &zero};
  INFER_OK(op, "[2,3];[]", "[1,d0_0,d0_1]");
  Tensor far = Scalar<int32>(3);
  op.input_tensors = {nullptr, &far};
  INFER_ERROR("dim 3 not in the interval [-3, 2].", op, "[2,3];[]");
}

TEST(ArrayOpsShapeTest, Squeeze) {
  ShapeInferenceTestOp op("Squeeze");
  INFER_OK(op, "[1,2,1,3]", "[d0_1,d0_3]");
  INFER_OK(op, "[1,?]", "?");
  AddNodeAttr("squeeze_dims", std::vector<int64>{-1}, &op.node_def);
  INFER_OK(op, "[2,?]", "[d0_0]");
  INFER_ERROR("Can not squeeze dim[1], expected a dimension of 1, got 3", op, "[2,3]");
  INFER_ERROR("Tried to squeeze dim index -1 for tensor with 0 dimensions.", op, "[]");
}

TEST(ArrayOpsShapeTest, Tile) {
  ShapeInferenceTestOp op("Tile");
  INFER_OK(op, "[2,3];[2]", "[?,?]");
  INFER_OK(op, "?;[2]", "[?,?]");
  INFER_ERROR("Dimension must be 2 but is 3", op, "[2,3];[3]");
  Tensor m = Vec<int32>({2, 1});
  op.input_tensors = {nullptr, &m};
  INFER_OK(op, "[2,3];[2]", "[4,d0_1]");
  Tensor negative = Vec<int32>({2, -1});
  op.input_tensors = {nullptr, &negative};
  INFER_ERROR("Expected multiples[1] >= 0, but got -1", op, "[2,3];[2]");
}

TEST(ArrayOpsShapeTest, GatherV2) {
  ShapeInferenceTestOp op("GatherV2");
  INFER_OK(op, "[3,4];[5];[]", "[?,?]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[5];[]");
  Tensor axis = Scalar<int32>(1);
  op.input_tensors = {nullptr, nullptr, &axis};
  INFER_OK(op, "[3,4,6];[5,2];[]", "[d0_0,d1_0,d1_1,d0_2]");
  Tensor far = Scalar<int32>(-4);
  op.input_tensors = {nullptr, nullptr, &far};
  INFER_ERROR("Expected axis in the range [-3, 3), but got -4", op, "[3,4,6];[5];[]");
}

TEST(ArrayOpsShapeTest, Range) {
  ShapeInferenceTestOp op("Range");
  INFER_OK(op, "[];[];[]", "[?]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[1];[];[]");
  Tensor start = Scalar<int32>(1), limit = Scalar<int32>(10), delta = Scalar<int32>(4);
  op.input_tensors = {&start, &limit, &delta};
  INFER_OK(op, "[];[];[]", "[3]");
  Tensor zero = Scalar<int32>(0);
  op.input_tensors = {&start, &limit, &zero};
  INFER_ERROR("Requires delta != 0", op, "[];[];[]");
  Tensor fs = Scalar<float>(0.f), fl = Scalar<float>(1.f), fd = Scalar<float>(0.3f);
  op.input_tensors = {&fs, &fl, &fd};
  AddNodeAttr("Tidx", DT_FLOAT, &op.node_def);
  INFER_OK(op, "[];[];[]", "[4]");
}

TEST(ArrayOpsShapeTest, OneHot) {
  ShapeInferenceTestOp op("OneHot");
  Tensor depth = Scalar<int32>(4);
  op.input_tensors = {nullptr, &depth};
  INFER_OK(op, "[2,3];[];[];[]", "[d0_0,d0_1,4]");
  INFER_OK(op, "?;[];[];[]", "?");
  AddNodeAttr("axis", 0, &op.node_def);
  INFER_OK(op, "[2,3];[];[];[]", "[4,d0_0,d0_1]");
  ShapeInferenceTestOp bad("OneHot");
  AddNodeAttr("axis", -2, &bad.node_def);
  INFER_ERROR("axis must be >= -1", bad, "[2];[];[];[]");
}

TEST(ArrayOpsShapeTest, Pad) {
  ShapeInferenceTestOp op("Pad");
  INFER_OK(op, "[2,3];[2,2]", "[?,?]");
  INFER_ERROR("Shape must be rank 3 but is rank 2", op, "[2,3];[3,2]");
  INFER_ERROR("Dimension must be 2 but is 3", op, "[2,3];[2,3]");
  Tensor paddings(DT_INT32, TensorShape({2, 2}));
  paddings.flat<int32>().setValues({1, 2, 0, 0});
  op.input_tensors = {nullptr, &paddings};
  INFER_OK(op, "[2,3];[2,2]", "[5,d0_1]");
  paddings.flat<int32>().setValues({1, -2, 0, 0});
  INFER_ERROR("Paddings must be non-negative", op, "[2,3];[2,2]");
}

TEST(ArrayOpsShapeTest, GatherNd) {
  ShapeInferenceTestOp op("GatherNd");
  INFER_OK(op, "[4,5,6];[2,3,2]", "[d1_0,d1_1,d0_2]");
  INFER_OK(op, "[4,5];[3,0]", "[d1_0,d0_0,d0_1]");
  INFER_OK(op, "?;[3,2]", "?");
  INFER_ERROR("indices.shape[-1] must be <= params.rank", op, "[4,5];[2,3]");
}

TEST(ArrayOpsShapeTest, BroadcastTo) {
  ShapeInferenceTestOp op("BroadcastTo");
  INFER_OK(op, "[3];[2]", "[?,d0_0]");
  Tensor shape = Vec<int32>({2, 3});
  op.input_tensors = {nullptr, &shape};
  // An input dimension > 1 merges with the output's (and so is the input's).
  INFER_OK(op, "[3];[2]", "[2,d0_0]");
  INFER_OK(op, "[1,3];[2]", "[2,d0_1]");
  INFER_OK(op, "?;[2]", "[2,3]");
  INFER_ERROR("Dimensions must be equal, but are 4 and 3", op, "[4];[2]");
  INFER_ERROR("must be at most rank 2", op, "[1,1,3];[2]");
  INFER_ERROR("must be rank 1", op, "[3];[]");
  Tensor wide = Vec<int64_t>({5, 1, 3});
  op.input_tensors = {nullptr, &wide};
  INFER_OK(op, "[1,?,3];[3]", "[5,1,d0_2]");
}

TEST(ArrayOpsShapeTest, Where) {
  ShapeInferenceTestOp op("Where");
  INFER_OK(op, "?", "[?,?]");
  INFER_OK(op, "[]", "[?,0]");
  INFER_OK(op, "[2,?,4]", "[?,3]");
}

TEST(ArrayOpsShapeTest, SpaceToDepthAndDepthToSpace) {
  ShapeInferenceTestOp s2d("SpaceToDepth");
  AddNodeAttr("block_size", 2, &s2d.node_def);
  AddNodeAttr("data_format", "NHWC", &s2d.node_def);
  INFER_OK(s2d, "[1,4,6,3]", "[d0_0,2,3,12]");
  INFER_OK(s2d, "[?,4,?,3]", "[d0_0,2,?,12]");
  INFER_ERROR("Dimension size must be evenly divisible by 2 but is 5", s2d,
              "[1,5,6,3]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", s2d, "[4,6,3]");
  ShapeInferenceTestOp d2s("DepthToSpace");
  AddNodeAttr("block_size", 2, &d2s.node_def);
  AddNodeAttr("data_format", "NCHW", &d2s.node_def);
  INFER_OK(d2s, "[1,12,2,3]", "[d0_0,3,4,6]");
  INFER_ERROR("Dimension size must be evenly divisible by 4 but is 6", d2s,
              "[1,6,2,3]");
}

TEST(ArrayOpsShapeTest, SpaceToBatchNDAndBatchToSpaceND) {
  ShapeInferenceTestOp s2b("SpaceToBatchND");
  INFER_OK(s2b, "[2,3,5,2];[2];[2,2]", "[?,?,?,?]");
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", s2b, "[2,3];[2];[2,2]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", s2b, "[2,3,5,2];[2];[3,2]");
  Tensor block = Vec<int32>({2, 3});
  Tensor pads(DT_INT64, TensorShape({2, 2}));
  pads.flat<int64>().setValues({1, 0, 0, 1});
  s2b.input_tensors = {nullptr, &block, &pads};
  INFER_OK(s2b, "[2,3,5,2];[2];[2,2]", "[12,2,2,d0_3]");
  INFER_ERROR("Dimension size must be evenly divisible by 3 but is 5", s2b,
              "[2,3,4,2];[2];[2,2]");
  pads.flat<int64>().setValues({1, 0, 0, -1});
  INFER_ERROR("paddings cannot be negative", s2b, "[2,3,5,2];[2];[2,2]");

  ShapeInferenceTestOp b2s("BatchToSpaceND");
  Tensor crops(DT_INT32, TensorShape({2, 2}));
  crops.flat<int32>().setValues({1, 0, 0, 1});
  b2s.input_tensors = {nullptr, &block, &crops};
  INFER_OK(b2s, "[12,2,2,2];[2];[2,2]", "[2,3,5,d0_3]");
  INFER_ERROR("Dimension size must be evenly divisible by 6 but is 10", b2s,
              "[10,2,2,2];[2];[2,2]");
  Tensor zero_block = Vec<int32>({0, 3});
  b2s.input_tensors = {nullptr, &zero_block, &crops};
  INFER_ERROR("block_shape must be positive", b2s, "[12,2,2,2];[2];[2,2]");
}

TEST(ArrayOpsShapeTest, MirrorPadAndPadV2) {
  ShapeInferenceTestOp reflect("MirrorPad");
  AddNodeAttr("mode", "REFLECT", &reflect.node_def);
  INFER_OK(reflect, "[2,3];[2,2]", "[?,?]");
  INFER_ERROR("Shape must be rank 3 but is rank 2", reflect, "[2,3];[3,2]");
  Tensor paddings(DT_INT32, TensorShape({2, 2}));
  paddings.flat<int32>().setValues({1, 1, 2, 2});
  reflect.input_tensors = {nullptr, &paddings};
  INFER_OK(reflect, "[2,3];[2,2]", "[4,7]");
  INFER_OK(reflect, "[?,3];[2,2]", "[?,7]");
  paddings.flat<int32>().setValues({1, 1, 3, 0});
  INFER_ERROR("paddings must be less than the dimension size", reflect,
              "[2,3];[2,2]");
  ShapeInferenceTestOp symmetric("MirrorPad");
  AddNodeAttr("mode", "SYMMETRIC", &symmetric.node_def);
  symmetric.input_tensors = {nullptr, &paddings};
  INFER_OK(symmetric, "[2,3];[2,2]", "[4,6]");

  ShapeInferenceTestOp pad("PadV2");
  paddings.flat<int32>().setValues({1, 2, 0, 0});
  pad.input_tensors = {nullptr, &paddings, nullptr};
  INFER_OK(pad, "[2,3];[2,2];[]", "[5,d0_1]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", pad, "[2,3];[2,2];[1]");
}

TEST(ArrayOpsShapeTest, ExtractImagePatches) {
  auto make = [](std::vector<int32> ksizes, std::vector<int32> strides,
                 std::vector<int32> rates, const char* padding) {
    ShapeInferenceTestOp op("ExtractImagePatches");
    AddNodeAttr("ksizes", ksizes, &op.node_def);
    AddNodeAttr("strides", strides, &op.node_def);
    AddNodeAttr("rates", rates, &op.node_def);
    AddNodeAttr("padding", padding, &op.node_def);
    return op;
  };
  ShapeInferenceTestOp op = make({1, 3, 3, 1}, {1, 5, 5, 1}, {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,10,10,1]", "[d0_0,2,2,9]");
  INFER_OK(op, "[?,10,?,2]", "[d0_0,2,?,18]");
  op = make({1, 2, 3, 1}, {1, 2, 2, 1}, {1, 2, 1, 1}, "SAME");
  INFER_OK(op, "[1,5,4,2]", "[d0_0,3,2,12]");
  op = make({1, 3, 3, 1}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("Negative dimension size", op, "[1,4,4,1]");
  op = make({1, 3, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("ksizes attribute to contain 4 values", op, "[1,4,4,1]");
  op = make({1, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("only supported across rows and cols", op, "[1,4,4,1]");
}

}  // namespace
}  // namespace opkit

// Tests, in TensorFlow's INFER_OK / INFER_ERROR syntax, of the shape
// functions TensorFlow's common_shape_fns.h adds to the basic ones: Slice,
// GatherNd, the ScatterNd checks, segment and sparse reductions, explicit
// and random shapes, dataset iterators, MergeBothInputsShapeFn,
// BatchMatMul, QuantizedConcatV2, MakeShapeFromFormat, variable handles and
// InferenceContext::DebugString(). Expected shapes and messages are
// TensorFlow's for the same ops and inputs.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/shape/testing/common_shape_fns_test_fixture.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace shape_inference {
namespace {

using shape_test::AddTestOp;
using shape_test::Int32s;
using shape_test::Int64s;
using shape_test::TestOpIn;

OpDefBuilder WithFn(OpDefBuilder b, OpShapeInferenceFn fn) {
  b.SetShapeFn(std::move(fn));
  return b;
}

// The ops, declared as TensorFlow declares them.
const OpRegistry& IndexingOps() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    AddTestOp(r, WithFn(std::move(OpDefBuilder("Slice")
                                      .Input("input: T")
                                      .Input("begin: Index")
                                      .Input("size: Index")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Index: {int32,int64}")),
                        SliceShape));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("GatherNd")
                                      .Input("params: Tparams")
                                      .Input("indices: Tindices")
                                      .Output("output: Tparams")
                                      .Attr("Tparams: type")
                                      .Attr("Tindices: {int32,int64}")),
                        GatherNdShape));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("ScatterNd")
                                      .Input("indices: Tindices")
                                      .Input("updates: T")
                                      .Input("shape: Tindices")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Tindices: {int32, int64}")),
                        [](InferenceContext* c) {
                          ShapeHandle indices, updates, output;
                          OPKIT_RETURN_IF_ERROR(
                              c->WithRankAtLeast(c->input(0), 1, &indices));
                          OPKIT_RETURN_IF_ERROR(
                              c->WithRankAtLeast(c->input(1), 1, &updates));
                          OPKIT_RETURN_IF_ERROR(
                              c->MakeShapeFromShapeTensor(2, &output));
                          return ScatterNdShapeHelper(c, indices, updates,
                                                      output);
                        }));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("UnsortedSegmentSum")
                                      .Input("data: T")
                                      .Input("segment_ids: Tindices")
                                      .Input("num_segments: Tnumsegments")
                                      .Output("output: T")
                                      .Attr("T: numbertype")
                                      .Attr("Tindices: {int32,int64}")
                                      .Attr("Tnumsegments: {int32,int64} = "
                                            "DT_INT32")),
                        SegmentReductionWithNumSegmentsShapeFn));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("SparseReduceSum")
                                      .Input("input_indices: int64")
                                      .Input("input_values: T")
                                      .Input("input_shape: int64")
                                      .Input("reduction_axes: int32")
                                      .Attr("keep_dims: bool = False")
                                      .Output("output: T")
                                      .Attr("T: numbertype")),
                        SparseReduceShapeFn));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("RandomUniform")
                                      .Input("shape: T")
                                      .Output("output: dtype")
                                      .Attr("dtype: {float, double}")
                                      .Attr("T: {int32, int64}")),
                        RandomShape));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("Placeholder")
                                      .Output("output: dtype")
                                      .Attr("dtype: type")
                                      .Attr("shape: shape = { unknown_rank: "
                                            "true }")),
                        ExplicitShape));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("ExplicitMany")
                                      .Output("outputs: dtypes")
                                      .Attr("dtypes: list(type) >= 0")
                                      .Attr("shapes: list(shape) >= 0")),
                        ExplicitShapes));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("IteratorGetNext")
                                      .Input("iterator: resource")
                                      .Output("components: output_types")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")),
                        DatasetIteratorShape));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("MergeBoth")
                                      .Input("x: T")
                                      .Input("y: T")
                                      .Output("z: T")
                                      .Attr("T: type")),
                        MergeBothInputsShapeFn));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("BatchMatMul")
                                      .Input("x: T")
                                      .Input("y: T")
                                      .Output("output: T")
                                      .Attr("T: {float, double}")
                                      .Attr("adj_x: bool = false")
                                      .Attr("adj_y: bool = false")),
                        BatchMatMulShape));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("QuantizedConcatV2")
                                      .Input("values: N * T")
                                      .Input("axis: Tidx")
                                      .Input("input_mins: N * float32")
                                      .Input("input_maxes: N * float32")
                                      .Output("output: T")
                                      .Attr("N: int >= 2")
                                      .Attr("T: type")
                                      .Attr("Tidx: {int32, int64} = DT_INT32")),
                        [](InferenceContext* c) {
                          int n;
                          OPKIT_RETURN_IF_ERROR(c->GetAttr("N", &n));
                          return QuantizedConcatV2Shape(c, n);
                        }));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("ReadVariableOp")
                                      .Input("resource: resource")
                                      .Output("value: dtype")
                                      .Attr("dtype: type")),
                        [](InferenceContext* c) {
                          std::vector<ShapeAndType> handle;
                          OPKIT_RETURN_IF_ERROR(
                              ValidateVariableResourceHandle(c, &handle));
                          c->set_output(0, handle[0].shape);
                          return OkStatus();
                        }));
    AddTestOp(r, WithFn(std::move(OpDefBuilder("Format")
                                      .Input("x: float")
                                      .Output("nchw: float")
                                      .Output("nhwc: float")),
                        [](InferenceContext* c) {
                          ShapeHandle nchw, nhwc;
                          OPKIT_RETURN_IF_ERROR(MakeShapeFromFormat(
                              TensorFormat::kNCHW, 1, {2, 3}, 4, &nchw, c));
                          OPKIT_RETURN_IF_ERROR(MakeShapeFromFormat(
                              TensorFormat::kNHWC, c->Dim(c->input(0), 0), {5},
                              c->Dim(c->input(0), 1), &nhwc, c));
                          c->set_output(0, nchw);
                          c->set_output(1, nhwc);
                          return OkStatus();
                        }));
    return r;
  }();
  return *registry;
}

ShapeInferenceTestOp Op(const char* name) {
  return TestOpIn(IndexingOps(), name);
}

TEST(SliceShapeTest, ConstantBeginAndSize) {
  ShapeInferenceTestOp op = Op("Slice");
  Tensor begin = Int32s({0, 1, 1});
  Tensor size = Int32s({1, -1, 2});
  op.input_tensors = {nullptr, &begin, &size};
  // -1: the rest of the dimension after begin (3 - 1).
  INFER_OK(op, "[2,3,4];[3];[3]", "[1,2,2]");
  op.input_tensors = {nullptr, nullptr, &size};
  INFER_OK(op, "[2,3,4];[3];[3]", "[1,?,2]");
  Tensor bad = Int32s({-2, 1, 1});
  op.input_tensors = {nullptr, &begin, &bad};
  INFER_ERROR("Out of bounds slicing on dimension 0 of length 2: sizes vector "
              "cannot be < -1, but was -2",
              op, "[2,3,4];[3];[3]");
}

TEST(SliceShapeTest, UnknownSizes) {
  ShapeInferenceTestOp op = Op("Slice");
  INFER_OK(op, "[2,3,4];[3];[3]", "[?,?,?]");
  INFER_OK(op, "?;[?];[?]", "?");
  INFER_ERROR("Shape must be rank 2 but is rank 3", op, "[2,3,4];[2];[2]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
              "[2,3,4];[2];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,3,4];[3,1];[3]");
}

TEST(GatherNdShapeTest, IndicesPrefixThenParamsSuffix) {
  ShapeInferenceTestOp op = Op("GatherNd");
  INFER_OK(op, "[4,5,6];[2,3,2]", "[d1_0,d1_1,d0_2]");
  INFER_OK(op, "[4,5];[7,2]", "[d1_0]");
  INFER_OK(op, "?;[2,2]", "?");
  INFER_OK(op, "[4,5];[2,?]", "?");
  INFER_ERROR("indices.shape[-1] must be <= params.rank, but saw indices "
              "shape: [2,3] and params shape: [4,5]",
              op, "[4,5];[2,3]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[4,5];[]");
}

TEST(ScatterNdShapeHelperTest, ChecksIndicesAndUpdates) {
  ShapeInferenceTestOp op = Op("ScatterNd");
  Tensor shape = Int32s({3, 4, 5});
  op.input_tensors = {nullptr, nullptr, &shape};
  INFER_OK(op, "[2,2];[2,5];[3]", "[3,4,5]");
  INFER_ERROR("Dimensions [0,1) of indices[shape=[2,2]] = [2] must match "
              "dimensions [0,1) of updates[shape=[3,5]] = [3]",
              op, "[2,2];[3,5];[3]");
  INFER_ERROR("Dimensions [2,3) of input[shape=[3,4,5]] = [5] must match "
              "dimensions [1,2) of updates[shape=[2,6]] = [6]",
              op, "[2,2];[2,6];[3]");
  Tensor one = Int32s({8});
  op.input_tensors = {nullptr, nullptr, &one};
  INFER_OK(op, "[4,1];[4];[1]", "[8]");
  Tensor empty = Int32s({0});
  op.input_tensors = {nullptr, nullptr, &empty};
  INFER_ERROR("Indices and updates specified for empty input", op,
              "[1,1];[1];[1]");
}

TEST(SegmentReductionShapeTest, NumSegmentsThenDataSuffix) {
  ShapeInferenceTestOp op = Op("UnsortedSegmentSum");
  Tensor ten(static_cast<int32>(10));
  op.input_tensors = {nullptr, nullptr, &ten};
  INFER_OK(op, "[4,5,6];[4];[]", "[10,d0_1,d0_2]");
  INFER_OK(op, "[4,5,6];[4,5];[]", "[10,d0_2]");
  INFER_OK(op, "[4,5,6];?;[]", "?");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[4,5,6];[4];[1]");
  INFER_ERROR("Dimensions must be equal, but are 4 and 3", op,
              "[4,5,6];[3];[]");
  op.input_tensors.clear();
  INFER_OK(op, "[4,5,6];[4];[]", "[?,d0_1,d0_2]");
  Tensor negative(static_cast<int32>(-1));
  op.input_tensors = {nullptr, nullptr, &negative};
  INFER_ERROR("must be non-negative", op, "[4,5,6];[4];[]");
}

TEST(SparseReduceShapeFnTest, ConstantShapeAndAxes) {
  ShapeInferenceTestOp op = Op("SparseReduceSum");
  Tensor shape = Int64s({3, 4, 5});
  Tensor axes = Int32s({1});
  op.input_tensors = {nullptr, nullptr, &shape, &axes};
  INFER_OK(op, "[?,3];[?];[3];[1]", "[3,5]");
  Tensor last = Int32s({-1});
  op.input_tensors = {nullptr, nullptr, &shape, &last};
  INFER_OK(op, "[?,3];[?];[3];[1]", "[3,4]");
  AddNodeAttr("keep_dims", true, &op.node_def);
  op.input_tensors = {nullptr, nullptr, &shape, &axes};
  INFER_OK(op, "[?,3];[?];[3];[1]", "[3,1,5]");
  op.input_tensors.clear();
  INFER_OK(op, "[?,3];[?];[3];[1]", "?");
  Tensor no_dims = Int64s({});
  op.input_tensors = {nullptr, nullptr, &no_dims, &axes};
  INFER_ERROR("Number of dims in shape tensor must not be 0", op,
              "[?,0];[?];[0];[1]");
}

TEST(ExplicitShapeTest, FromAttrs) {
  ShapeInferenceTestOp op = Op("Placeholder");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  AddNodeAttr("shape", PartialTensorShape({2, -1}), &op.node_def);
  INFER_OK(op, "", "[2,?]");
  ShapeInferenceTestOp unknown = Op("Placeholder");
  AddNodeAttr("dtype", DT_FLOAT, &unknown.node_def);
  INFER_OK(unknown, "", "?");

  ShapeInferenceTestOp many = Op("ExplicitMany");
  AddNodeAttr("dtypes", std::vector<DataType>{DT_FLOAT, DT_INT32},
              &many.node_def);
  AddNodeAttr("shapes",
              std::vector<PartialTensorShape>{PartialTensorShape({1}),
                                              PartialTensorShape({2, 3})},
              &many.node_def);
  INFER_OK(many, "", "[1];[2,3]");
  ShapeInferenceTestOp none = Op("ExplicitMany");
  AddNodeAttr("dtypes", std::vector<DataType>{}, &none.node_def);
  AddNodeAttr("shapes", std::vector<PartialTensorShape>{}, &none.node_def);
  INFER_ERROR("shapes attribute is empty", none, "");
}

TEST(RandomShapeTest, FromTheShapeInput) {
  ShapeInferenceTestOp op = Op("RandomUniform");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  Tensor shape = Int32s({2, 3});
  op.input_tensors = {&shape};
  INFER_OK(op, "[2]", "[2,3]");
  op.input_tensors.clear();
  INFER_OK(op, "[2]", "[?,?]");
  INFER_OK(op, "?", "?");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,2]");
}

TEST(DatasetIteratorShapeTest, OutputShapesAttr) {
  ShapeInferenceTestOp op = Op("IteratorGetNext");
  AddNodeAttr("output_types", std::vector<DataType>{DT_FLOAT, DT_INT64},
              &op.node_def);
  AddNodeAttr("output_shapes",
              std::vector<PartialTensorShape>{PartialTensorShape({2}),
                                              PartialTensorShape({-1, 3})},
              &op.node_def);
  INFER_OK(op, "[]", "[2];[?,3]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[1]");
  ShapeInferenceTestOp mismatch = Op("IteratorGetNext");
  AddNodeAttr("output_types", std::vector<DataType>{DT_FLOAT, DT_INT64},
              &mismatch.node_def);
  AddNodeAttr("output_shapes",
              std::vector<PartialTensorShape>{PartialTensorShape({2})},
              &mismatch.node_def);
  INFER_ERROR("`output_shapes` must be the same length as `output_types` (1 "
              "vs. 2",
              mismatch, "[]");
}

TEST(MergeBothInputsShapeFnTest, MergesTheInputs) {
  ShapeInferenceTestOp op = Op("MergeBoth");
  INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
  INFER_OK(op, "?;[1]", "in1");
  INFER_OK(op, "[1,2];?", "in0");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
              "[2];[3]");
  INFER_ERROR("Shapes must be equal rank, but are 1 and 2", op, "[2];[2,3]");
}

TEST(BatchMatMulShapeTest, SameBatchDimensions) {
  ShapeInferenceTestOp op = Op("BatchMatMul");
  INFER_OK(op, "[2,3,4];[2,4,5]", "[d0_0,d0_1,d1_2]");
  INFER_OK(op, "[2,3,4];[?,4,5]", "[d0_0,d0_1,d1_2]");
  // No broadcasting, unlike BatchMatMulV2.
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 1 and 2", op,
              "[1,3,4];[2,4,5]");
  INFER_ERROR("Dimensions must be equal, but are 4 and 3", op,
              "[2,3,4];[2,3,5]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[3];[2,4,5]");
  AddNodeAttr("adj_x", true, &op.node_def);
  INFER_OK(op, "[2,4,3];[2,4,5]", "[d0_0,d0_2,d1_2]");
}

TEST(QuantizedConcatV2ShapeTest, AxisAfterTheValues) {
  ShapeInferenceTestOp op = Op("QuantizedConcatV2");
  AddNodeAttr("N", 2, &op.node_def);
  AddNodeAttr("T", DT_QUINT8, &op.node_def);
  Tensor axis(static_cast<int32>(1));
  op.input_tensors = {nullptr, nullptr, &axis, nullptr, nullptr, nullptr,
                      nullptr};
  INFER_OK(op, "[2,3];[2,4];[];[];[];[];[]", "[d0_0,7]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 5", op,
              "[2,3];[5,4];[];[];[];[];[]");
}

TEST(MakeShapeFromFormatTest, BatchSpatialAndChannels) {
  INFER_OK(Op("Format"), "[7,8]", "[1,4,2,3];[d0_0,5,d0_1]");
}

TEST(ValidateVariableResourceHandleTest, ChecksTheDtype) {
  std::vector<std::pair<PartialTensorShape, DataType>> handle = {
      {PartialTensorShape({2, 3}), DT_FLOAT}};
  ShapeInferenceTestOp op = Op("ReadVariableOp");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  op.input_resource_handle_shapes_and_types = {&handle};
  INFER_OK(op, "[]", "[2,3]");
  ShapeInferenceTestOp wrong = Op("ReadVariableOp");
  AddNodeAttr("dtype", DT_INT32, &wrong.node_def);
  wrong.input_resource_handle_shapes_and_types = {&handle};
  INFER_ERROR("Trying to read variable with wrong dtype. Expected float got "
              "int32",
              wrong, "[]");
  ShapeInferenceTestOp no_handle = Op("ReadVariableOp");
  AddNodeAttr("dtype", DT_FLOAT, &no_handle.node_def);
  INFER_OK(no_handle, "[]", "?");
}

TEST(InferenceContextDebugStringTest, NamesTheNode) {
  const OpRegistrationData* reg = nullptr;
  ASSERT_TRUE(IndexingOps().LookUp("MergeBoth", &reg).ok());
  NodeDef node;
  node.set_name("merge_node");
  node.set_op("MergeBoth");
  node.add_input("a");
  node.add_input("b");
  AddNodeAttr("T", DT_FLOAT, &node);
  InferenceContext c(0, node, reg->op_def,
                     std::vector<PartialTensorShape>{PartialTensorShape({2}),
                                                     PartialTensorShape()},
                     {});
  ASSERT_TRUE(c.construction_status().ok());
  EXPECT_THAT(c.DebugString(),
              ::testing::StartsWith("InferenceContext for node: "));
  EXPECT_THAT(c.DebugString(), ::testing::HasSubstr("merge_node"));
  EXPECT_THAT(c.DebugString(), ::testing::HasSubstr("MergeBoth"));
  EXPECT_EQ(c.DebugString(c.input(0)), "[2]");
  EXPECT_EQ(c.DebugString(c.input(1)), "?");
  EXPECT_EQ(c.DebugString(c.Dim(c.input(0), 0)), "2");
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

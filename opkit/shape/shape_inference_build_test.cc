// Tests of InferenceContext's making of shapes: builders, Subshape,
// Concatenate, ReplaceDim, shapes from values and from constant tensors,
// scalars read from tensors.
#include "opkit/shape/shape_inference.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/testing/inference_context_test_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using shape_test::InferenceContextTest;
using shape_test::Int32Vector;
using shape_test::kI64Max;

TEST_F(InferenceContextTest, Builders) {
  auto c = Make({PartialTensorShape({2}), PartialTensorShape()});
  EXPECT_EQ("[]", c->DebugString(c->Scalar()));
  EXPECT_EQ("[3]", c->DebugString(c->Vector(3)));
  EXPECT_EQ("[?]", c->DebugString(c->Vector(InferenceContext::kUnknownDim)));
  EXPECT_EQ("[2,?]", c->DebugString(c->Matrix(2, c->UnknownDim())));
  DimensionHandle d = c->Dim(c->input(0), 0);
  EXPECT_TRUE(c->Dim(c->Vector(d), 0).SameHandle(d));
  EXPECT_TRUE(c->MakeDim(d).SameHandle(d));
  EXPECT_EQ(7, c->Value(c->MakeDim(7)));
  // Negative sizes other than -1 become unknown rather than invalid dims.
  EXPECT_FALSE(c->ValueKnown(c->MakeDim(-9)));
  EXPECT_EQ("[?,4]", c->DebugString(c->MakeShape({-5, 4})));
  EXPECT_EQ("[?,?]", c->DebugString(c->MakeShape(std::vector<DimensionHandle>(2))));
  EXPECT_EQ("?", c->DebugString(c->UnknownShape()));
  EXPECT_FALSE(c->UnknownShape().SameHandle(c->UnknownShape()));
  EXPECT_EQ("[?,?,?]", c->DebugString(c->UnknownShapeOfRank(3)));
  EXPECT_EQ("?", c->DebugString(c->UnknownShapeOfRank(-1)));
  EXPECT_EQ("?", c->DebugString(c->UnknownShapeOfRank(kI64Max)));
  EXPECT_FALSE(c->UnknownDim().SameHandle(c->UnknownDim()));
}

TEST_F(InferenceContextTest, Subshape) {
  auto c = Make({PartialTensorShape({1, 2, 3, 4}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->Subshape(s, 0, &out));
  EXPECT_TRUE(out.SameHandle(s));
  OPKIT_EXPECT_OK(c->Subshape(s, 1, &out));
  EXPECT_EQ("[2,3,4]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(s, 1)));
  OPKIT_EXPECT_OK(c->Subshape(s, -2, &out));
  EXPECT_EQ("[3,4]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 1, 3, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 1, -1, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 10, &out));
  EXPECT_EQ("[]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 0, 100, &out));
  EXPECT_TRUE(out.SameHandle(s));
  OPKIT_EXPECT_OK(c->Subshape(s, 0, 4, 2, &out));
  EXPECT_EQ("[1,3]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, -1, -5, -1, &out));
  EXPECT_EQ("[4,3,2,1]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 3, 0, -2, &out));
  EXPECT_EQ("[4,2]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 0, 4, kI64Max, &out));
  EXPECT_EQ("[1]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(c->input(1), 2, &out));
  EXPECT_FALSE(c->RankKnown(out));
  OPKIT_EXPECT_OK(c->Subshape(c->input(1), 0, &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));

  EXPECT_THAT(c->Subshape(s, -5, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Subshape start out of bounds: -5, for shape with rank 4")));
  EXPECT_FALSE(out.IsSet());
  EXPECT_THAT(c->Subshape(s, 0, -6, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Subshape end out of bounds: -6, for shape with rank 4")));
  EXPECT_THAT(c->Subshape(s, 3, 1, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Subshape must have computed start <= end, but is 3 and 1")));
  EXPECT_THAT(c->Subshape(s, 1, 3, -1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("stride is negative")));
  EXPECT_THAT(c->Subshape(s, 0, 2, 0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("stride must not be 0")));
  EXPECT_THAT(c->Subshape(s, std::numeric_limits<int64_t>::min(), &out),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, ConcatenateAndReplaceDim) {
  auto c = Make({PartialTensorShape({1, 2}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->Concatenate(s, c->Vector(3), &out));
  EXPECT_EQ("[1,2,3]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(s, 1)));
  OPKIT_EXPECT_OK(c->Concatenate(s, c->input(1), &out));
  EXPECT_FALSE(c->RankKnown(out));
  OPKIT_EXPECT_OK(c->Concatenate(c->input(1), s, &out));
  EXPECT_FALSE(c->RankKnown(out));
  ShapeHandle big = c->UnknownShapeOfRank(200);
  EXPECT_THAT(c->Concatenate(big, big, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("more than the maximum")));

  OPKIT_EXPECT_OK(c->ReplaceDim(s, 0, c->MakeDim(9), &out));
  EXPECT_EQ("[9,2]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(s, 1)));
  OPKIT_EXPECT_OK(c->ReplaceDim(s, -1, c->UnknownDim(), &out));
  EXPECT_EQ("[1,?]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->ReplaceDim(c->input(1), 5, c->MakeDim(9), &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->ReplaceDim(s, 2, c->MakeDim(9), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Out of range dim_index 2 for shape with 2 dimensions")));
  EXPECT_THAT(c->ReplaceDim(s, -3, c->MakeDim(9), &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->ReplaceDim(s, std::numeric_limits<int64_t>::min(), c->MakeDim(9), &out),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, ShapesFromValues) {
  auto c = Make({PartialTensorShape(), PartialTensorShape()});
  ShapeHandle out;
  TensorShapeProto proto;
  proto.add_dim()->set_size(3);
  proto.add_dim()->set_size(-1);
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeProto(proto, &out));
  EXPECT_EQ("[3,?]", c->DebugString(out));
  TensorShapeProto unknown;
  unknown.set_unknown_rank(true);
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeProto(unknown, &out));
  EXPECT_FALSE(c->RankKnown(out));
  TensorShapeProto bad;
  bad.add_dim()->set_size(-2);
  EXPECT_THAT(c->MakeShapeFromShapeProto(bad, &out), StatusIs(error::INVALID_ARGUMENT));
  bad.Clear();
  bad.set_unknown_rank(true);
  bad.add_dim()->set_size(2);
  EXPECT_THAT(c->MakeShapeFromShapeProto(bad, &out), StatusIs(error::INVALID_ARGUMENT));

  OPKIT_EXPECT_OK(c->MakeShapeFromPartialTensorShape(PartialTensorShape({-1, 5}), &out));
  EXPECT_EQ("[?,5]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->MakeShapeFromPartialTensorShape(PartialTensorShape(), &out));
  EXPECT_FALSE(c->RankKnown(out));
  OPKIT_EXPECT_OK(c->MakeShapeFromTensorShape(TensorShape({4, 5}), &out));
  EXPECT_EQ("[4,5]", c->DebugString(out));

  TensorShapeProto back;
  c->ShapeHandleToProto(c->MakeShape({2, -1}), &back);
  ASSERT_EQ(2, back.dim_size());
  EXPECT_EQ(2, back.dim(0).size());
  EXPECT_EQ(-1, back.dim(1).size());
  c->ShapeHandleToProto(c->UnknownShape(), &back);
  EXPECT_TRUE(back.unknown_rank());
  EXPECT_EQ("[2,?]", c->ShapeHandleToPartialTensorShape(c->MakeShape({2, -1})).DebugString());
  EXPECT_TRUE(c->ShapeHandleToPartialTensorShape(ShapeHandle()).unknown_rank());
}

TEST_F(InferenceContextTest, MakeShapeFromShapeTensor) {
  Tensor shape_tensor = Int32Vector({2, -1, 0});
  auto c = Make({PartialTensorShape({3}), PartialTensorShape({2})}, {&shape_tensor});
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ("[2,?,0]", c->DebugString(out));
  EXPECT_TRUE(c->requested_input_tensor(0));
  EXPECT_TRUE(c->requested_input_tensor_as_partial_shape(0));
  // Not known: as many unknown dims as the vector is long.
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeTensor(1, &out));
  EXPECT_EQ("[?,?]", c->DebugString(out));
  EXPECT_FALSE(c->requested_input_tensor(5));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(2, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(-1, &out), StatusIs(error::INVALID_ARGUMENT));

  // Unknown length: unknown shape.
  auto c2 = Make({PartialTensorShape({-1}), PartialTensorShape()});
  OPKIT_EXPECT_OK(c2->MakeShapeFromShapeTensor(0, &out));
  EXPECT_FALSE(c2->RankKnown(out));
  OPKIT_EXPECT_OK(c2->MakeShapeFromShapeTensor(1, &out));
  EXPECT_FALSE(c2->RankKnown(out));

  // Wrong rank of the input.
  auto c3 = Make({PartialTensorShape({2, 2}), PartialTensorShape()});
  EXPECT_THAT(c3->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 1 but is rank 2")));

  // A huge unknown vector length does not allocate a huge shape.
  auto c4 = Make({PartialTensorShape({int64_t{1} << 40}), PartialTensorShape()});
  EXPECT_THAT(c4->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("maximum rank")));

  // Bad dtype and values.
  Tensor floats(DT_FLOAT, TensorShape({2}));
  floats.flat<float>().setZero();
  auto c5 = Make({PartialTensorShape({2}), PartialTensorShape()}, {&floats});
  EXPECT_THAT(c5->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input tensor must be int32 or int64, but was float")));
  Tensor negative = Int32Vector({2, -2});
  auto c6 = Make({PartialTensorShape({2}), PartialTensorShape()}, {&negative});
  EXPECT_THAT(c6->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Invalid value in tensor used for shape: -2")));
  // The tensor disagrees with the input's rank: the tensor's own rank is checked.
  Tensor matrix(DT_INT64, TensorShape({1, 1}));
  matrix.flat<int64>()(0) = 1;
  auto c7 = Make({PartialTensorShape(), PartialTensorShape()}, {&matrix});
  EXPECT_THAT(c7->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be rank 1, but was rank 2")));
  Tensor too_long(DT_INT64, TensorShape({300}));
  too_long.flat<int64>().setZero();
  auto c8 = Make({PartialTensorShape({300}), PartialTensorShape()}, {&too_long});
  EXPECT_THAT(c8->MakeShapeFromShapeTensor(0, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, MakeShapeFromShapeTensorTreatScalarAsUnknown) {
  Tensor minus_one(int32{-1});
  Tensor five(int64{5});
  auto c = Make({PartialTensorShape({}), PartialTensorShape({})}, {&minus_one, &five});
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(0, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("it must have value -1")));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 1")));
  auto c2 = Make({PartialTensorShape({}), PartialTensorShape({2, 2})});
  OPKIT_EXPECT_OK(c2->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(0, &out));
  EXPECT_FALSE(c2->RankKnown(out));
  EXPECT_THAT(c2->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("at most rank 1")));
}

TEST_F(InferenceContextTest, InputTensorsAsShapes) {
  OpDef op = op_def_;
  NodeDef node = node_;
  InferenceContext c(0, node, op,
                     std::vector<PartialTensorShape>{PartialTensorShape({2}), PartialTensorShape()},
                     {}, std::vector<PartialTensorShape>{PartialTensorShape({-1, 7})});
  ASSERT_THAT(c.construction_status(), IsOk());
  ShapeHandle out;
  OPKIT_EXPECT_OK(c.MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ("[?,7]", c.DebugString(out));
  EXPECT_TRUE(out.SameHandle(c.input_tensors_as_shapes()[0]));
  // Shown in the error context.
  Status s = c.Run([](InferenceContext* ic) {
    ShapeHandle unused;
    OPKIT_RETURN_IF_ERROR(ic->MakeShapeFromShapeTensor(0, &unused));
    return errors::InvalidArgument("boom");
  });
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("and with input tensors computed as partial shapes: "
                                    "input[0] = [?,7].")));
  c.set_input_tensors_as_shapes({});
  EXPECT_EQ(2u, c.input_tensors_as_shapes().size());
}

TEST_F(InferenceContextTest, ScalarsFromTensors) {
  Tensor i32(int32{7});
  Tensor i64(int64{-3});
  Tensor f(1.0f);
  Tensor vec = Int32Vector({4, 5});
  auto c = Make({PartialTensorShape({}), PartialTensorShape({})}, {&i32, &i64});
  int64_t v = 0;
  OPKIT_EXPECT_OK(c->GetScalarFromTensor(&i32, &v));
  EXPECT_EQ(7, v);
  OPKIT_EXPECT_OK(c->GetScalarFromTensor(&i64, &v));
  EXPECT_EQ(-3, v);
  EXPECT_THAT(c->GetScalarFromTensor(&f, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Scalar input must be int32 or int64")));
  EXPECT_THAT(c->GetScalarFromTensor(&vec, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input must be scalar but has rank 1")));
  EXPECT_THAT(c->GetScalarFromTensor(nullptr, &v), StatusIs(error::INVALID_ARGUMENT));
  OPKIT_EXPECT_OK(c->GetScalarFromTensor(&vec, 1, &v));
  EXPECT_EQ(5, v);
  EXPECT_THAT(c->GetScalarFromTensor(&vec, 2, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Invalid index 2")));
  EXPECT_THAT(c->GetScalarFromTensor(&vec, -1, &v), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->GetScalarFromTensor(&i32, 0, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input must be 1D")));

  DimensionHandle d;
  OPKIT_EXPECT_OK(c->MakeDimForScalarInput(0, &d));
  EXPECT_EQ(7, c->Value(d));
  EXPECT_THAT(c->MakeDimForScalarInput(1, &d),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be non-negative but is -3")));
  OPKIT_EXPECT_OK(c->MakeDimForScalarInputWithNegativeIndexing(1, 4, &d));
  EXPECT_EQ(1, c->Value(d));
  OPKIT_EXPECT_OK(c->MakeDimForScalarInputWithNegativeIndexing(1, -1, &d));
  EXPECT_FALSE(c->ValueKnown(d));
  EXPECT_THAT(c->MakeDimForScalarInputWithNegativeIndexing(1, 2, &d),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be in range [-2, 2)")));
  EXPECT_THAT(c->MakeDimForScalarInputWithNegativeIndexing(0, 7, &d),
              StatusIs(error::INVALID_ARGUMENT));

  auto c2 = Make({PartialTensorShape({}), PartialTensorShape({})});
  OPKIT_EXPECT_OK(c2->MakeDimForScalarInput(0, &d));
  EXPECT_FALSE(c2->ValueKnown(d));
  EXPECT_EQ(nullptr, c2->input_tensor(0));
  EXPECT_TRUE(c2->requested_input_tensor(0));
  EXPECT_FALSE(c2->requested_input_tensor(1));
  c2->set_input_tensors({&i32});
  EXPECT_EQ(&i32, c2->input_tensor(0));
  EXPECT_EQ(nullptr, c2->input_tensor(1));
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

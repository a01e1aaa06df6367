// Tests of InferenceContext's dimension arithmetic and validators.
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

using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using shape_test::InferenceContextTest;
using shape_test::kI64Max;

TEST_F(InferenceContextTest, Arithmetic) {
  auto c = Make({PartialTensorShape({6, -1, 0, 1}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  DimensionHandle six = c->Dim(s, 0);
  DimensionHandle unk = c->Dim(s, 1);
  DimensionHandle zero = c->Dim(s, 2);
  DimensionHandle one = c->Dim(s, 3);
  DimensionHandle out;

  // Add.
  OPKIT_EXPECT_OK(c->Add(six, 4, &out));
  EXPECT_EQ(10, c->Value(out));
  OPKIT_EXPECT_OK(c->Add(six, 0, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Add(zero, six, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Add(unk, 3, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  OPKIT_EXPECT_OK(c->Add(six, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Add(six, kI64Max, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Dimension size overflow from adding")));
  EXPECT_THAT(c->Add(six, -5, &out), StatusIs(error::INVALID_ARGUMENT));

  // Subtract.
  OPKIT_EXPECT_OK(c->Subtract(six, 2, &out));
  EXPECT_EQ(4, c->Value(out));
  OPKIT_EXPECT_OK(c->Subtract(six, 0, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Subtract(unk, 2, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Subtract(c->MakeDim(3), 5, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Negative dimension size caused by subtracting 5 from 3")));
  EXPECT_THAT(c->Subtract(six, std::numeric_limits<int64_t>::min(), &out),
              StatusIs(error::INVALID_ARGUMENT));

  // Multiply.
  OPKIT_EXPECT_OK(c->Multiply(six, 3, &out));
  EXPECT_EQ(18, c->Value(out));
  OPKIT_EXPECT_OK(c->Multiply(zero, unk, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  OPKIT_EXPECT_OK(c->Multiply(unk, 0, &out));
  EXPECT_EQ(0, c->Value(out));
  OPKIT_EXPECT_OK(c->Multiply(one, unk, &out));
  EXPECT_TRUE(out.SameHandle(unk));
  OPKIT_EXPECT_OK(c->Multiply(six, 1, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Multiply(six, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Multiply(six, kI64Max, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Negative dimension size caused by overflow when multiplying")));

  // Divide.
  OPKIT_EXPECT_OK(c->Divide(six, 3, true, &out));
  EXPECT_EQ(2, c->Value(out));
  OPKIT_EXPECT_OK(c->Divide(six, 1, true, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Divide(c->MakeDim(7), 3, false, &out));
  EXPECT_EQ(2, c->Value(out));
  EXPECT_THAT(c->Divide(c->MakeDim(7), 3, true, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimension size must be evenly divisible by 3 but is 7")));
  EXPECT_THAT(c->Divide(six, 0, false, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Divisor must be positive but is 0")));
  EXPECT_THAT(c->Divide(six, -4, false, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->Divide(six, -1, false, &out), StatusIs(error::INVALID_ARGUMENT));
  OPKIT_EXPECT_OK(c->Divide(unk, 2, true, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  OPKIT_EXPECT_OK(c->Divide(six, unk, true, &out));
  EXPECT_FALSE(c->ValueKnown(out));

  // Min / Max.
  OPKIT_EXPECT_OK(c->Min(six, 4, &out));
  EXPECT_EQ(4, c->Value(out));
  OPKIT_EXPECT_OK(c->Min(six, 9, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Min(zero, unk, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  OPKIT_EXPECT_OK(c->Min(unk, 0, &out));
  EXPECT_EQ(0, c->Value(out));
  OPKIT_EXPECT_OK(c->Min(six, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  OPKIT_EXPECT_OK(c->Max(six, 4, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Max(six, 9, &out));
  EXPECT_EQ(9, c->Value(out));
  OPKIT_EXPECT_OK(c->Max(zero, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Max(six, -7, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->Min(six, -7, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, Validators) {
  auto c = Make({PartialTensorShape({-1, 3}), PartialTensorShape()});
  EXPECT_THAT(c->ValidateKnownDim(c->Dim(c->input(0), 0), "batch"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Cannot infer shape because dimension batch is not known.")));
  OPKIT_EXPECT_OK(c->ValidateKnownDim(c->Dim(c->input(0), 1), "depth"));
  OPKIT_EXPECT_OK(c->ValidateSparseTensor(c->Matrix(4, 2), c->Vector(4), c->Vector(2)));
  EXPECT_THAT(c->ValidateSparseTensor(c->Matrix(4, 2), c->Vector(5), c->Vector(2)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Number of elements in index (4) and values (5) do not match")));
  EXPECT_THAT(c->ValidateSparseTensor(c->Matrix(4, 2), c->Vector(4), c->Vector(3)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Index rank (2) and shape rank (3) do not match")));
  EXPECT_THAT(c->ValidateSparseTensor(c->Vector(4), c->Vector(4), c->Vector(3)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 2")));
  OPKIT_EXPECT_OK(
      c->ValidateSparseTensor(c->UnknownShape(), c->UnknownShape(), c->UnknownShape()));
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

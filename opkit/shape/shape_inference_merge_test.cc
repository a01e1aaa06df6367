// Tests of InferenceContext's reading and narrowing of shapes: Rank, Dim,
// NumElements, WithRank*, WithValue, Merge, MergePrefix, Relax.
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

TEST_F(InferenceContextTest, RankAndDims) {
  auto c = Make({PartialTensorShape({2, -1, 4}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  EXPECT_EQ(3, c->Rank(s));
  EXPECT_TRUE(c->RankKnown(s));
  EXPECT_EQ(InferenceContext::kUnknownRank, c->Rank(c->input(1)));
  EXPECT_FALSE(c->RankKnown(c->input(1)));
  EXPECT_EQ(2, c->Value(c->Dim(s, 0)));
  EXPECT_EQ(4, c->Value(c->Dim(s, -1)));
  EXPECT_TRUE(c->Dim(s, -3).SameHandle(c->Dim(s, 0)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, 1)));
  EXPECT_TRUE(c->ValueKnown(c->Dim(s, 2)));
  // Out of range and unknown rank: a fresh unknown dimension, never a crash.
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, 3)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, -4)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, kI64Max)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, std::numeric_limits<int64_t>::min())));
  EXPECT_TRUE(c->Dim(c->input(1), 0).IsSet());
  EXPECT_FALSE(c->ValueKnown(c->Dim(c->input(1), 0)));
  EXPECT_TRUE(InferenceContext::DimKnownRank(s, 2).SameHandle(c->Dim(s, 2)));
  EXPECT_FALSE(InferenceContext::DimKnownRank(s, 7).IsSet());
  EXPECT_FALSE(InferenceContext::DimKnownRank(c->input(1), 0).IsSet());
  // Unset handles read as unknown.
  EXPECT_EQ(InferenceContext::kUnknownRank, InferenceContext::Rank(ShapeHandle()));
  EXPECT_EQ(InferenceContext::kUnknownDim, InferenceContext::Value(DimensionHandle()));
  EXPECT_EQ(5, InferenceContext::Value(5));
}

TEST_F(InferenceContextTest, FullyDefinedAndNumElements) {
  auto c = Make({PartialTensorShape({2, 3, 4}), PartialTensorShape({2, -1})});
  EXPECT_TRUE(c->FullyDefined(c->input(0)));
  EXPECT_FALSE(c->FullyDefined(c->input(1)));
  EXPECT_FALSE(c->FullyDefined(c->UnknownShape()));
  EXPECT_TRUE(c->FullyDefined(c->Scalar()));
  EXPECT_EQ(24, c->Value(c->NumElements(c->input(0))));
  EXPECT_EQ(1, c->Value(c->NumElements(c->Scalar())));
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->input(1))));
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->UnknownShape())));
  // An element count that overflows int64 is unknown, not wrapped.
  ShapeHandle huge = c->MakeShape({kI64Max, 4});
  EXPECT_FALSE(c->ValueKnown(c->NumElements(huge)));
}

TEST_F(InferenceContextTest, WithRank) {
  auto c = Make({PartialTensorShape({1, 2}), PartialTensorShape()});
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->WithRank(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  EXPECT_THAT(c->WithRank(c->input(0), 3, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 3 but is rank 2")));
  EXPECT_FALSE(out.IsSet());
  OPKIT_EXPECT_OK(c->WithRank(c->input(1), 3, &out));
  EXPECT_EQ("[?,?,?]", c->DebugString(out));
  EXPECT_THAT(c->WithRank(c->input(1), -1, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->WithRank(c->input(1), kI64Max, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Rank must be between 0 and 254")));

  OPKIT_EXPECT_OK(c->WithRankAtLeast(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  OPKIT_EXPECT_OK(c->WithRankAtLeast(c->input(0), 0, &out));
  EXPECT_THAT(c->WithRankAtLeast(c->input(0), 3, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shape must be at least rank 3 but is rank 2")));
  OPKIT_EXPECT_OK(c->WithRankAtLeast(c->input(1), 5, &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  EXPECT_THAT(c->WithRankAtLeast(c->input(1), 1000, &out), StatusIs(error::INVALID_ARGUMENT));

  OPKIT_EXPECT_OK(c->WithRankAtMost(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  EXPECT_THAT(c->WithRankAtMost(c->input(0), 1, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shape must be at most rank 1 but is rank 2")));
  OPKIT_EXPECT_OK(c->WithRankAtMost(c->input(1), 1, &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  EXPECT_THAT(c->WithRankAtMost(c->input(1), -3, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, WithValue) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  DimensionHandle d0 = c->Dim(c->input(0), 0);
  DimensionHandle d1 = c->Dim(c->input(0), 1);
  DimensionHandle out;
  OPKIT_EXPECT_OK(c->WithValue(d0, 2, &out));
  EXPECT_TRUE(out.SameHandle(d0));
  EXPECT_THAT(c->WithValue(d0, 3, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Dimension must be 3 but is 2")));
  EXPECT_FALSE(out.IsSet());
  OPKIT_EXPECT_OK(c->WithValue(d1, 5, &out));
  EXPECT_EQ(5, c->Value(out));
  EXPECT_FALSE(out.SameHandle(d1));
  EXPECT_THAT(c->WithValue(d1, -2, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, MergeDims) {
  auto c = Make({PartialTensorShape({2, -1, 2, -1, 3}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  DimensionHandle out;
  // known + unknown -> the known one.
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 0), c->Dim(s, 1), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 0)));
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 1), c->Dim(s, 0), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 0)));
  // two unknowns -> the first.
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 1), c->Dim(s, 3), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 1)));
  // equal values -> the first.
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 2), c->Dim(s, 0), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 2)));
  EXPECT_THAT(c->Merge(c->Dim(s, 0), c->Dim(s, 4), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimensions must be equal, but are 2 and 3")));
  EXPECT_FALSE(out.IsSet());
  // Unset handles merge as unknowns.
  OPKIT_EXPECT_OK(c->Merge(DimensionHandle(), DimensionHandle(), &out));
  EXPECT_TRUE(out.IsSet());
  EXPECT_FALSE(c->ValueKnown(out));
}

TEST_F(InferenceContextTest, MergeShapes) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  ShapeHandle a = c->input(0);
  ShapeHandle unknown = c->input(1);
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->Merge(a, unknown, &out));
  EXPECT_TRUE(out.SameHandle(a));
  OPKIT_EXPECT_OK(c->Merge(unknown, a, &out));
  EXPECT_TRUE(out.SameHandle(a));
  OPKIT_EXPECT_OK(c->Merge(a, a, &out));
  EXPECT_TRUE(out.SameHandle(a));

  // s1 more specific in every dim -> s1 itself.
  ShapeHandle b = c->MakeShape({c->Dim(a, 0), 3});
  OPKIT_EXPECT_OK(c->Merge(a, b, &out));
  EXPECT_TRUE(out.SameHandle(b));
  // Each more specific somewhere -> a new shape reusing the known dims.
  ShapeHandle d = c->MakeShape({-1, 3});
  OPKIT_EXPECT_OK(c->Merge(a, d, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(a, 0)));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(d, 1)));

  EXPECT_THAT(c->Merge(a, c->Vector(2), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shapes must be equal rank, but are 2 and 1")));
  EXPECT_FALSE(out.IsSet());
  EXPECT_THAT(c->Merge(a, c->Matrix(4, 3), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimension 0 in both shapes must be equal, but are 2 and 4. "
                                 "Shapes are [2,?] and [4,3].")));
}

TEST_F(InferenceContextTest, MergePrefix) {
  auto c = Make({PartialTensorShape({2, -1, 4}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  ShapeHandle s_out, p_out;
  ShapeHandle prefix = c->MakeShape({-1, 3});
  OPKIT_EXPECT_OK(c->MergePrefix(s, prefix, &s_out, &p_out));
  EXPECT_EQ("[2,3,4]", c->DebugString(s_out));
  EXPECT_EQ("[2,3]", c->DebugString(p_out));
  EXPECT_TRUE(c->Dim(s_out, 0).SameHandle(c->Dim(s, 0)));
  EXPECT_TRUE(c->Dim(s_out, 2).SameHandle(c->Dim(s, 2)));

  OPKIT_EXPECT_OK(c->MergePrefix(c->input(1), prefix, &s_out, &p_out));
  EXPECT_TRUE(s_out.SameHandle(c->input(1)));
  EXPECT_TRUE(p_out.SameHandle(prefix));

  EXPECT_THAT(c->MergePrefix(s, c->MakeShape({1, 2, 3, 4}), &s_out, &p_out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be at least rank 4")));
  EXPECT_THAT(c->MergePrefix(s, c->MakeShape({5}), &s_out, &p_out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Dimensions must be equal")));
}

TEST_F(InferenceContextTest, Relax) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  ShapeHandle a = c->input(0);
  ShapeHandle out;
  c->Relax(a, a, &out);
  EXPECT_TRUE(out.SameHandle(a));
  c->Relax(a, c->input(1), &out);
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  c->Relax(c->input(1), a, &out);
  EXPECT_FALSE(c->RankKnown(out));
  c->Relax(a, c->Vector(2), &out);
  EXPECT_FALSE(c->RankKnown(out));
  c->Relax(a, c->MakeShape({2, 7}), &out);
  EXPECT_EQ("[2,?]", c->DebugString(out));
  c->Relax(a, c->MakeShape({3, -1}), &out);
  EXPECT_EQ("[?,?]", c->DebugString(out));
  EXPECT_FALSE(c->Dim(out, 0).SameHandle(c->Dim(a, 0)));

  DimensionHandle d;
  c->Relax(c->Dim(a, 0), c->MakeDim(2), &d);
  EXPECT_TRUE(d.SameHandle(c->Dim(a, 0)));
  c->Relax(c->Dim(a, 0), c->MakeDim(3), &d);
  EXPECT_FALSE(c->ValueKnown(d));
  c->Relax(c->Dim(a, 1), c->UnknownDim(), &d);
  EXPECT_TRUE(d.SameHandle(c->Dim(a, 1)));
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

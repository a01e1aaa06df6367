// Tests of TensorShape, PartialTensorShape and TensorShapeUtils.
#include "opkit/tensor/tensor_shape.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kBig = int64_t{1} << 40;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TensorShapeProto ProtoOf(const std::vector<int64_t>& dims) {
  TensorShapeProto p;
  for (int64_t d : dims) p.add_dim()->set_size(d);
  return p;
}

TEST(TensorShapeTest, ScalarAndBasics) {
  TensorShape s;
  EXPECT_EQ(s.dims(), 0);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_EQ(s.DebugString(), "[]");

  TensorShape m({2, 3});
  EXPECT_EQ(m.dims(), 2);
  EXPECT_EQ(m.dim_size(0), 2);
  EXPECT_EQ(m.dim_size(1), 3);
  EXPECT_THAT(m.dim_sizes(), ElementsAre(2, 3));
  EXPECT_EQ(m.num_elements(), 6);
  EXPECT_EQ(m.DebugString(), "[2,3]");

  TensorShape z({4, 0, 5});
  EXPECT_EQ(z.num_elements(), 0);
  std::vector<int64_t> seen;
  for (auto d : m) seen.push_back(d.size);
  EXPECT_THAT(seen, ElementsAre(2, 3));
}

TEST(TensorShapeTest, Mutators) {
  TensorShape s({2, 3});
  s.AddDim(4);
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  EXPECT_EQ(s.num_elements(), 24);
  s.InsertDim(0, 5);
  EXPECT_EQ(s.DebugString(), "[5,2,3,4]");
  s.InsertDim(4, 1);
  EXPECT_EQ(s.DebugString(), "[5,2,3,4,1]");
  s.set_dim(1, 7);
  EXPECT_EQ(s.DebugString(), "[5,7,3,4,1]");
  EXPECT_EQ(s.num_elements(), 420);
  s.RemoveDim(0);
  EXPECT_EQ(s.DebugString(), "[7,3,4,1]");
  s.RemoveDimRange(1, 3);
  EXPECT_EQ(s.DebugString(), "[7,1]");
  s.RemoveLastDims(1);
  EXPECT_EQ(s.DebugString(), "[7]");
  s.AppendShape(TensorShape({2, 2}));
  EXPECT_EQ(s.DebugString(), "[7,2,2]");
  EXPECT_EQ(s.num_elements(), 28);
  s.Clear();
  EXPECT_EQ(s.DebugString(), "[]");
  EXPECT_EQ(s.num_elements(), 1);
}

TEST(TensorShapeTest, RemoveDimRangeNegative) {
  TensorShape s({1, 2, 3, 4});
  s.RemoveDimRange(-3, -1);  // Drops dims 2 and 3 ([-3, -1) from the end).
  EXPECT_EQ(s.DebugString(), "[1,2]");
}

TEST(TensorShapeTest, Equality) {
  EXPECT_EQ(TensorShape({2, 3}), TensorShape({2, 3}));
  EXPECT_NE(TensorShape({2, 3}), TensorShape({3, 2}));
  EXPECT_NE(TensorShape({2}), TensorShape({2, 1}));
  EXPECT_TRUE(TensorShape({}).IsSameSize(TensorShape()));
}

TEST(TensorShapeTest, BuildTensorShape) {
  TensorShape s;
  EXPECT_THAT(TensorShape::BuildTensorShape({2, 3, 4}, &s), IsOk());
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  const int64_t dims[] = {5, 6};
  EXPECT_THAT(TensorShape::BuildTensorShape(dims, 2, &s), IsOk());
  EXPECT_EQ(s.num_elements(), 30);

  TensorShape keep({9});
  EXPECT_THAT(TensorShape::BuildTensorShape({2, -1}, &keep),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("non-negative, got -1 at index 1 of shape [2,-1]")));
  EXPECT_EQ(keep.DebugString(), "[9]") << "unchanged on error";
  EXPECT_THAT(TensorShape::BuildTensorShape({kBig, kBig}, &keep),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));
  EXPECT_THAT(TensorShape::BuildTensorShape({kMax, 2}, &keep),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));
  // A zero makes the product 0 whatever follows.
  EXPECT_THAT(TensorShape::BuildTensorShape({0, kMax, kMax}, &keep), IsOk());
  EXPECT_EQ(keep.num_elements(), 0);
  std::vector<int64_t> too_many(TensorShape::kMaxDimensions + 1, 1);
  EXPECT_THAT(TensorShape::BuildTensorShape(too_many, &keep),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("at most 254")));
  EXPECT_THAT(TensorShape::BuildTensorShape(dims, -1, &keep),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr(">= 0")));
}

TEST(TensorShapeTest, StatusMutators) {
  TensorShape s({kBig});
  EXPECT_THAT(s.AddDimWithStatus(-3),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected a non-negative size, got -3")));
  EXPECT_THAT(s.AddDimWithStatus(kBig),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Encountered overflow when multiplying")));
  EXPECT_EQ(s.DebugString(), "[1099511627776]") << "unchanged on error";
  EXPECT_THAT(s.AddDimWithStatus(2), IsOk());
  EXPECT_EQ(s.dims(), 2);
  EXPECT_THAT(s.InsertDimWithStatus(5, 1),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("index 5")));
  EXPECT_THAT(s.InsertDimWithStatus(0, -1), StatusIs(error::INVALID_ARGUMENT, HasSubstr("-1")));
  EXPECT_THAT(s.SetDimWithStatus(2, 1), StatusIs(error::INVALID_ARGUMENT, HasSubstr("[0, 2)")));
  EXPECT_THAT(s.SetDimWithStatus(1, kBig), StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63")));
  EXPECT_THAT(s.RemoveDimWithStatus(-1), StatusIs(error::INVALID_ARGUMENT, HasSubstr("dimension -1")));
  EXPECT_EQ(s.DebugString(), "[1099511627776,2]");
  EXPECT_THAT(s.AppendShapeWithStatus(TensorShape({kBig})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("overflow")));
  EXPECT_EQ(s.dims(), 2);
  TensorShape full;
  for (int i = 0; i < TensorShape::kMaxDimensions; ++i) {
    ASSERT_THAT(full.AddDimWithStatus(1), IsOk());
  }
  EXPECT_THAT(full.AddDimWithStatus(1),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Too many dimensions")));
}

TEST(TensorShapeTest, ProtoRoundTripAndValidation) {
  TensorShape s({2, 0, 7});
  TensorShapeProto p = s.AsProto();
  ASSERT_EQ(p.dim_size(), 3);
  EXPECT_EQ(p.dim(2).size(), 7);
  EXPECT_FALSE(p.unknown_rank());
  TensorShape back;
  EXPECT_THAT(TensorShape::FromProto(p, &back), IsOk());
  EXPECT_EQ(back, s);

  TensorShape keep({1});
  EXPECT_FALSE(TensorShape::IsValid(ProtoOf({2, -1})));
  EXPECT_THAT(TensorShape::FromProto(ProtoOf({2, -1}), &keep),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shape [2,-1] has negative dimensions")));
  EXPECT_THAT(TensorShape::IsValidShape(ProtoOf({kBig, kBig})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("is too large (more than 2**63 - 1 entries)")));
  TensorShapeProto unknown;
  unknown.set_unknown_rank(true);
  EXPECT_THAT(TensorShape::FromProto(unknown, &keep),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown rank")));
  TensorShapeProto many;
  for (int i = 0; i < 255; ++i) many.add_dim()->set_size(1);
  EXPECT_THAT(TensorShape::FromProto(many, &keep),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("255 dimensions")));
  EXPECT_EQ(keep.DebugString(), "[1]");
  EXPECT_TRUE(TensorShape::IsValid(ProtoOf({})));
  EXPECT_EQ(TensorShape::DebugString(ProtoOf({3, -1})), "[3,-1]");
}

TEST(PartialTensorShapeTest, Basics) {
  PartialTensorShape unknown;
  EXPECT_TRUE(unknown.unknown_rank());
  EXPECT_EQ(unknown.dims(), -1);
  EXPECT_EQ(unknown.num_elements(), -1);
  EXPECT_EQ(unknown.DebugString(), "<unknown>");
  EXPECT_FALSE(unknown.IsFullyDefined());

  PartialTensorShape p({-1, 3});
  EXPECT_EQ(p.dims(), 2);
  EXPECT_EQ(p.dim_size(0), -1);
  EXPECT_EQ(p.DebugString(), "[?,3]");
  EXPECT_FALSE(p.IsFullyDefined());
  EXPECT_EQ(p.num_elements(), -1);
  TensorShape t;
  EXPECT_FALSE(p.AsTensorShape(&t));

  PartialTensorShape scalar({});
  EXPECT_EQ(scalar.DebugString(), "[]");
  EXPECT_TRUE(scalar.IsFullyDefined());

  PartialTensorShape full({2, 5});
  EXPECT_TRUE(full.IsFullyDefined());
  EXPECT_EQ(full.num_elements(), 10);
  ASSERT_TRUE(full.AsTensorShape(&t));
  EXPECT_EQ(t, TensorShape({2, 5}));
  PartialTensorShape from_full(TensorShape({4}));
  EXPECT_EQ(from_full.DebugString(), "[4]");
}

TEST(PartialTensorShapeTest, Build) {
  PartialTensorShape p;
  EXPECT_THAT(PartialTensorShape::BuildPartialTensorShape({-1, 2}, &p), IsOk());
  EXPECT_EQ(p.DebugString(), "[?,2]");
  EXPECT_THAT(PartialTensorShape::BuildPartialTensorShape({2, -2}, &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be >= -1")));
  EXPECT_THAT(PartialTensorShape::BuildPartialTensorShape({kBig, -1, kBig}, &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));
  EXPECT_EQ(p.DebugString(), "[?,2]");
  EXPECT_THAT(p.AddDimWithStatus(-5), StatusIs(error::INVALID_ARGUMENT, HasSubstr("-5")));
  EXPECT_THAT(p.AddDimWithStatus(-1), IsOk());
  EXPECT_EQ(p.DebugString(), "[?,2,?]");
  PartialTensorShape unknown;
  EXPECT_THAT(unknown.AddDimWithStatus(1),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown rank")));
}

TEST(PartialTensorShapeTest, CompatibilityAndMerge) {
  const PartialTensorShape unknown;
  const PartialTensorShape a({-1, 3});
  const PartialTensorShape b({2, -1});
  const PartialTensorShape c({2, 4});
  const PartialTensorShape d({2, 3, 1});
  EXPECT_TRUE(a.IsCompatibleWith(b));
  EXPECT_TRUE(a.IsCompatibleWith(unknown));
  EXPECT_TRUE(unknown.IsCompatibleWith(d));
  EXPECT_FALSE(a.IsCompatibleWith(c));
  EXPECT_FALSE(a.IsCompatibleWith(d));

  PartialTensorShape merged;
  EXPECT_THAT(a.MergeWith(b, &merged), IsOk());
  EXPECT_EQ(merged.DebugString(), "[2,3]");
  EXPECT_THAT(unknown.MergeWith(b, &merged), IsOk());
  EXPECT_EQ(merged.DebugString(), "[2,?]");
  EXPECT_THAT(b.MergeWith(unknown, &merged), IsOk());
  EXPECT_EQ(merged.DebugString(), "[2,?]");
  EXPECT_THAT(a.MergeWith(c, &merged),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Incompatible shapes during merge: [?,3] vs. [2,4]")));
  EXPECT_THAT(a.MergeWith(d, &merged),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible ranks")));
  // Each side knows a different huge dimension: the merge would overflow.
  EXPECT_THAT(PartialTensorShape({kBig, -1})
                  .MergeWith(PartialTensorShape({-1, kBig}), &merged),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));

  EXPECT_TRUE(a.IsIdenticalTo(PartialTensorShape({-1, 3})));
  EXPECT_FALSE(a.IsIdenticalTo(b));
  EXPECT_TRUE(unknown.IsIdenticalTo(PartialTensorShape()));
  EXPECT_FALSE(unknown.IsIdenticalTo(PartialTensorShape({})));
}

TEST(PartialTensorShapeTest, Concatenate) {
  const PartialTensorShape a({-1, 3});
  EXPECT_EQ(a.Concatenate(5).DebugString(), "[?,3,5]");
  EXPECT_EQ(a.Concatenate(PartialTensorShape({-1})).DebugString(), "[?,3,?]");
  EXPECT_EQ(a.Concatenate(PartialTensorShape()).DebugString(), "<unknown>");
  EXPECT_EQ(PartialTensorShape().Concatenate(2).DebugString(), "<unknown>");
  PartialTensorShape out;
  EXPECT_THAT(PartialTensorShape({kBig}).ConcatenateWithStatus(
                  PartialTensorShape({kBig}), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));
}

TEST(PartialTensorShapeTest, Proto) {
  PartialTensorShape p;
  TensorShapeProto unknown = PartialTensorShape().AsProto();
  EXPECT_TRUE(unknown.unknown_rank());
  EXPECT_EQ(unknown.dim_size(), 0);
  EXPECT_THAT(PartialTensorShape::FromProto(unknown, &p), IsOk());
  EXPECT_TRUE(p.unknown_rank());

  TensorShapeProto partial = PartialTensorShape({-1, 4}).AsProto();
  EXPECT_THAT(PartialTensorShape::FromProto(partial, &p), IsOk());
  EXPECT_EQ(p.DebugString(), "[?,4]");

  EXPECT_THAT(PartialTensorShape::FromProto(ProtoOf({3, -2}), &p),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("has dimensions with values below -1")));
  TensorShapeProto bad = ProtoOf({1});
  bad.set_unknown_rank(true);
  EXPECT_THAT(PartialTensorShape::IsValidShape(bad),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("An unknown shape must not have any dimensions set")));
  EXPECT_FALSE(PartialTensorShape::IsValid(bad));
  EXPECT_THAT(PartialTensorShape::FromProto(ProtoOf({kBig, -1, kBig}), &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too large")));
  EXPECT_EQ(p.DebugString(), "[?,4]") << "unchanged on error";
}

TEST(TensorShapeUtilsTest, Predicates) {
  EXPECT_TRUE(TensorShapeUtils::IsScalar(TensorShape({})));
  EXPECT_FALSE(TensorShapeUtils::IsScalar(TensorShape({1})));
  EXPECT_TRUE(TensorShapeUtils::IsVector(TensorShape({3})));
  EXPECT_TRUE(TensorShapeUtils::IsVectorOrHigher(TensorShape({3, 1})));
  EXPECT_FALSE(TensorShapeUtils::IsVectorOrHigher(TensorShape({})));
  EXPECT_TRUE(TensorShapeUtils::IsMatrix(TensorShape({3, 1})));
  EXPECT_TRUE(TensorShapeUtils::IsSquareMatrix(TensorShape({3, 3})));
  EXPECT_FALSE(TensorShapeUtils::IsSquareMatrix(TensorShape({3, 1})));
  EXPECT_TRUE(TensorShapeUtils::IsMatrixOrHigher(TensorShape({3, 1, 2})));
  EXPECT_FALSE(TensorShapeUtils::IsMatrixOrHigher(TensorShape({3})));
  EXPECT_TRUE(TensorShapeUtils::StartsWith(TensorShape({2, 3, 4}), TensorShape({2, 3})));
  EXPECT_FALSE(TensorShapeUtils::StartsWith(TensorShape({2}), TensorShape({2, 3})));
  EXPECT_TRUE(TensorShapeUtils::EndsWith(TensorShape({2, 3, 4}), TensorShape({3, 4})));
  EXPECT_FALSE(TensorShapeUtils::EndsWith(TensorShape({2, 3, 4}), TensorShape({2, 4})));
}

TEST(TensorShapeUtilsTest, MakeShape) {
  TensorShape s;
  const int32_t d32[] = {2, 3};
  EXPECT_THAT(TensorShapeUtils::MakeShape(d32, 2, &s), IsOk());
  EXPECT_EQ(s.DebugString(), "[2,3]");
  const int64_t d64[] = {4, 0};
  EXPECT_THAT(TensorShapeUtils::MakeShape(d64, 2, &s), IsOk());
  EXPECT_EQ(s.DebugString(), "[4,0]");
  EXPECT_THAT(TensorShapeUtils::MakeShape(std::vector<int32_t>{5}, &s), IsOk());
  EXPECT_EQ(s.DebugString(), "[5]");

  const int32_t neg[] = {2, -1};
  EXPECT_THAT(TensorShapeUtils::MakeShape(neg, 2, &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-negative, got -1")));
  EXPECT_THAT(TensorShapeUtils::MakeShape(std::vector<int64_t>{kBig, kBig}, &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));
  EXPECT_THAT(TensorShapeUtils::MakeShape(static_cast<const int64_t*>(nullptr), 3, &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("null")));
  EXPECT_EQ(s.DebugString(), "[5]");

  PartialTensorShape p;
  EXPECT_THAT(TensorShapeUtils::MakeShape(neg, 2, &p), IsOk());
  EXPECT_EQ(p.DebugString(), "[2,?]");
  const int64_t below[] = {-2};
  EXPECT_THAT(TensorShapeUtils::MakeShape(below, 1, &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr(">= -1")));
}

TEST(TensorShapeTest, AsEigenDSizes) {
  const TensorShape s({2, 3});
  Eigen::DSizes<Eigen::DenseIndex, 2> d = s.AsEigenDSizes<2>();
  EXPECT_EQ(d[0], 2);
  EXPECT_EQ(d[1], 3);
  auto padded = s.AsEigenDSizesWithPadding<4, int>();
  EXPECT_EQ(padded[1], 3);
  EXPECT_EQ(padded[2], 1);
  EXPECT_EQ(padded[3], 1);
}

TEST(PartialTensorShapeTest, MakePartialShape) {
  PartialTensorShape p;
  const int32_t dims[] = {-1, 2};
  EXPECT_THAT(PartialTensorShape::MakePartialShape(dims, 2, &p), IsOk());
  EXPECT_EQ(p.DebugString(), "[?,2]");
  const int64_t bad[] = {-7};
  EXPECT_THAT(PartialTensorShape::MakePartialShape(bad, 1, &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("-7")));
}

TEST(TensorShapeUtilsTest, ShapeListString) {
  EXPECT_EQ(TensorShapeUtils::ShapeListString({}), "[]");
  EXPECT_EQ(TensorShapeUtils::ShapeListString({TensorShape({2, 3}), TensorShape()}),
            "[[2,3], []]");
}

TEST(TensorShapeDeathTest, TrustedLiteralsCheck) {
  EXPECT_DEATH(TensorShape({2, -1}), "Invalid TensorShape literal");
  EXPECT_DEATH(TensorShape({3}).dim_size(1), "out of range");
  EXPECT_DEATH(PartialTensorShape({-2}), "Invalid PartialTensorShape literal");
  EXPECT_DEATH(TensorShape({2}).AsEigenDSizes<2>(), "Asking for tensor of 2");
}

TEST(TensorShapeUtilsTest, MakeShapeFromSpan) {
  TensorShape s;
  const std::vector<int64_t> sizes = {3, 0, 2};
  EXPECT_THAT(TensorShapeUtils::MakeShape(absl::Span<const int64_t>(sizes), &s),
              IsOk());
  EXPECT_EQ(s.DebugString(), "[3,0,2]");
  const int32_t neg[] = {1, -4};
  EXPECT_THAT(TensorShapeUtils::MakeShape(absl::Span<const int32_t>(neg), &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("-4")));
  PartialTensorShape p;
  EXPECT_THAT(TensorShapeUtils::MakeShape(absl::Span<const int32_t>(neg, 1), &p),
              IsOk());
  EXPECT_EQ(p.DebugString(), "[1]");
}

TEST(SliceDebugStringTest, UnflattensRowMajor) {
  // TensorFlow's values: rank 0 prints nothing, rank 1 the index itself.
  EXPECT_EQ(SliceDebugString(TensorShape({}), 0), "");
  EXPECT_EQ(SliceDebugString(TensorShape({7}), 4), "[4]");
  EXPECT_EQ(SliceDebugString(TensorShape({2, 3}), 5), "[1,2]");
  EXPECT_EQ(SliceDebugString(TensorShape({2, 3}), 0), "[0,0]");
  EXPECT_EQ(SliceDebugString(TensorShape({2, 3, 4}), 13), "[1,0,1]");
}

}  // namespace
}  // namespace opkit

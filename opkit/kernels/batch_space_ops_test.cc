// SpaceToBatchND and BatchToSpaceND kernels: TensorFlow's documented
// examples, a numpy-derived case with padding in two block dimensions and
// a remaining dimension, round trips, int64 arguments, empty tensors and
// bad inputs.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using test::AsTensor;
using test::I32;
using test::I64;
using test::Iota;
using test::Values;

using BatchSpaceTest = test::EagerOpTest;

Tensor Pairs(std::initializer_list<int32> v) {
  return AsTensor<int32>(v, TensorShape({static_cast<int64_t>(v.size()) / 2, 2}));
}

// TensorFlow's SpaceToBatchND documentation, block_shape [2, 2].
TEST_F(BatchSpaceTest, SpaceToBatchDocumentedExamples) {
  ASSERT_THAT(Run("SpaceToBatchND", {AsTensor<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1})),
                                     I32({2, 2}), Pairs({0, 0, 0, 0})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 1, 1, 1}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2, 3, 4));
  Tensor x16 = AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
                               TensorShape({1, 4, 4, 1}));
  ASSERT_THAT(Run("SpaceToBatchND", {x16, I32({2, 2}), Pairs({0, 0, 0, 0})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 2, 2, 1}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16));
  Tensor x = AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
                             TensorShape({2, 2, 4, 1}));
  ASSERT_THAT(Run("SpaceToBatchND", {x, I32({2, 2}), Pairs({0, 0, 2, 0})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({8, 1, 3, 1}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13,
                          15, 0, 6, 8, 0, 14, 16));
}

// TensorFlow's BatchToSpaceND documentation: the inverses, and cropping.
TEST_F(BatchSpaceTest, BatchToSpaceDocumentedExamples) {
  ASSERT_THAT(Run("BatchToSpaceND",
                  {AsTensor<float>({1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16},
                                   TensorShape({4, 2, 2, 1})),
                   I32({2, 2}), Pairs({0, 0, 0, 0})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 4, 4, 1}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
  ASSERT_THAT(Run("BatchToSpaceND",
                  {AsTensor<float>({0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0,
                                    13, 15, 0, 6, 8, 0, 14, 16},
                                   TensorShape({8, 1, 3, 1})),
                   I32({2, 2}), Pairs({0, 0, 2, 0})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2, 4, 1}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
}

// numpy, TensorFlow's algorithm: x = arange(1, 61).reshape(2,3,5,2) padded
// by ((1,0),(0,1)) in the two block dimensions, reshaped to [2, 2, 2, 2, 3,
// 2], transposed by (2, 4, 0, 1, 3, 5) and reshaped to [12, 2, 2, 2].
constexpr int64 kSpaceToBatch23[] = {
    0,  0,  0,  0,  11, 12, 17, 18, 0,  0,  0,  0,  41, 42, 47, 48, 0,  0,  0,  0,
    13, 14, 19, 20, 0,  0,  0,  0,  43, 44, 49, 50, 0,  0,  0,  0,  15, 16, 0,  0,
    0,  0,  0,  0,  45, 46, 0,  0,  1,  2,  7,  8,  21, 22, 27, 28, 31, 32, 37, 38,
    51, 52, 57, 58, 3,  4,  9,  10, 23, 24, 29, 30, 33, 34, 39, 40, 53, 54, 59, 60,
    5,  6,  0,  0,  25, 26, 0,  0,  35, 36, 0,  0,  55, 56, 0,  0};

TEST_F(BatchSpaceTest, NumpyPaddedTwoBlockDimsAndRoundTrip) {
  Tensor x(DT_INT64, TensorShape({2, 3, 5, 2}));
  for (int i = 0; i < 60; ++i) x.flat<int64>()(i) = i + 1;
  Tensor pads = AsTensor<int64>({1, 0, 0, 1}, TensorShape({2, 2}));
  ASSERT_THAT(Run("SpaceToBatchND", {x, I64({2, 3}), pads}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({12, 2, 2, 2}));
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAreArray(kSpaceToBatch23));
  Tensor batch = out_[0];
  ASSERT_THAT(Run("BatchToSpaceND", {batch, I32({2, 3}), pads}), IsOk());
  EXPECT_EQ(out_[0].shape(), x.shape());
  EXPECT_EQ(Values<int64>(out_[0]), Values<int64>(x));
}

TEST_F(BatchSpaceTest, NoBlockDimsAndEmpty) {
  Tensor x = Iota(TensorShape({2, 3}));
  ASSERT_THAT(Run("SpaceToBatchND", {x, Tensor(DT_INT32, TensorShape({0})),
                                     Tensor(DT_INT32, TensorShape({0, 2}))}),
              IsOk());
  EXPECT_EQ(Values<float>(out_[0]), Values<float>(x));
  ASSERT_THAT(Run("SpaceToBatchND", {Tensor(DT_FLOAT, TensorShape({0, 4, 2})),
                                     I32({2}), Pairs({1, 1})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3, 2}));
  ASSERT_THAT(Run("BatchToSpaceND", {Tensor(DT_FLOAT, TensorShape({4, 2, 0})),
                                     I32({2}), Pairs({1, 1})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2, 0}));
  // Cropping everything.
  ASSERT_THAT(Run("BatchToSpaceND", {Iota(TensorShape({2, 1})), I32({2}), Pairs({1, 1})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 0}));
}

TEST_F(BatchSpaceTest, BadInputs) {
  Tensor x = Iota(TensorShape({1, 4, 4, 1}));
  EXPECT_THAT(Run("SpaceToBatchND", {x, I32({3, 2}), Pairs({0, 0, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not divisible")));
  EXPECT_THAT(Run("SpaceToBatchND", {x, I32({0, 2}), Pairs({0, 0, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("positive")));
  EXPECT_THAT(Run("SpaceToBatchND", {x, I32({2, 2}), Pairs({-2, 0, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-negative")));
  EXPECT_THAT(Run("SpaceToBatchND", {x, I32({2, 2}), Pairs({0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("shape [2, 2]")));
  EXPECT_THAT(Run("SpaceToBatchND", {Iota(TensorShape({4})), I32({2, 2}), Pairs({0, 0, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("input rank")));
  EXPECT_THAT(Run("SpaceToBatchND",
                  {x, AsTensor<int32>({2, 2}, TensorShape({1, 2})), Pairs({0, 0, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("rank should be 1")));
  EXPECT_THAT(Run("BatchToSpaceND", {Iota(TensorShape({3, 2, 2, 1})), I32({2, 2}),
                                     Pairs({0, 0, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not divisible")));
  EXPECT_THAT(Run("BatchToSpaceND", {Iota(TensorShape({4, 2, 2, 1})), I32({2, 2}),
                                     Pairs({3, 2, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("crops")));
  EXPECT_THAT(Run("BatchToSpaceND", {Iota(TensorShape({4, 2, 2, 1})), I32({2, 2}),
                                     Pairs({0, -1, 0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-negative")));
  // A block product that overflows int64.
  EXPECT_THAT(Run("BatchToSpaceND",
                  {Iota(TensorShape({4, 2, 2, 1})),
                   I64({int64{1} << 40, int64{1} << 40}),
                   AsTensor<int64>({0, 0, 0, 0}, TensorShape({2, 2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("overflow")));
}

}  // namespace
}  // namespace opkit

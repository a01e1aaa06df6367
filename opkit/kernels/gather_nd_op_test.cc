// Tests of the GatherNd kernel. Expected values are TensorFlow's documented
// examples for tf.gather_nd, or numpy's x[tuple(indices.T)].
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
using ::testing::HasSubstr;
using test::AsTensor;
using test::Iota;
using test::Strings;
using test::Values;

using GatherNdTest = test::EagerOpTest;

TEST_F(GatherNdTest, DocumentedExamples) {
  // params = [['a', 'b'], ['c', 'd']].
  const Tensor params = Strings({"a", "b", "c", "d"}, TensorShape({2, 2}));
  // indices = [[0, 0], [1, 1]] -> ['a', 'd'].
  ASSERT_THAT(Run("GatherNd", {params, AsTensor<int32>({0, 0, 1, 1}, TensorShape({2, 2}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2}));
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "d"));
  // indices = [[1], [0]] -> [['c', 'd'], ['a', 'b']].
  ASSERT_THAT(Run("GatherNd", {params, AsTensor<int64>({1, 0}, TensorShape({2, 1}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("c", "d", "a", "b"));
  // Batched: indices = [[[0, 1]], [[1, 0]]] -> [['b'], ['c']].
  ASSERT_THAT(Run("GatherNd", {params, AsTensor<int32>({0, 1, 1, 0}, TensorShape({2, 1, 2}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("b", "c"));
}

TEST_F(GatherNdTest, SlicesOfAThreeDimensionalTensor) {
  // params = arange(8).reshape(2, 2, 2); indices [[0, 1], [1, 0]] picks
  // rows [2, 3] and [4, 5] (numpy).
  ASSERT_THAT(Run("GatherNd", {Iota(TensorShape({2, 2, 2})),
                               AsTensor<int32>({0, 1, 1, 0}, TensorShape({2, 2}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(2, 3, 4, 5));
  // An innermost dimension of 0 picks all of params for each index row.
  ASSERT_THAT(Run("GatherNd", {Iota(TensorShape({2})), Tensor(DT_INT32, TensorShape({3, 0}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 1, 0, 1, 0, 1));
  // No index rows: an empty result, even from empty params.
  ASSERT_THAT(Run("GatherNd", {Iota(TensorShape({0, 3})), Tensor(DT_INT64, TensorShape({0, 1}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3}));
}

TEST_F(GatherNdTest, BadIndicesAreRejected) {
  const Tensor params = Iota(TensorShape({2, 2}));
  EXPECT_THAT(Run("GatherNd", {params, AsTensor<int32>({0, 0, 2, 0}, TensorShape({2, 2}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("indices[1] = [2, 0] does not index into param shape [2,2]")));
  EXPECT_THAT(
      Run("GatherNd", {params, AsTensor<int64>({0, 0, 1, -1}, TensorShape({1, 2, 2}))}),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("indices[0,1] = [1, -1] does not index into param shape [2,2]")));
  EXPECT_THAT(Run("GatherNd", {params, AsTensor<int32>({3}, TensorShape({1}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("indices = [3] does not index into param shape [2,2]")));
  EXPECT_THAT(Run("GatherNd", {params, AsTensor<int32>({0, 0, 0}, TensorShape({1, 3}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("index innermost dimension length must be <= params rank; "
                                 "saw: 3 vs. 2")));
  EXPECT_THAT(Run("GatherNd", {AsTensor<float>({1}, TensorShape({})), test::I32({0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("params must be at least a vector")));
  EXPECT_THAT(Run("GatherNd", {params, AsTensor<int32>({0}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("indices must be at least a vector")));
  EXPECT_THAT(Run("GatherNd",
                  {Iota(TensorShape({0, 2})), AsTensor<int32>({0}, TensorShape({1, 1}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("params is empty")));
}

}  // namespace
}  // namespace opkit

// Tests of the SparseToDense kernel. Expected values follow the op's
// definition (dense[indices[i]] = values[i], default elsewhere), worked out
// by hand; the error texts are TensorFlow's.
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
using test::Attr;
using test::I32;
using test::I64;
using test::Values;

using SparseToDenseTest = test::EagerOpTest;

Tensor Scalar(float v) { return AsTensor<float>({v}, TensorShape({})); }

TEST_F(SparseToDenseTest, MatrixIndices) {
  // [[0, 1], [1, 2]] in a [3, 4] tensor.
  ASSERT_THAT(Run("SparseToDense", {AsTensor<int32>({0, 1, 1, 2}, TensorShape({2, 2})),
                                    I32({3, 4}), AsTensor<float>({5, 6}), Scalar(-1)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 4}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(-1, 5, -1, -1, -1, -1, 6, -1, -1, -1, -1, -1));
  // One scalar value for every index.
  ASSERT_THAT(Run("SparseToDense", {AsTensor<int64>({0, 0, 2, 3}, TensorShape({2, 2})),
                                    I64({3, 4}), Scalar(7), Scalar(0)}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7));
}

TEST_F(SparseToDenseTest, VectorAndScalarIndices) {
  ASSERT_THAT(Run("SparseToDense", {I32({1, 3}), I32({5}), AsTensor<int32>({4, 9}),
                                    AsTensor<int32>({0}, TensorShape({}))}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0, 4, 0, 9, 0));
  ASSERT_THAT(Run("SparseToDense", {AsTensor<int32>({2}, TensorShape({})), I32({3}),
                                    Scalar(1), Scalar(0)}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 1));
  // No indices: all default; strings work as any type.
  ASSERT_THAT(Run("SparseToDense", {Tensor(DT_INT32, TensorShape({0, 2})), I32({1, 2}),
                                    Tensor(DT_STRING, TensorShape({0})),
                                    test::Strings({"d"}, TensorShape({}))}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("d", "d"));
  ASSERT_THAT(Run("SparseToDense", {Tensor(DT_INT32, TensorShape({0})), I32({0}),
                                    Tensor(DT_FLOAT, TensorShape({0})), Scalar(0)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
}

TEST_F(SparseToDenseTest, ValidationOfIndices) {
  EXPECT_THAT(Run("SparseToDense", {AsTensor<int32>({1, 10}, TensorShape({2, 1})), I32({5}),
                                    AsTensor<float>({-1, 1}), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("indices[1] = [10] is out of bounds: need 0 <= index < [5]")));
  EXPECT_THAT(Run("SparseToDense", {AsTensor<int32>({1, 2, 0, 3}, TensorShape({2, 2})),
                                    I32({3, 4}), AsTensor<float>({1, 2}), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("indices[1] = [0,3] is out of order")));
  EXPECT_THAT(Run("SparseToDense", {AsTensor<int32>({1, 2, 1, 2}, TensorShape({2, 2})),
                                    I32({3, 4}), AsTensor<float>({1, 2}), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("indices[1] = [1,2] is repeated")));
  EXPECT_THAT(Run("SparseToDense", {AsTensor<int32>({-1, 0}, TensorShape({1, 2})),
                                    I32({3, 4}), AsTensor<float>({1}), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("[-1,0] is out of bounds")));
}

TEST_F(SparseToDenseTest, WithoutValidationOrderIsFreeButBoundsAreNot) {
  const EagerAttrs no_check = {{"validate_indices", Attr(false)}};
  ASSERT_THAT(Run("SparseToDense", {I32({3, 0, 3}), I32({4}), AsTensor<float>({1, 2, 3}),
                                    Scalar(0)},
                  no_check),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(2, 0, 0, 3));
  EXPECT_THAT(Run("SparseToDense", {I32({1, 10}), I32({5}), AsTensor<float>({-1, 1}),
                                    Scalar(0)},
                  no_check),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("out of bounds")));
}

TEST_F(SparseToDenseTest, BadShapesAreRejected) {
  EXPECT_THAT(Run("SparseToDense", {Tensor(DT_INT32, TensorShape({1, 1, 1})), I32({2}),
                                    Scalar(1), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("sparse_indices should be a scalar, vector, or matrix")));
  EXPECT_THAT(Run("SparseToDense", {AsTensor<int32>({0, 0}, TensorShape({1, 2})), I32({2}),
                                    Scalar(1), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("output_shape has incorrect number of elements: 1 should "
                                 "be: 2")));
  EXPECT_THAT(Run("SparseToDense", {I32({0, 1}), I32({2}), AsTensor<float>({1, 2, 3}),
                                    Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("sparse_values has incorrect shape [3], should be [] or [2]")));
  EXPECT_THAT(Run("SparseToDense", {I32({0}), I32({2}), Scalar(1), AsTensor<float>({0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("default_value should be a scalar")));
  EXPECT_THAT(Run("SparseToDense", {I32({0}), I32({-2}), Scalar(1), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Run("SparseToDense", {I32({0}), AsTensor<int32>({2}, TensorShape({})),
                                    Scalar(1), Scalar(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("output_shape should be a vector")));
}

}  // namespace
}  // namespace opkit

// The array ops' gradients against finite differences, in float and double.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/gradient_test_util.h"

namespace opkit {
namespace {

using test::GradientError;
using test::Random;
using test::Tolerance;

template <typename T>
class ArrayGradTest : public ::testing::Test {
 protected:
  static double Tol() { return Tolerance(DataTypeToEnum<T>::value); }
  // f applied to one input of `shape`, multiplied by fixed weights so that
  // every output element has its own gradient.
  static double Check(const TensorShape& shape, const test::GraphFn& f) {
    return GradientError({Random<T>(shape)}, [f](GraphBuilder& b, const std::vector<Output>& x) {
      const Output y = f(b, x);
      return b.Add("Mul", {y, b.Add("Square", {y})});
    });
  }
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ArrayGradTest, FloatTypes);

TYPED_TEST(ArrayGradTest, ReshapeExpandDimsSqueezeIdentity) {
  EXPECT_LT(this->Check(TensorShape({2, 3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Reshape", {x[0], b.ConstInt({3, 2})});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({2, 3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("ExpandDims", {x[0], b.ScalarInt(1)});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({2, 1, 3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Squeeze", {x[0]});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({4}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Identity", {x[0]});
                        }),
            this->Tol());
}

TYPED_TEST(ArrayGradTest, Transpose) {
  EXPECT_LT(this->Check(TensorShape({2, 3, 4}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Transpose", {x[0], b.ConstInt({2, 0, 1})});
                        }),
            this->Tol());
}

TYPED_TEST(ArrayGradTest, ConcatPackUnpackSplit) {
  const double concat = GradientError(
      {Random<TypeParam>(TensorShape({2, 3})), Random<TypeParam>(TensorShape({2, 1}), -1, 1, 0.1, 9)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output c = b.Add("ConcatV2", {Input({x[0], x[1]}), b.ScalarInt(-1)});
        return b.Add("Mul", {c, c});
      });
  EXPECT_LT(concat, this->Tol());
  const double pack = GradientError(
      {Random<TypeParam>(TensorShape({3})), Random<TypeParam>(TensorShape({3}), -1, 1, 0.1, 9)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output p = b.Add("Pack", {Input({x[0], x[1]})}, {{"axis", Attr(int64_t{1})}});
        return b.Add("Mul", {p, p});
      });
  EXPECT_LT(pack, this->Tol());
  EXPECT_LT(this->Check(TensorShape({3, 2}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          // Only the second piece is used: the first gets zeros.
                          return b.AddN("Unpack", {x[0]}, {{"num", Attr(int64_t{3})}})[1];
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({4, 2}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          const auto parts =
                              b.AddN("Split", {b.ScalarInt(0), x[0]}, {{"num_split", Attr(int64_t{2})}});
                          return b.Add("Mul", {parts[0], parts[1]});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({5, 2}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          const auto parts = b.AddN("SplitV", {x[0], b.ConstInt({2, 3}), b.ScalarInt(0)},
                                                    {{"num_split", Attr(int64_t{2})}});
                          return parts[1];
                        }),
            this->Tol());
}

TYPED_TEST(ArrayGradTest, SliceStridedSlicePadTile) {
  EXPECT_LT(this->Check(TensorShape({3, 4}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Slice", {x[0], b.ConstInt({1, 1}), b.ConstInt({2, -1})});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({4, 5}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("StridedSlice",
                                       {x[0], b.ConstInt({3, 0}), b.ConstInt({0, 5}), b.ConstInt({-1, 2})});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({2, 3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Pad", {x[0], b.Add("Reshape", {b.ConstInt({1, 0, 2, 1}),
                                                                       b.ConstInt({2, 2})})});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({2, 3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("Tile", {x[0], b.ConstInt({2, 3})});
                        }),
            this->Tol());
  EXPECT_LT(this->Check(TensorShape({3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("BroadcastTo", {x[0], b.ConstInt({2, 3})});
                        }),
            this->Tol());
}

TYPED_TEST(ArrayGradTest, GatherV2AxisZeroWithRepeatedIndices) {
  EXPECT_LT(this->Check(TensorShape({4, 2}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("GatherV2", {x[0], b.ConstInt({3, 0, 3}), b.ScalarInt(0)});
                        }),
            this->Tol());
}

TYPED_TEST(ArrayGradTest, StridedSliceGradInItsGradient) {
  // dy [3, 3] scattered into [4, 5] at rows 3, 2, 1 and columns 0, 2, 4.
  EXPECT_LT(this->Check(TensorShape({3, 3}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          return b.Add("StridedSliceGrad",
                                       {b.ConstInt({4, 5}), b.ConstInt({3, 0}), b.ConstInt({0, 5}),
                                        b.ConstInt({-1, 2}), x[0]});
                        }),
            this->Tol());
}

TYPED_TEST(ArrayGradTest, SparseToDenseValuesAndDefault) {
  // Three values into a [3, 4] output; the nine other elements are the default.
  const double matrix = GradientError(
      {Random<TypeParam>(TensorShape({3})), Random<TypeParam>(TensorShape({}), -1, 1, 0.1, 5)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output indices =
            b.Add("Reshape", {b.ConstInt({0, 1, 1, 3, 2, 0}), b.ConstInt({3, 2})});
        const Output y = b.Add("SparseToDense", {indices, b.ConstInt({3, 4}), x[0], x[1]});
        return b.Add("Mul", {y, b.Add("Square", {y})});
      });
  EXPECT_LT(matrix, this->Tol());
  // Vector indices into a vector, one scalar value for all of them.
  const double vector = GradientError(
      {Random<TypeParam>(TensorShape({})), Random<TypeParam>(TensorShape({}), -1, 1, 0.1, 5)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output y =
            b.Add("SparseToDense", {b.ConstInt({1, 4}), b.ConstInt({5}), x[0], x[1]});
        const Output weights = b.Add(
            "Cast", {b.Add("Range", {b.ScalarInt(1), b.ScalarInt(6), b.ScalarInt(1)})},
            {{"DstT", Attr(x[0].dtype)}});
        return b.Add("Mul", {y, weights});
      });
  EXPECT_LT(vector, this->Tol());
}

TYPED_TEST(ArrayGradTest, FillGivesTheValueTheSumOfTheGradient) {
  const double error = GradientError(
      {Random<TypeParam>(TensorShape({}))}, [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output filled = b.Add("Fill", {b.ConstInt({2, 3}), x[0]});
        // Weights 1..6, so the sum is not just a count.
        const Output weights = b.Add(
            "Cast", {b.Add("Reshape", {b.Add("Range", {b.ScalarInt(1), b.ScalarInt(7),
                                                       b.ScalarInt(1)}),
                                       b.ConstInt({2, 3})})},
            {{"DstT", Attr(x[0].dtype)}});
        return b.Add("Mul", {filled, weights});
      });
  EXPECT_LT(error, this->Tol());
}

TYPED_TEST(ArrayGradTest, SpaceToDepthAndDepthToSpace) {
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    const bool nchw = std::string(format) == "NCHW";
    const auto attrs = std::vector<std::pair<std::string, AttrValue>>{
        {"block_size", Attr(int64_t{2})}, {"data_format", Attr(format)}};
    EXPECT_LT(this->Check(nchw ? TensorShape({2, 3, 4, 2}) : TensorShape({2, 4, 2, 3}),
                          [&](GraphBuilder& b, const std::vector<Output>& x) {
                            return b.Add("SpaceToDepth", {x[0]}, attrs);
                          }),
              this->Tol());
    EXPECT_LT(this->Check(nchw ? TensorShape({1, 8, 1, 3}) : TensorShape({1, 1, 3, 8}),
                          [&](GraphBuilder& b, const std::vector<Output>& x) {
                            return b.Add("DepthToSpace", {x[0]}, attrs);
                          }),
              this->Tol());
  }
}

TYPED_TEST(ArrayGradTest, SpaceToBatchNDAndBatchToSpaceND) {
  // [1, 3, 4, 2] padded to [1, 4, 4, 2] (one row before), blocks 2x2.
  EXPECT_LT(this->Check(TensorShape({1, 3, 4, 2}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          const Output paddings =
                              b.Add("Reshape", {b.ConstInt({1, 0, 0, 0}), b.ConstInt({2, 2})});
                          return b.Add("SpaceToBatchND", {x[0], b.ConstInt({2, 2}), paddings});
                        }),
              this->Tol());
  // [4, 2, 3, 1] to [1, 4, 6, 1], cropped to [1, 3, 4, 1]; int64 crops.
  EXPECT_LT(this->Check(TensorShape({4, 2, 3, 1}),
                        [](GraphBuilder& b, const std::vector<Output>& x) {
                          Tensor crops(DT_INT64, TensorShape({2, 2}));
                          const int64_t values[] = {0, 1, 1, 1};
                          for (int i = 0; i < 4; ++i) crops.flat<int64_t>()(i) = values[i];
                          return b.Add("BatchToSpaceND", {x[0], b.ConstInt({2, 2}), b.Const(crops)});
                        }),
              this->Tol());
}

}  // namespace
}  // namespace opkit

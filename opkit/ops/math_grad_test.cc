// The math ops' gradients against finite differences, in float and double,
// with broadcasting both ways and every MatMul transpose on non-square
// matrices.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/gradient_test_util.h"

namespace opkit {
namespace {

using test::GradientError;
using test::Random;
using test::Tolerance;

template <typename T>
class MathGradTest : public ::testing::Test {
 protected:
  static constexpr DataType kType = DataTypeToEnum<T>::value;
  static double Tol() { return Tolerance(kType); }
  // Unary op on a [2, 3] input (values in [lo, hi]).
  static double Unary(const char* op, double lo = -1, double hi = 1) {
    return GradientError({Random<T>(TensorShape({2, 3}), lo, hi)},
                         [op](GraphBuilder& b, const std::vector<Output>& x) {
                           return b.Add(op, {x[0]});
                         });
  }
  // Binary op on inputs of the two shapes.
  static double Binary(const char* op, const TensorShape& a, const TensorShape& c,
                       double lo = -1, double hi = 1) {
    return GradientError({Random<T>(a, lo, hi, 0.1, 1), Random<T>(c, lo, hi, 0.1, 2)},
                         [op](GraphBuilder& b, const std::vector<Output>& x) {
                           return b.Add(op, {x[0], x[1]});
                         });
  }
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MathGradTest, FloatTypes);

TYPED_TEST(MathGradTest, ElementwiseBinaryWithBroadcasting) {
  for (const char* op : {"AddV2", "Add", "Sub", "Mul", "SquaredDifference", "Maximum",
                         "Minimum"}) {
    SCOPED_TRACE(op);
    EXPECT_LT(this->Binary(op, TensorShape({2, 3}), TensorShape({2, 3})), this->Tol());
    EXPECT_LT(this->Binary(op, TensorShape({2, 3}), TensorShape({3})), this->Tol());
    EXPECT_LT(this->Binary(op, TensorShape({2, 1}), TensorShape({1, 3})), this->Tol());
    EXPECT_LT(this->Binary(op, TensorShape({}), TensorShape({2, 2})), this->Tol());
  }
  for (const char* op : {"RealDiv", "Div"}) {
    SCOPED_TRACE(op);
    EXPECT_LT(this->Binary(op, TensorShape({2, 3}), TensorShape({3}), 0.5, 1.5), this->Tol());
    EXPECT_LT(this->Binary(op, TensorShape({1}), TensorShape({2, 2}), 0.5, 1.5), this->Tol());
  }
}

TYPED_TEST(MathGradTest, Unary) {
  for (const char* op : {"Neg", "Square", "Exp", "Tanh", "Sigmoid"}) {
    SCOPED_TRACE(op);
    EXPECT_LT(this->Unary(op), this->Tol());
  }
  for (const char* op : {"Log", "Sqrt", "Rsqrt", "Reciprocal"}) {
    SCOPED_TRACE(op);
    EXPECT_LT(this->Unary(op, 0.5, 1.5), this->Tol());
  }
}

TYPED_TEST(MathGradTest, PowWithBroadcasting) {
  // x in [0.5, 1.5] (log x is defined), exponents in [-1, 2].
  for (const auto& shapes : {std::pair<TensorShape, TensorShape>{{2, 3}, {2, 3}},
                             std::pair<TensorShape, TensorShape>{{2, 3}, {}},
                             std::pair<TensorShape, TensorShape>{{3}, {2, 1}}}) {
    const double error = GradientError(
        {Random<TypeParam>(shapes.first, 0.5, 1.5), Random<TypeParam>(shapes.second, -1, 2)},
        [](GraphBuilder& b, const std::vector<Output>& x) {
          return b.Add("Pow", {x[0], x[1]});
        });
    EXPECT_LT(error, this->Tol()) << shapes.first.DebugString() << " "
                                  << shapes.second.DebugString();
  }
}

TYPED_TEST(MathGradTest, AddNGivesEveryInputTheGradient) {
  const double error = GradientError(
      {Random<TypeParam>(TensorShape({2, 3})), Random<TypeParam>(TensorShape({2, 3})),
       Random<TypeParam>(TensorShape({2, 3}))},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        // x0 appears twice: its gradient is the sum of both.
        return b.Add("AddN", {std::vector<Output>{x[0], x[1], x[2], x[0]}});
      });
  EXPECT_LT(error, this->Tol());
}

TYPED_TEST(MathGradTest, SumOfAScalarOverNoAxes) {
  // The gradient takes the (empty) axes modulo the rank, 0.
  const double error = GradientError(
      {Random<TypeParam>(TensorShape({}))}, [](GraphBuilder& b, const std::vector<Output>& x) {
        return b.Add("Sum", {x[0], b.ConstInt({})});
      });
  EXPECT_LT(error, this->Tol());
}

TYPED_TEST(MathGradTest, MatMulEveryTransposeNonSquare) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "transpose_a=" << ta << " transpose_b=" << tb);
      // op(a) is 2x3, op(b) is 3x4.
      const TensorShape a = ta ? TensorShape({3, 2}) : TensorShape({2, 3});
      const TensorShape bm = tb ? TensorShape({4, 3}) : TensorShape({3, 4});
      const double error = GradientError(
          {Random<TypeParam>(a), Random<TypeParam>(bm, -1, 1, 0.1, 3)},
          [ta, tb](GraphBuilder& b, const std::vector<Output>& x) {
            return b.Add("MatMul", {x[0], x[1]},
                         {{"transpose_a", Attr(ta)}, {"transpose_b", Attr(tb)}});
          });
      EXPECT_LT(error, this->Tol());
    }
  }
}

TYPED_TEST(MathGradTest, BatchMatMulWithBroadcastBatch) {
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "adj_x=" << ax << " adj_y=" << ay);
      const TensorShape x = ax ? TensorShape({2, 3, 2}) : TensorShape({2, 2, 3});
      const TensorShape y = ay ? TensorShape({4, 3}) : TensorShape({3, 4});
      const double error = GradientError(
          {Random<TypeParam>(x), Random<TypeParam>(y, -1, 1, 0.1, 3)},
          [ax, ay](GraphBuilder& b, const std::vector<Output>& in) {
            return b.Add("BatchMatMulV2", {in[0], in[1]},
                         {{"adj_x", Attr(ax)}, {"adj_y", Attr(ay)}});
          });
      EXPECT_LT(error, this->Tol());
    }
  }
}

TYPED_TEST(MathGradTest, Reductions) {
  for (const char* op : {"Sum", "Mean"}) {
    for (bool keep : {false, true}) {
      for (std::vector<int32_t> axes :
           {std::vector<int32_t>{1}, std::vector<int32_t>{0, 2}, std::vector<int32_t>{-1},
            std::vector<int32_t>{}}) {
        SCOPED_TRACE(::testing::Message() << op << " keep_dims=" << keep << " axes size "
                                          << axes.size());
        const double error = GradientError(
            {Random<TypeParam>(TensorShape({2, 3, 2}))},
            [op, keep, axes](GraphBuilder& b, const std::vector<Output>& x) {
              return b.Add(op, {x[0], b.ConstInt(axes)}, {{"keep_dims", Attr(keep)}});
            });
        EXPECT_LT(error, this->Tol());
      }
    }
  }
}

TYPED_TEST(MathGradTest, CastBetweenFloatTypes) {
  // The values pass through float either way: float's step and tolerance.
  const DataType other = this->kType == DT_FLOAT ? DT_DOUBLE : DT_FLOAT;
  const double error = GradientError(
      {Random<TypeParam>(TensorShape({3}))},
      [other](GraphBuilder& b, const std::vector<Output>& x) {
        const Output cast = b.Add("Cast", {x[0]}, {{"DstT", Attr(other)}});
        return b.Add("Cast", {b.Add("Square", {cast})},
                     {{"DstT", Attr(x[0].dtype)}});
      },
      test::Step(DT_FLOAT));
  EXPECT_LT(error, Tolerance(DT_FLOAT));
}

}  // namespace
}  // namespace opkit

// The math ops' gradients against finite differences, in float and double,
// with broadcasting both ways and every MatMul transpose on non-square
// matrices.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/gradients/gradient_checker.h"
#include "opkit/gradients/symbolic_gradients.h"
#include "opkit/testing/gradient_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using test::GradientError;
using test::Random;
using test::Tolerance;
using ::opkit::testing::IsOk;

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
  for (const char* op : {"RealDiv", "Div", "Atan2"}) {
    SCOPED_TRACE(op);
    EXPECT_LT(this->Binary(op, TensorShape({2, 3}), TensorShape({3}), 0.5, 1.5), this->Tol());
    EXPECT_LT(this->Binary(op, TensorShape({1}), TensorShape({2, 2}), 0.5, 1.5), this->Tol());
  }
}

TYPED_TEST(MathGradTest, Unary) {
  // |x| >= 0.1: Abs away from its kink.
  for (const char* op : {"Neg", "Square", "Exp", "Tanh", "Sigmoid", "Abs", "Sin", "Cos"}) {
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

TYPED_TEST(MathGradTest, AbsGradientIsTheSignOfX) {
  // At 0 the sign is 0, as TensorFlow's Sign; elsewhere +-1 exactly.
  Tensor x(this->kType, TensorShape({3}));
  x.flat<TypeParam>()(0) = TypeParam(-2);
  x.flat<TypeParam>()(1) = TypeParam(0);
  x.flat<TypeParam>()(2) = TypeParam(0.5);
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output in = b.Add("Placeholder", {}, {{"dtype", Attr(this->kType)}});
  const Output y = b.Add("Abs", {in});
  ASSERT_THAT(b.status(), IsOk());
  Jacobians j;
  ASSERT_THAT(ComputeJacobians(g, {in.name()}, {x}, {y.name()}, &j), IsOk());
  EXPECT_EQ(j.theoretical[0][0], -1.0);
  EXPECT_EQ(j.theoretical[1][1], 0.0);
  EXPECT_EQ(j.theoretical[2][2], 1.0);
}

TYPED_TEST(MathGradTest, MaxMinReductions) {
  for (const char* op : {"Max", "Min"}) {
    for (bool keep : {false, true}) {
      for (bool constant_axes : {true, false}) {
        for (std::vector<int32_t> axes :
             {std::vector<int32_t>{1}, std::vector<int32_t>{0, 2}, std::vector<int32_t>{-1},
              std::vector<int32_t>{}}) {
          SCOPED_TRACE(::testing::Message() << op << " keep_dims=" << keep << " constant axes="
                                            << constant_axes << " axes size " << axes.size());
          const double error = GradientError(
              {Random<TypeParam>(TensorShape({2, 3, 2}))},
              [=](GraphBuilder& b, const std::vector<Output>& x) {
                // Through Identity, the axes are no Const the gradient can read.
                Output a = b.ConstInt(axes);
                if (!constant_axes) a = b.Add("Identity", {a});
                const Output y = b.Add(op, {x[0], a}, {{"keep_dims", Attr(keep)}});
                return b.Add("Mul", {y, b.Add("Square", {y})});
              });
          EXPECT_LT(error, this->Tol());
        }
      }
    }
  }
}

// Row 0 of x has its maximum twice, row 1 three times, row 2 once; the
// gradient of Max over axis 1 is shared equally among the ties.
TYPED_TEST(MathGradTest, MaxSharesTheGradientAmongTies) {
  const std::vector<double> values = {2, 1, 2, 5, 5, 5, -1, 3, 0};
  const std::vector<double> expected = {0.5, 0, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 1, 0};
  for (const char* op : {"Max", "Min"}) {
    SCOPED_TRACE(op);
    const bool is_min = std::string(op) == "Min";
    Tensor x(this->kType, TensorShape({3, 3}));
    for (int i = 0; i < 9; ++i) {
      // Min sees the negated values: the same elements are selected.
      x.flat<TypeParam>()(i) = static_cast<TypeParam>(is_min ? -values[i] : values[i]);
    }
    GraphDef g;
    GraphBuilder b(&g, OpRegistry::Global(), "");
    const Output in = b.Add("Placeholder", {}, {{"dtype", Attr(this->kType)}});
    const Output y = b.Add(op, {in, b.ConstInt({1})});
    ASSERT_THAT(b.status(), IsOk());
    Jacobians j;
    ASSERT_THAT(ComputeJacobians(g, {in.name()}, {x}, {y.name()}, &j), IsOk());
    ASSERT_EQ(j.theoretical.size(), 3u);
    for (int row = 0; row < 3; ++row) {
      for (int col = 0; col < 9; ++col) {
        const double want = col / 3 == row ? expected[col] : 0.0;
        EXPECT_NEAR(j.theoretical[row][col], want, 1e-6) << row << ", " << col;
      }
    }
    // With two ties the central difference sees half the slope too.
    Tensor pair(this->kType, TensorShape({2, 2}));
    for (int i = 0; i < 4; ++i) {
      pair.flat<TypeParam>()(i) = static_cast<TypeParam>((is_min ? -1 : 1) * (i < 2 ? 0.5 : i));
    }
    const double error =
        GradientError({pair}, [op](GraphBuilder& b, const std::vector<Output>& x) {
          const Output r = b.Add(op, {x[0], b.ConstInt({1})}, {{"keep_dims", Attr(true)}});
          return b.Add("Mul", {r, b.Add("Square", {r})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

// A bool Const of `shape` from `values`.
Output BoolConst(GraphBuilder& b, const TensorShape& shape, const std::vector<bool>& values) {
  Tensor t(DT_BOOL, shape);
  for (size_t i = 0; i < values.size(); ++i) t.flat<bool>()(i) = values[i];
  return b.Const(t);
}

TYPED_TEST(MathGradTest, SelectConditionElementwiseAndPerRow) {
  const double elementwise = GradientError(
      {Random<TypeParam>(TensorShape({2, 3})), Random<TypeParam>(TensorShape({2, 3}), -1, 1, 0.1, 5)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output c = BoolConst(b, TensorShape({2, 3}), {true, false, false, true, true, false});
        const Output y = b.Add("Select", {c, x[0], x[1]});
        return b.Add("Mul", {y, b.Add("Square", {y})});
      });
  EXPECT_LT(elementwise, this->Tol());
  const double per_row = GradientError(
      {Random<TypeParam>(TensorShape({3, 2})), Random<TypeParam>(TensorShape({3, 2}), -1, 1, 0.1, 5)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output c = BoolConst(b, TensorShape({3}), {false, true, false});
        const Output y = b.Add("Select", {c, x[0], x[1]});
        return b.Add("Mul", {y, b.Add("Square", {y})});
      });
  EXPECT_LT(per_row, this->Tol());
}

TYPED_TEST(MathGradTest, SelectV2WithBroadcasting) {
  struct Case {
    TensorShape c, t, e;
  };
  for (const Case& k : {Case{{2, 3}, {2, 3}, {2, 3}}, Case{{2, 3}, {2, 1}, {3}},
                        Case{{3}, {2, 3}, {}}, Case{{2, 1}, {1, 3}, {2, 1}}}) {
    SCOPED_TRACE(::testing::Message() << k.c.DebugString() << " " << k.t.DebugString() << " "
                                      << k.e.DebugString());
    std::vector<bool> cond;
    for (int64_t i = 0; i < k.c.num_elements(); ++i) cond.push_back(i % 3 != 1);
    const double error = GradientError(
        {Random<TypeParam>(k.t), Random<TypeParam>(k.e, -1, 1, 0.1, 5)},
        [&](GraphBuilder& b, const std::vector<Output>& x) {
          const Output y = b.Add("SelectV2", {BoolConst(b, k.c, cond), x[0], x[1]});
          return b.Add("Mul", {y, b.Add("Square", {y})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(MathGradTest, UnsortedSegmentSumDropsNegativeIds) {
  // Rows with id -1 or -3 are dropped by the op and get a zero gradient;
  // segment 1 gets no row at all.
  const double rows = GradientError(
      {Random<TypeParam>(TensorShape({5, 2}))}, [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output y =
            b.Add("UnsortedSegmentSum", {x[0], b.ConstInt({2, -1, 0, 2, -3}), b.ScalarInt(4)});
        return b.Add("Mul", {y, b.Add("Square", {y})});
      });
  EXPECT_LT(rows, this->Tol());
  // Two-dimensional ids over the leading dimensions of a rank-3 input, as int64.
  const double grid = GradientError(
      {Random<TypeParam>(TensorShape({2, 3, 2}))},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        Tensor ids(DT_INT64, TensorShape({2, 3}));
        const int64_t values[] = {0, -1, 1, 1, 2, -2};
        for (int i = 0; i < 6; ++i) ids.flat<int64_t>()(i) = values[i];
        const Output y = b.Add("UnsortedSegmentSum", {x[0], b.Const(ids), b.ScalarInt(3)});
        return b.Add("Mul", {y, b.Add("Square", {y})});
      });
  EXPECT_LT(grid, this->Tol());
  // The theoretical Jacobian of a dropped element is exactly zero.
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output in = b.Add("Placeholder", {}, {{"dtype", Attr(this->kType)}});
  const Output y = b.Add("UnsortedSegmentSum", {in, b.ConstInt({1, -1, 0}), b.ScalarInt(2)});
  ASSERT_THAT(b.status(), IsOk());
  Jacobians j;
  ASSERT_THAT(ComputeJacobians(g, {in.name()}, {Random<TypeParam>(TensorShape({3}))},
                               {y.name()}, &j),
              IsOk());
  EXPECT_EQ(j.theoretical, (std::vector<std::vector<double>>{{0, 0, 1}, {1, 0, 0}}));
}

TYPED_TEST(MathGradTest, UnsortedSegmentMaxMinWithNegativeIds) {
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    SCOPED_TRACE(op);
    // Segment 1 has one row, segment 0 two, segment 3 none; two rows dropped.
    const double error = GradientError(
        {Random<TypeParam>(TensorShape({6, 2}))}, [op](GraphBuilder& b, const std::vector<Output>& x) {
          const Output y =
              b.Add(op, {x[0], b.ConstInt({0, -1, 2, 0, 1, -2}), b.ScalarInt(3)});
          return b.Add("Mul", {y, b.Add("Square", {y})});
        });
    EXPECT_LT(error, this->Tol());
  }
  // Ties in a segment share its gradient; a dropped element gets none.
  Tensor x(this->kType, TensorShape({4}));
  const double values[] = {3, 3, 1, 3};
  for (int i = 0; i < 4; ++i) x.flat<TypeParam>()(i) = static_cast<TypeParam>(values[i]);
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output in = b.Add("Placeholder", {}, {{"dtype", Attr(this->kType)}});
  const Output y = b.Add("UnsortedSegmentMax", {in, b.ConstInt({0, 0, 0, -1}), b.ScalarInt(1)});
  ASSERT_THAT(b.status(), IsOk());
  Jacobians j;
  ASSERT_THAT(ComputeJacobians(g, {in.name()}, {x}, {y.name()}, &j), IsOk());
  EXPECT_EQ(j.theoretical, (std::vector<std::vector<double>>{{0.5, 0.5, 0, 0}}));
}

TYPED_TEST(MathGradTest, UnsortedSegmentProdWithZerosAndNegativeIds) {
  // Segment 0: no zero; segment 1: one zero; segment 2: two zeros; two
  // elements dropped (one of them zero).
  const std::vector<double> values = {0.5, -1.5, 0, 2, 0, 0, 1.25, 0, -0.75};
  const std::vector<int32_t> ids = {0, 0, 1, 1, 2, 2, 2, -1, -3};
  Tensor x(this->kType, TensorShape({9}));
  for (int i = 0; i < 9; ++i) x.flat<TypeParam>()(i) = static_cast<TypeParam>(values[i]);
  const double error = GradientError({x}, [&](GraphBuilder& b, const std::vector<Output>& in) {
    const Output y = b.Add("UnsortedSegmentProd", {in[0], b.ConstInt(ids), b.ScalarInt(4)});
    return b.Add("Mul", {y, b.Add("Square", {y})});
  });
  EXPECT_LT(error, this->Tol());
  // Rows of a matrix, without zeros.
  const double rows = GradientError(
      {Random<TypeParam>(TensorShape({4, 2}))}, [](GraphBuilder& b, const std::vector<Output>& in) {
        return b.Add("UnsortedSegmentProd", {in[0], b.ConstInt({1, 0, 1, -1}), b.ScalarInt(2)});
      });
  EXPECT_LT(rows, this->Tol());
}

// The gradient of Output `y` with respect to `x`, added to b's graph.
Output SymbolicGradient(GraphBuilder& b, const Output& y, const Output& x) {
  std::vector<std::string> dx;
  const Status s = AddSymbolicGradients(b.graph(), {y.name()}, {x.name()}, {}, &dx);
  if (!s.ok()) {
    b.Fail(s);
    return Output();
  }
  Output out;
  out.dtype = x.dtype;
  const size_t colon = dx[0].find(':');
  out.node = dx[0].substr(0, colon);
  out.index = colon == std::string::npos ? 0 : std::stoi(dx[0].substr(colon + 1));
  return out;
}

TYPED_TEST(MathGradTest, UnaryGradOpsBothInputs) {
  // y in [0.5, 1.5]: SqrtGrad divides by it.
  for (const char* op : {"SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}) {
    SCOPED_TRACE(op);
    const double error = GradientError(
        {Random<TypeParam>(TensorShape({2, 3}), 0.5, 1.5),
         Random<TypeParam>(TensorShape({2, 3}), -1, 1, 0.1, 5)},
        [op](GraphBuilder& b, const std::vector<Output>& x) {
          const Output z = b.Add(op, {x[0], x[1]});
          return b.Add("Mul", {z, b.Add("Square", {z})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(MathGradTest, SecondDerivativesOfSigmoidTanhSinCos) {
  // d/dx of (d/dx sum(f(x) * x)): through the gradient's own gradient.
  for (const char* op : {"Sigmoid", "Tanh", "Sin", "Cos", "Sqrt", "Rsqrt", "Reciprocal"}) {
    SCOPED_TRACE(op);
    const double error = GradientError(
        {Random<TypeParam>(TensorShape({4}), 0.5, 1.5)},
        [op](GraphBuilder& b, const std::vector<Output>& x) {
          const Output y = b.Add("Mul", {b.Add(op, {x[0]}), x[0]});
          return SymbolicGradient(b, y, x[0]);
        });
    EXPECT_LT(error, this->Tol());
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

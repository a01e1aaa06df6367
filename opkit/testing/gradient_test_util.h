// Test helpers for gradient functions: build y from placeholders for the
// given x values and compare the registered gradient with finite
// differences (ComputeGradientError).
//
//   EXPECT_LT(test::GradientError({test::Random<float>({2, 3})},
//                                 [](GraphBuilder& b, const std::vector<Output>& x) {
//                                   return b.Add("Tanh", {x[0]});
//                                 }),
//             test::Tolerance(DT_FLOAT));
#ifndef OPKIT_TESTING_GRADIENT_TEST_UTIL_H_
#define OPKIT_TESTING_GRADIENT_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/gradients/gradient_checker.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace test {

using GraphFn = std::function<Output(GraphBuilder&, const std::vector<Output>&)>;

// Values uniform in [lo, hi] with magnitude at least `min_abs` (away from
// the kinks of Relu, Abs ...), from a fixed seed.
template <typename T>
Tensor Random(const TensorShape& shape, double lo = -1.0, double hi = 1.0,
              double min_abs = 0.1, uint32_t seed = 7) {
  std::mt19937 gen(seed + static_cast<uint32_t>(shape.num_elements()));
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double v = dist(gen);
    while (std::abs(v) < min_abs) v = dist(gen);
    t.flat<T>()(i) = static_cast<T>(v);
  }
  return t;
}

// The central-difference step for `dtype`: small in double (truncation
// error ~ step^2), larger in float (rounding error ~ epsilon / step).
inline double Step(DataType dtype) { return dtype == DT_DOUBLE ? 1e-6 : 1e-3; }

// What a correct gradient stays under with that step.
inline double Tolerance(DataType dtype) { return dtype == DT_DOUBLE ? 1e-5 : 2e-2; }

// Largest difference between the registered gradient and finite
// differences of `f` at `xs` (NaN, with a test failure, on any error), with
// central differences of `step` (0: Step of the first x's dtype).
inline double GradientError(const std::vector<Tensor>& xs, const GraphFn& f,
                            double step = 0) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  std::vector<Output> in;
  std::vector<std::string> names;
  for (const Tensor& x : xs) {
    in.push_back(b.Add("Placeholder", {}, {{"dtype", ::opkit::Attr(x.dtype())}}));
    names.push_back(in.back().name());
  }
  const Output y = f(b, in);
  if (!b.status().ok()) {
    ADD_FAILURE() << b.status().ToString();
    return std::numeric_limits<double>::quiet_NaN();
  }
  double error = 0;
  const Status s =
      ComputeGradientError(g, names, xs, {y.name()}, &error,
                           step > 0 ? step : Step(xs[0].dtype()));
  if (!s.ok()) {
    ADD_FAILURE() << s.ToString();
    return std::numeric_limits<double>::quiet_NaN();
  }
  return error;
}

}  // namespace test
}  // namespace opkit

#endif  // OPKIT_TESTING_GRADIENT_TEST_UTIL_H_

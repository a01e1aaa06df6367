// ComputeGradientError: how far the gradients AddSymbolicGradients builds
// are from finite differences, for kernel and gradient authors.
//
//   // graph: x = Placeholder(float), y = Tanh(x)
//   double error = 0;
//   OPKIT_RETURN_IF_ERROR(ComputeGradientError(graph, {"x"}, {x_value}, {"y"}, &error));
//   EXPECT_LT(error, 1e-3);
//
// The theoretical Jacobian comes from running the gradient graph once per
// element of the ys with a one-hot grad_y; the numeric one from central
// differences, x[i] +/- delta, once per element of the xs. The error is the
// largest absolute difference between the two. Both are computed in double
// from float, double, half or bfloat16 tensors; keep the tensors small
// (the cost is (elements of xs + elements of ys) graph runs).
#ifndef OPKIT_GRADIENTS_GRADIENT_CHECKER_H_
#define OPKIT_GRADIENTS_GRADIENT_CHECKER_H_

#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/graph.pb.h"
#include "opkit/tensor/tensor.h"

namespace opkit {

// The two Jacobians of ys with respect to xs at `x_values`: one row per
// element of the ys (in order), one column per element of the xs.
struct Jacobians {
  std::vector<std::vector<double>> theoretical;
  std::vector<std::vector<double>> numeric;
};

// xs name the tensors (usually Placeholders) fed with `x_values`; ys the
// tensors differentiated. InvalidArgument for mismatched lists or a
// non-floating x or y; the errors of AddSymbolicGradients and of running
// the graph otherwise.
OPKIT_EXPORT Status ComputeJacobians(const GraphDef& graph, const std::vector<std::string>& xs,
                                     const std::vector<Tensor>& x_values,
                                     const std::vector<std::string>& ys, Jacobians* out,
                                     double delta = 1e-3);

OPKIT_EXPORT Status ComputeGradientError(const GraphDef& graph,
                                         const std::vector<std::string>& xs,
                                         const std::vector<Tensor>& x_values,
                                         const std::vector<std::string>& ys, double* max_error,
                                         double delta = 1e-3);

}  // namespace opkit

#endif  // OPKIT_GRADIENTS_GRADIENT_CHECKER_H_

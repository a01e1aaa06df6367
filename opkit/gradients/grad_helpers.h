// Pieces the gradient functions of many ops share: undoing a broadcast,
// restoring reduced dimensions.
//
//   // z = x + y with broadcasting: each gradient summed back to its input
//   *dx = grad::ReduceForBroadcast(b, x, y, dz, dz);
#ifndef OPKIT_GRADIENTS_GRAD_HELPERS_H_
#define OPKIT_GRADIENTS_GRAD_HELPERS_H_

#include <vector>

#include "opkit/core/export.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"

namespace opkit {
namespace grad {

// Floating-point types, the ones gradients flow through.
OPKIT_EXPORT bool IsFloating(DataType dtype);

// {gx summed over the axes x was broadcast along and reshaped to x's shape,
//  gy likewise for y} (BroadcastGradientArgs of the two shapes).
OPKIT_EXPORT std::vector<Output> ReduceForBroadcast(GraphBuilder& b, const Output& x,
                                                    const Output& y, const Output& gx,
                                                    const Output& gy);

// The same over all but the last two dimensions (batch matrix products).
OPKIT_EXPORT std::vector<Output> ReduceBatchDims(GraphBuilder& b, const Output& x,
                                                 const Output& y, const Output& gx,
                                                 const Output& gy);

// For a reduction `op` (input 0 the tensor, input 1 the axes, attr
// keep_dims): `dy` reshaped to the input's rank with the reduced axes of
// size 1 (dy itself when keep_dims is true), ready to broadcast back.
OPKIT_EXPORT Output ReshapeToKeptDims(GraphBuilder& b, const GradientOp& op, const Output& dy);

// The gradient of an op whose *Grad op needs only the op's output and the
// incoming gradient: dx = <kGradOp>(y, dy) when kOutputFirst (TanhGrad,
// SigmoidGrad ...), <kGradOp>(dy, y) otherwise (ReluGrad, EluGrad ...).
template <const char* kGradOp, bool kOutputFirst>
Status GradFromOutput(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                      std::vector<Output>* dx) {
  const Output& y = op.outputs[0];
  *dx = {kOutputFirst ? b.Add(kGradOp, {y, dy[0]}) : b.Add(kGradOp, {dy[0], y})};
  return b.status();
}

}  // namespace grad
}  // namespace opkit

#endif  // OPKIT_GRADIENTS_GRAD_HELPERS_H_

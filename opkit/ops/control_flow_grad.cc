// Gradients of the control-flow ops a `cond` is made of (Switch, Merge and
// their Ref forms), registered with REGISTER_GRADIENT_OP, as TensorFlow
// differentiates a cond outside any control-flow context:
// - Merge forwards whichever input was alive; its value_index output says
//   which. The gradient goes back to that input alone: input i gets
//   Switch(grad, value_index == i)'s true output, dead for every other i.
// - Switch sends its data to one of its outputs; the other is dead, and so
//   is every gradient computed from it. Each output's gradient is switched
//   again on the same predicate (so that only the live branch's gradient
//   survives even where a gradient was computed from constants alone) and
//   the two are merged: the data gets the live branch's gradient, the
//   predicate none.
// Loops (Enter, Exit, NextIteration) are refused by AddSymbolicGradients.
#include <vector>

#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"

namespace opkit {
namespace {

Status MergeGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                 std::vector<Output>* dx) {
  const Output& value_index = op.outputs[1];
  dx->clear();
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const Output taken =
        b.Add("Equal", {value_index, b.ScalarInt(static_cast<int32_t>(i))});
    dx->push_back(b.AddN("Switch", {dy[0], taken})[1]);
  }
  return b.status();
}
REGISTER_GRADIENT_OP("Merge", MergeGrad);

Status SwitchGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  const Output& pred = op.inputs[1];
  const Output false_grad = b.AddN("Switch", {dy[0], pred})[0];
  const Output true_grad = b.AddN("Switch", {dy[1], pred})[1];
  const Output merged = b.AddN("Merge", {std::vector<Output>{false_grad, true_grad}})[0];
  *dx = {merged, Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Switch", SwitchGrad);
REGISTER_GRADIENT_OP("RefSwitch", SwitchGrad);

}  // namespace
}  // namespace opkit

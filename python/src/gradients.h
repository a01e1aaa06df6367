// The gradient of one op from the C++ gradient registry, built on stand-ins
// (gradients.cc), for Python's opkit.gradients / GradientTape and for the
// tape's own backward pass (tape.cc).
//
//   GradientNodes g;
//   bool defined = false;
//   Status s = BuildGradientNodes("MatMul", attrs, {{false, {DT_FLOAT}},
//                                 {false, {DT_FLOAT}}}, {}, &g, &defined);
//   // g.nodes: the gradient's nodes in an order that runs; g.node_inputs:
//   // where each node's data inputs come from; g.grads: one per flat input.
//
// The forward node is built on stand-ins: a Placeholder per input (a Const
// where `consts` gives the input's value, for GradientOp::ConstantInput) and
// a Placeholder per output gradient. The registered GradFunc then adds the
// gradient's nodes through a GraphBuilder; each new node's inputs are
// returned as GradientRefs, which callers map to their own values. The
// result depends only on the arguments, so callers cache it.
#ifndef OPKIT_PYTHON_SRC_GRADIENTS_H_
#define OPKIT_PYTHON_SRC_GRADIENTS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/graph.pb.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {

// Where a value of a gradient graph comes from.
struct GradientRef {
  enum Kind { kNone, kInput, kOutput, kGrad, kNode };
  Kind kind = kNone;  // kNone: no value (an input without gradient)
  int index = 0;      // flat input, output, output gradient, or node
  int output = 0;     // for kNode: the node's output
};

struct GradientNodes {
  std::vector<NodeDef> nodes;
  // Per node, its data inputs (control inputs dropped: nodes run in order).
  std::vector<std::vector<GradientRef>> node_inputs;
  // Per node, its output types.
  std::vector<DataTypeVector> node_output_types;
  // Per flat input of the forward op, its gradient.
  std::vector<GradientRef> grads;
  // The forward node (every attr filled in) and its output types.
  NodeDef forward;
  DataTypeVector output_types;
};

// One input arg of the forward op: its tensors' types, and whether it is a
// list (`N * T`, `list(type)`), even of one.
struct GradientInputArg {
  bool is_list = false;
  DataTypeVector dtypes;
};

// Builds the gradient of `op` with `attrs` (as given to the call; the rest
// are inferred or defaulted) on inputs `args`; `consts` maps flat input
// indices to their values. `*defined` is false (and `*out` empty) when the
// op is registered as having no gradient. NotFound when the op or its
// gradient is not registered; the GradFunc's own error prefixed with
// "gradient of <op>: ".
Status BuildGradientNodes(const std::string& op, const EagerAttrs& attrs,
                          const std::vector<GradientInputArg>& args,
                          const std::map<int, Tensor>& consts,
                          GradientNodes* out, bool* defined);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_PYTHON_SRC_GRADIENTS_H_

// AddSymbolicGradients: adds to a GraphDef the nodes that compute the
// gradients of some tensors with respect to others, from the registered
// gradient functions (gradient_registry.h). What opkit.gradients does in
// graph mode, and what a C++ program or the CLI uses to train.
//
//   std::vector<std::string> dw;
//   OPKIT_RETURN_IF_ERROR(AddSymbolicGradients(&graph_def, {"loss"}, {"w", "b"},
//                                              {}, &dw));
//   session->Run({...}, dw, {}, &grads);   // dw[0] is "gradients/..."
//
// Like tf.gradients: the gradient of each x is the sum over every path from
// x to any y of the chained per-op gradients, seeded with grad_ys (ones of
// each y's shape when empty). Paths through an op registered without a
// gradient (StopGradient, Shape ...) contribute nothing. An op on a path
// with no registered gradient is NotFound naming the op and node. A loop
// (NextIteration) on a path is Unimplemented.
#ifndef OPKIT_GRADIENTS_SYMBOLIC_GRADIENTS_H_
#define OPKIT_GRADIENTS_SYMBOLIC_GRADIENTS_H_

#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/graph.pb.h"
#include "opkit/op/op_registry.h"

namespace opkit {

struct SymbolicGradientOptions {
  // What an x no y depends on gets: "" in *grad_xs (TensorFlow's None), or
  // a ZerosLike(x) node (unconnected_gradients=ZERO).
  bool unconnected_zero = false;
  // New nodes are named "<name_prefix>/..." (made unique in the graph).
  std::string name_prefix = "gradients";
  // Gradient functions come from here (nullptr: GradientRegistry::Global()).
  const class GradientRegistry* registry = nullptr;
  // Ops are looked up here (nullptr: OpRegistry::Global()).
  const OpRegistryInterface* op_registry = nullptr;
};

// ys, xs and grad_ys are tensor names ("node" or "node:k") of `graph`;
// grad_ys is empty or one per y, of each y's shape and dtype. On success
// *grad_xs holds one tensor name per x (see unconnected_zero) and `graph`
// has the new nodes; on error `graph` is unchanged.
OPKIT_EXPORT Status AddSymbolicGradients(GraphDef* graph, const std::vector<std::string>& ys,
                                         const std::vector<std::string>& xs,
                                         const std::vector<std::string>& grad_ys,
                                         std::vector<std::string>* grad_xs,
                                         const SymbolicGradientOptions& options = {});

}  // namespace opkit

#endif  // OPKIT_GRADIENTS_SYMBOLIC_GRADIENTS_H_

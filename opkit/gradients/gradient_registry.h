// The C++ gradient registry: for each op type, the function that builds the
// gradient subgraph of one of its nodes, or the mark that it has none.
//
//   // dx for y = Relu(x): ReluGrad(dy, y)
//   Status ReluGrad(GraphBuilder& b, const GradientOp& op,
//                   const std::vector<Output>& dy, std::vector<Output>* dx) {
//     *dx = {b.Add("ReluGrad", {dy[0], op.outputs[0]})};
//     return b.status();
//   }
//   REGISTER_GRADIENT_OP("Relu", ReluGrad);
//   REGISTER_NO_GRADIENT_OP("Shape");        // integer output: no gradient
//
// The contract is TensorFlow's: a gradient function receives the forward
// node and one gradient per output, and returns one gradient per data input,
// an invalid Output where none is defined (an integer index, a shape). Every
// output's gradient is given (an output nobody differentiates gets zeros)
// and has the output's shape. AddSymbolicGradients
// (symbolic_gradients.h) calls these functions; the gradients of the
// built-in ops are registered in opkit/ops/*_grad.cc.
#ifndef OPKIT_GRADIENTS_GRADIENT_REGISTRY_H_
#define OPKIT_GRADIENTS_GRADIENT_REGISTRY_H_

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/graph.pb.h"
#include "opkit/op/attr_slice.h"
#include "opkit/op/node_def_util.h"

namespace opkit {

// The forward node a gradient function differentiates.
struct OPKIT_EXPORT GradientOp {
  const NodeDef* node = nullptr;      // with the OpDef's defaults applied
  const GraphDef* graph = nullptr;    // the graph it is in (before gradients)
  std::vector<Output> inputs;         // its data inputs, in order
  std::vector<Output> outputs;        // its outputs, in order

  const std::string& type() const { return node->op(); }
  const std::string& name() const { return node->name(); }
  template <typename T>
  Status GetAttr(std::string_view attr_name, T* value) const {
    return GetNodeAttr(AttrSlice(*node), attr_name, value);
  }
  // The node's attrs among `names` (those it has), to pass on to the ops of
  // its gradient: Conv2D's strides, padding ... for Conv2DBackpropInput.
  std::vector<std::pair<std::string, AttrValue>> Attrs(
      std::initializer_list<const char*> names) const;
  // The value of input `i` when a Const node gives it (an axis, a
  // permutation); false otherwise.
  bool ConstantInput(int i, Tensor* value) const;
};

// A function (or a callable: language bindings register closures) that
// builds the gradient of one node.
using GradFunc = std::function<Status(GraphBuilder& builder, const GradientOp& op,
                                      const std::vector<Output>& grad_outputs,
                                      std::vector<Output>* grad_inputs)>;

class OPKIT_EXPORT GradientRegistry {
 public:
  // The registry REGISTER_GRADIENT_OP fills (never destroyed).
  static GradientRegistry* Global();

  // AlreadyExists naming the op when it has a gradient (or a no-gradient
  // mark) already; InvalidArgument for an empty op name or a null function.
  Status Register(std::string_view op, GradFunc fn);
  Status RegisterNoGradient(std::string_view op);
  // Removes the op's entry (a test or an unloaded library); false if none.
  bool Unregister(std::string_view op);

  // OK with *fn set, or OK with *fn empty for an op registered as having no
  // gradient; NotFound naming the op and how to register one otherwise.
  Status Lookup(std::string_view op, GradFunc* fn) const;
  bool Has(std::string_view op) const;
  std::vector<std::string> ListOps() const;

 private:
  mutable mutex mu_;
  std::map<std::string, GradFunc, std::less<>> funcs_ OPKIT_GUARDED_BY(mu_);
};

namespace gradient_registration {
// Registers into the global registry at static-initialisation time; a
// duplicate is logged as an error naming the op (it cannot be returned).
struct OPKIT_EXPORT Registrar {
  Registrar(const char* op, GradFunc fn);
};
}  // namespace gradient_registration

#define OPKIT_GRADIENT_CONCAT_INNER(a, b) a##b
#define OPKIT_GRADIENT_CONCAT(a, b) OPKIT_GRADIENT_CONCAT_INNER(a, b)

// Registers `fn` (a GradFunc) as the gradient of op `name`.
#define REGISTER_GRADIENT_OP(name, fn)                                        \
  static ::opkit::gradient_registration::Registrar OPKIT_GRADIENT_CONCAT(     \
      opkit_gradient_registrar_, __COUNTER__)(name, fn)

// Marks op `name` as having no gradient: differentiating through it gives
// no gradient to its inputs (TensorFlow's NotDifferentiable).
#define REGISTER_NO_GRADIENT_OP(name)                                         \
  static ::opkit::gradient_registration::Registrar OPKIT_GRADIENT_CONCAT(     \
      opkit_gradient_registrar_, __COUNTER__)(name, nullptr)

}  // namespace opkit

#endif  // OPKIT_GRADIENTS_GRADIENT_REGISTRY_H_

// Gradients of the resource variable ops, registered with
// REGISTER_GRADIENT_OP as TensorFlow's resource_variable_ops.py does.
#include <vector>

#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"

namespace opkit {
namespace {

// A read passes its gradient on to the variable's handle, where a tape or
// opkit.gradients collects it as the variable's gradient (TensorFlow's
// _ReadGrad).
Status ReadVariableGrad(GraphBuilder& b, const GradientOp&,
                        const std::vector<Output>& dy, std::vector<Output>* dx) {
  *dx = {dy[0]};
  return b.status();
}
REGISTER_GRADIENT_OP("ReadVariableOp", ReadVariableGrad);

// Whether a variable is initialized does not change smoothly with it.
REGISTER_NO_GRADIENT_OP("VarIsInitializedOp");

}  // namespace
}  // namespace opkit

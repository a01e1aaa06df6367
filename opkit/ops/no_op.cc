// NoOp: does nothing; a graph uses it to group control dependencies
// (a training step's `train_op`, an initializer group).
#include "opkit/framework/common_shape_fns.h"
#include "opkit/framework/op.h"

namespace opkit {

REGISTER_OP("NoOp").SetShapeFn(shape_inference::NoOutputs);

}  // namespace opkit

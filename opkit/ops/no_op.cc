// NoOp: does nothing; a graph uses it to group control dependencies
// (a training step's `train_op`, an initializer group).
#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/op.h"

namespace opkit {

REGISTER_OP("NoOp").SetShapeFn(shape_inference::NoOutputs);

}  // namespace opkit

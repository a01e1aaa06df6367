// TensorFlow compatibility: REGISTER_OP (opkit/op/op.h), OpRegistry
// and the op-definition types.
//
//   #include "tensorflow/core/framework/op.h"
//   #include "tensorflow/core/framework/shape_inference.h"
//   using namespace tensorflow;
//   REGISTER_OP("ZeroOut")
//       .Input("to_zero: int32")
//       .Output("zeroed: int32")
//       .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
//         c->set_output(0, c->input(0));
//         return Status::OK();
//       });
//
// register_op::OpDefBuilderWrapper and OpDefBuilderReceiver, what
// REGISTER_OP expands to, are spelled as in TensorFlow 1.x
// (`OpDefBuilderWrapper<true>("Op")`) and 2.x (`OpDefBuilderWrapper("Op")`).
//
// Registration is two-phase in opkit (Note [Pending op registrations] in
// opkit/op/op.h): in a library, the ops land when LoadOpLibrary()
// commits them, all or none. Shape inference and the common shape
// functions come with this header, so a registration that names
// shape_inference::UnchangedShape compiles whichever of TensorFlow's
// headers it included.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_H_

#include "opkit/op/op.h"
#include "opkit/op/op_registry.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op_def_builder.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/macros.h"
#include "tensorflow/core/platform/mutex.h"
#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_H_

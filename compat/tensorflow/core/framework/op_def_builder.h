// TensorFlow compatibility: OpDefBuilder and OpRegistrationData
// (opkit/op/op_def_builder.h), the builder behind REGISTER_OP. It
// accepts TensorFlow's spec grammar and reports a bad spec from Finalize()
// as a Status.
//
//   OpRegistrationData data;
//   Status s = OpDefBuilder("Foo").Attr("T: {float, int32}").Input("x: T")
//                  .Output("y: T").Finalize(&data);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_DEF_BUILDER_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_DEF_BUILDER_H_

#include "opkit/op/op_def_builder.h"
#include "opkit/op_def.pb.h"
#include "tensorflow/core/platform/status.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_DEF_BUILDER_H_

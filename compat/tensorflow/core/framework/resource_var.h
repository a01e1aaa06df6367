// TensorFlow compatibility: Var (opkit/resource/resource_var.h), the
// resource behind VarHandleOp / ReadVariableOp / AssignVariableOp.
//
//   core::RefCountPtr<Var> var;
//   OP_REQUIRES_OK(ctx, LookupResource(ctx, HandleFromInput(ctx, 0), &var));
//   tf_shared_lock l(*var->mu());
//   const Tensor& value = *var->tensor();
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_VAR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_VAR_H_

#include "opkit/resource/resource_var.h"
#include "tensorflow/core/framework/resource_mgr.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_VAR_H_

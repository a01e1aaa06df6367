// TensorFlow compatibility: lookup::LookupInterface
// (opkit/kernel/lookup_interface.h), the base of a lookup-table resource,
// with TensorFlow's Find / Insert / Remove / ExportValues / ImportValues
// signatures and Check* argument checks.
//
//   class MyTable : public lookup::LookupInterface { ... };
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_LOOKUP_INTERFACE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_LOOKUP_INTERFACE_H_

#include "opkit/kernel/lookup_interface.h"
#include "tensorflow/core/framework/resource_mgr.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_LOOKUP_INTERFACE_H_

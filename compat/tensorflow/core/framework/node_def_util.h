// TensorFlow compatibility: GetNodeAttr, AttrSlice and the other NodeDef
// helpers (opkit/op/node_def_util.h).
//
//   int32 n;
//   TF_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(node_def), "N", &n));
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NODE_DEF_UTIL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NODE_DEF_UTIL_H_

#include "opkit/op/node_def_util.h"
#include "opkit/node_def.pb.h"
#include "tensorflow/core/platform/status.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NODE_DEF_UTIL_H_

// TensorFlow compatibility: the node_def.proto messages. opkit's protos keep
// TensorFlow's field numbers in package opkit, so these are opkit's
// generated classes, reached in namespace tensorflow.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NODE_DEF_PB_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NODE_DEF_PB_H_

#include "opkit/node_def.pb.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NODE_DEF_PB_H_

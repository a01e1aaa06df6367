// ValidateControlFlow: the frame structure of TensorFlow's v1 control flow
// (tf.while_loop as Enter / Merge / Switch / NextIteration / Exit), checked
// on a whole Graph before anything runs.
//
//   OPKIT_RETURN_IF_ERROR(ValidateControlFlow(*graph));   // Graph::Create does
//
// Every node belongs to one frame: the root frame, or the loop frame an
// Enter (its `frame_name`) opens inside the frame of the Enter. A node's
// frame is the frame its inputs come from: an Enter's outputs are in its
// child frame, an Exit's in the parent of its own, any other node's in its
// own. The rules (each an InvalidArgument naming the node):
//   - all of a node's inputs, data and control, come from one frame (values
//     cross a frame's border only through Enter and Exit);
//   - a frame is entered from one parent frame only;
//   - an Exit is inside a loop frame (some Enter leads to it);
//   - a NextIteration is inside a loop frame and feeds a node of its own
//     frame: a loop's back edge never runs in the root frame, where there is
//     no iteration to end it (such a graph would spin for ever).
// Loop back edges (edges leaving a NextIteration) do not decide a node's
// frame; they are checked against it.
#ifndef OPKIT_GRAPH_CONTROL_FLOW_H_
#define OPKIT_GRAPH_CONTROL_FLOW_H_

#include "opkit/core/export.h"
#include "opkit/core/status.h"

namespace opkit {

class Graph;

// Checks the frame structure of `graph` (see the file comment); OK for a
// graph without loops. Thread-safe (reads the graph only).
OPKIT_EXPORT Status ValidateControlFlow(const Graph& graph);

}  // namespace opkit

#endif  // OPKIT_GRAPH_CONTROL_FLOW_H_

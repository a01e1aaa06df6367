// Placement: choose the device each node of a Graph runs on.
//
//   std::vector<Device*> devices = {cpu.get()};
//   PlacerOptions options;
//   options.allow_soft_placement = true;
//   OPKIT_RETURN_IF_ERROR(PlaceGraph(graph.get(), devices, options));
//   graph->node(0).assigned_device_name();   // "/job:localhost/.../device:CPU:0"
//
// Rules (TensorFlow's, without colocation):
//   - a node whose NodeDef names a device ("/device:CPU:0", "/cpu:0",
//     "/job:localhost/replica:0/task:0/device:CPU:0"; parts left out match
//     anything) goes to the first device matching that name that has a kernel
//     for it. No matching device, or no kernel there, is InvalidArgument
//     naming the node and the request — unless allow_soft_placement, which
//     falls back to the rule below;
//   - any other node goes to the first device (in `devices` order) of the
//     highest-priority type with a kernel for it (SupportedDeviceTypesForNode);
//   - no device with a kernel is InvalidArgument listing the registered
//     kernels of the op.
// The chosen kernel's HostMemory arguments are recorded on the node
// (Node::input_in_host_memory / output_in_host_memory).
#ifndef OPKIT_GRAPH_PLACER_H_
#define OPKIT_GRAPH_PLACER_H_

#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"

namespace opkit {

class Device;
class Graph;
class KernelRegistry;

struct PlacerOptions {
  // Place a node pinned to an unusable device on a usable one instead of
  // failing.
  bool allow_soft_placement = false;
  // Where kernels are looked up; null means KernelRegistry::Global().
  const KernelRegistry* kernel_registry = nullptr;
};

// Assigns every node of `graph` to one of `devices` (borrowed for the call;
// must not be empty). On error the graph may be partly placed.
OPKIT_EXPORT Status PlaceGraph(Graph* graph, const std::vector<Device*>& devices,
                               const PlacerOptions& options = PlacerOptions());

}  // namespace opkit

#endif  // OPKIT_GRAPH_PLACER_H_

// Placement of graph nodes on devices.
#include "opkit/graph/placer.h"

#include <string>

#include "opkit/core/errors.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/node_def_util.h"
#include "opkit/graph/graph.h"

namespace opkit {
namespace {

// Whether `device` is what `want` names (parts `want` leaves out match).
bool Matches(const ParsedDeviceName& want, const Device& device) {
  const ParsedDeviceName& have = device.parsed_name();
  if (want.has_type && want.type != device.device_type()) return false;
  if (want.has_id && (!have.has_id || want.id != have.id)) return false;
  if (want.has_job && have.has_job && want.job != have.job) return false;
  if (want.has_replica && have.has_replica && want.replica != have.replica) {
    return false;
  }
  if (want.has_task && have.has_task && want.task != have.task) return false;
  return true;
}

std::string DeviceList(const std::vector<Device*>& devices) {
  std::string out;
  for (const Device* d : devices) {
    out += StrCat(out.empty() ? "" : ", ", d->name());
  }
  return out;
}

// Records the HostMemory args of the kernel selected for `node` on `type`.
void RecordHostMemory(const KernelRegistry& registry, const DeviceType& type,
                      Node* node) {
  std::vector<bool> inputs(node->num_inputs(), false);
  std::vector<bool> outputs(node->num_outputs(), false);
  const KernelDef* kdef = nullptr;
  if (registry.FindKernelDef(type, node->def(), &kdef, nullptr).ok() &&
      kdef != nullptr && kdef->host_memory_arg_size() > 0) {
    // The ranges validation worked out when the node entered the graph
    // (Note [Validate once] in node_def_util.h).
    // A hand-built node without them gets them worked out here.
    const NodeProperties& props = *node->properties();
    NameRangeMap computed_in, computed_out;
    const NameRangeMap* in_ranges = &props.input_ranges;
    const NameRangeMap* out_ranges = &props.output_ranges;
    if (!props.has_arg_ranges) {
      in_ranges = &computed_in;
      out_ranges = &computed_out;
    }
    if (props.has_arg_ranges ||
        NameRangesForNode(AttrSlice(node->def()), node->op_def(), &computed_in,
                          &computed_out)
            .ok()) {
      for (const std::string& arg : kdef->host_memory_arg()) {
        auto in = in_ranges->find(arg);
        if (in != in_ranges->end()) {
          for (int i = in->second.first; i < in->second.second; ++i) {
            if (i >= 0 && i < static_cast<int>(inputs.size())) inputs[i] = true;
          }
        }
        auto out = out_ranges->find(arg);
        if (out != out_ranges->end()) {
          for (int i = out->second.first; i < out->second.second; ++i) {
            if (i >= 0 && i < static_cast<int>(outputs.size())) {
              outputs[i] = true;
            }
          }
        }
      }
    }
  }
  node->set_host_memory(std::move(inputs), std::move(outputs));
}

}  // namespace

Status PlaceGraph(Graph* graph, const std::vector<Device*>& devices,
                  const PlacerOptions& options) {
  if (devices.empty()) {
    return errors::InvalidArgument(
        "PlaceGraph was given no devices; pass at least one (a CpuDevice)");
  }
  const KernelRegistry& registry = options.kernel_registry != nullptr
                                       ? *options.kernel_registry
                                       : *KernelRegistry::Global();
  // Device types in the order the devices are given, each once.
  std::vector<DeviceType> types;
  for (const Device* d : devices) {
    bool seen = false;
    for (const DeviceType& t : types) seen |= t.type_string() == d->device_type();
    if (!seen) types.emplace_back(d->device_type());
  }

  for (int id = 0; id < graph->num_nodes(); ++id) {
    Node* node = graph->mutable_node(id);
    PrioritizedDeviceTypeVector supported;
    Status s = registry.SupportedDeviceTypesForNode(types, node->def(), &supported);
    if (!s.ok()) return AttachDef(s, node->def());
    auto has_kernel = [&](const Device& d) {
      for (const auto& t : supported) {
        if (t.first.type_string() == d.device_type()) return true;
      }
      return false;
    };

    int chosen = -1;
    const std::string& requested = node->requested_device();
    if (!requested.empty()) {
      ParsedDeviceName want;
      s = DeviceNameUtils::ParseDeviceName(requested, &want);
      if (!s.ok()) return AttachDef(s, node->def());
      // Legacy lower-case types ("cpu") name the upper-case type.
      if (want.has_type && want.type == "cpu") want.type = "CPU";
      bool any_match = false;
      for (size_t i = 0; i < devices.size(); ++i) {
        if (!Matches(want, *devices[i])) continue;
        any_match = true;
        if (has_kernel(*devices[i])) {
          chosen = static_cast<int>(i);
          break;
        }
      }
      if (chosen < 0 && !options.allow_soft_placement) {
        if (!any_match) {
          return errors::InvalidArgument(
              "Cannot assign a device for operation ", node->name(),
              ": Could not satisfy explicit device specification '", requested,
              "' because no devices matching that specification are "
              "registered in this process; available devices: ",
              DeviceList(devices),
              ". Change the node's device or allow soft placement ",
              FormatNodeNameForError(node->name()));
        }
        return errors::InvalidArgument(
            "Cannot assign a device for operation ", node->name(),
            ": Could not satisfy explicit device specification '", requested,
            "' because no supported kernel for ",
            want.has_type ? want.type : std::string("that"),
            " devices is available. Registered kernels:\n",
            registry.KernelsRegisteredForOp(node->op()),
            "Change the node's device or allow soft placement ",
            FormatNodeNameForError(node->name()));
      }
    }
    if (chosen < 0) {
      // The highest-priority supported type, then the first device of it.
      for (const auto& t : supported) {
        for (size_t i = 0; i < devices.size() && chosen < 0; ++i) {
          if (devices[i]->device_type() == t.first.type_string()) {
            chosen = static_cast<int>(i);
          }
        }
        if (chosen >= 0) break;
      }
    }
    if (chosen < 0) {
      return errors::InvalidArgument(
          "No OpKernel was registered to support Op '", node->op(),
          "' used by ", FormatNodeNameForError(node->name()),
          " on any of the devices ", DeviceList(devices),
          ". Registered kernels:\n", registry.KernelsRegisteredForOp(node->op()));
    }
    node->set_assigned_device(devices[chosen]->name(), chosen);
    RecordHostMemory(registry, DeviceType(devices[chosen]->device_type()), node);
  }
  return OkStatus();
}

}  // namespace opkit

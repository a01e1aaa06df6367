// Kernel selection: what a lookup yields (KernelSelection), how a lookup is
// explained (KernelSelectionExplanation), and TensorFlow's free functions
// over the process-wide registry (FindKernelDef, KernelsRegisteredForOp,
// ...). The selecting itself is done by KernelRegistry (kernel_registry.h).
//
//   const KernelDef* def = nullptr;
//   std::string class_name;
//   OPKIT_RETURN_IF_ERROR(FindKernelDef(DeviceType(DEVICE_CPU), node, &def,
//                                       &class_name));
//
//   std::cout << ExplainKernelSelection(DeviceType(DEVICE_CPU), node)
//                    .ToString();
//
// Note [Kernel selection]
// For a node on a device: the op's attr defaults fill attrs the node does not
// set; an op unknown to the op registry is NotFound (with the op registry's
// message). The op is looked up only when needed (a constrained attr the
// node does not set, or no kernel matching), which keeps the common lookup
// to one index probe; since kernels are only committed for known ops this
// is the same answer, unless an op is deregistered while its kernels stay
// registered (the library loader removes both together);
// a kernel is a candidate when its device equals the device, its label
// equals the node's `_kernel` attr (empty when absent), and every constraint
// holds: the node's type attr (or, for a list(type) attr, every element) is
// in the allowed types; a string/int/bool attr equals one allowed value.
// Among candidates the highest priority wins; two at the top priority are an
// ambiguity error (InvalidArgument) naming both and how to resolve it; no
// candidate is NotFound listing every kernel of the op and why each was
// rejected.
//
// Note [Kernel priority]
// Priority (KernelDefBuilder::Priority, default 0) is how one kernel replaces
// another without unregistering it: a plugin registering the same op, device
// and types with a higher priority wins from then on; unregistering it (or
// unloading its library) lets the lower one win again.
#ifndef OPKIT_KERNEL_KERNEL_SELECTION_H_
#define OPKIT_KERNEL_KERNEL_SELECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/registration_origin.h"
#include "opkit/core/status.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_registration.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/node_def.pb.h"

namespace opkit {

// Device types in the order a placer prefers them, each with the priority of
// the kernel that would run there.
using PrioritizedDeviceTypeVector = std::vector<std::pair<DeviceType, int32_t>>;

// What a successful lookup yields, for CreateOpKernel. The pointers stay
// valid for the registry's lifetime; `owner` keeps the kernel's library
// loaded while the caller holds it.
struct KernelSelection {
  const KernelDef* def = nullptr;
  const std::string* kernel_class_name = nullptr;
  KernelFactory factory = nullptr;
  // Set instead of `factory` for a registration made with an
  // OpKernelFactory; CreateOpKernel calls its Create().
  OpKernelFactory* factory_object = nullptr;
  const RegistrationOrigin* origin = nullptr;
  std::shared_ptr<const void> owner;
  // The registry's generation() read before selecting: if generation() has
  // moved on since, a cache holding this selection should select again.
  uint64_t generation = 0;
};

// One registered kernel of the op, as ExplainKernelSelection() judged it.
struct KernelCandidate {
  KernelDef def;
  std::string kernel_class_name;
  RegistrationOrigin origin;
  // Device, label and every constraint hold.
  bool matched = false;
  // Why it was rejected, or for a match that did not win why not
  // ("lower priority 0 < 1", "ambiguous with ..."); empty for the winner.
  std::string reason;
};

// ExplainKernelSelection()'s answer.
struct OPKIT_EXPORT KernelSelectionExplanation {
  std::string node_name;
  std::string op;
  std::string device_type;
  // The node's `_kernel` attr ("" when absent).
  std::string label;
  // Every registered kernel of the op (all devices), in registration order.
  std::vector<KernelCandidate> candidates;
  // Index of the selected kernel in `candidates`, -1 when none.
  int winner = -1;
  // What FindKernelDef() returns for the node.
  Status status;

  // A readable multi-line report: one line per candidate with its verdict,
  // then the selected kernel or the error.
  std::string ToString() const;
};

// --- TensorFlow's free functions, over KernelRegistry::Global() ------------
// Each does what the KernelRegistry method of the same name does.

OPKIT_EXPORT Status FindKernelDef(const DeviceType& device_type,
                                  const NodeDef& node_def,
                                  const KernelDef** def,
                                  std::string* kernel_class_name);
OPKIT_EXPORT bool KernelDefAvailable(const DeviceType& device_type,
                                     const NodeDef& node_def);
OPKIT_EXPORT Status SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types, const NodeDef& def,
    PrioritizedDeviceTypeVector* device_types);
OPKIT_EXPORT std::string KernelsRegisteredForOp(std::string_view op_name);
OPKIT_EXPORT KernelList GetAllRegisteredKernels();
OPKIT_EXPORT KernelList GetRegisteredKernelsForOp(std::string_view op_name);
OPKIT_EXPORT KernelSelectionExplanation
ExplainKernelSelection(const DeviceType& device_type, const NodeDef& node_def);

}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_SELECTION_H_

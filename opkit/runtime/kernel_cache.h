// CachedKernel: a kernel selected and built for one node on one device, kept
// with the kernel registry generation it was selected at. It is the runtime's
// one kernel cache entry: eager calls, prepared ops and the graph executor
// all hold their kernels in it.
//
//   CachedKernel cached(registry, device, props);
//   OPKIT_RETURN_IF_ERROR(cached.Refresh());   // selects and builds
//   ...
//   OPKIT_RETURN_IF_ERROR(cached.Refresh());   // no-op unless the registry changed
//   cached.kernel()->Compute(&ctx);
//
// Note [Kernel cache generations]
// A cached kernel remembers the registry's generation() read before its
// selection (KernelSelection::generation). While generation() still equals
// it, the kernel is what selecting now would yield; once a change of the
// registered set (a kernel registered, unregistered, restored, an override,
// a library loaded or unloaded; Note [Kernel replacement] in
// kernel_registry.h) has moved it, the holder selects again at its next use,
// so a running program picks up a replaced kernel at its next call or step.
// Reading the generation before selecting means a change racing the
// selection can only cause one selection too many, never a stale kernel
// kept. Checking is one atomic load and a compare; nothing is locked or
// allocated.
#ifndef OPKIT_RUNTIME_KERNEL_CACHE_H_
#define OPKIT_RUNTIME_KERNEL_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/node_def_util.h"

namespace opkit {

// A kernel for one node on one device, re-selected when the registry changes
// (Note [Kernel cache generations]). Copyable: copies share the kernel
// instance, which lives until its last holder lets go (a call still running
// an old kernel keeps it alive while another holder selects a new one).
// Thread-compatible: Refresh() mutates; const accessors may be read from
// several threads at once when no one refreshes.
class OPKIT_EXPORT CachedKernel {
 public:
  // A cache for `props`'s node on `device`, selecting in `registry`. Holds
  // no kernel until Refresh(). `registry` and `device` are borrowed and must
  // outlive the cache.
  CachedKernel(const KernelRegistry* registry, Device* device,
               std::shared_ptr<const NodeProperties> props,
               int graph_def_version = 0);

  // Selects and builds the kernel unless the one held is current. On error
  // (no kernel fits, ambiguity, the kernel's constructor failed) the cache
  // is left as it was and the error is returned as selection and
  // construction report it (the caller attaches the node).
  Status Refresh();

  // Whether a kernel is held and the registry has not changed since it was
  // selected.
  bool current() const {
    return kernel_ != nullptr && generation_ == registry_->generation();
  }

  // The kernel; null before the first successful Refresh().
  OpKernel* kernel() const { return kernel_.get(); }
  // The kernel, shared: hold it to keep the instance alive while it runs.
  const std::shared_ptr<OpKernel>& shared_kernel() const { return kernel_; }
  // The selected kernel's KernelDef and class name (valid for the registry's
  // lifetime); null before the first successful Refresh().
  const KernelDef* kernel_def() const { return kernel_def_; }
  const std::string* kernel_class_name() const { return kernel_class_name_; }
  // The registry generation of the last selection.
  uint64_t generation() const { return generation_; }
  // How many times a kernel was selected and built.
  int selections() const { return selections_; }
  const std::shared_ptr<const NodeProperties>& props() const { return props_; }

 private:
  const KernelRegistry* registry_;
  Device* device_;
  std::shared_ptr<const NodeProperties> props_;
  int graph_def_version_;

  std::shared_ptr<OpKernel> kernel_;
  const KernelDef* kernel_def_ = nullptr;
  const std::string* kernel_class_name_ = nullptr;
  uint64_t generation_ = 0;
  int selections_ = 0;
};

}  // namespace opkit

#endif  // OPKIT_RUNTIME_KERNEL_CACHE_H_

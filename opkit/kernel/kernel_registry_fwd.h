// Forward declarations of the kernel registry's types, for a header that
// only passes them by reference or pointer (op_kernel.h's CreateOpKernel)
// and so need not include kernel_registry.h with its replacement API.
#ifndef OPKIT_KERNEL_KERNEL_REGISTRY_FWD_H_
#define OPKIT_KERNEL_KERNEL_REGISTRY_FWD_H_

namespace opkit {

class KernelRegistry;          // kernel_registry.h
struct KernelSelection;        // kernel_selection.h
class OpRegistryInterface;     // op/op_registry.h

}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_REGISTRY_FWD_H_

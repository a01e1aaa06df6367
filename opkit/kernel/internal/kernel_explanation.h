// The messages kernel selection and the registry give about kernels: how a
// kernel is named, TensorFlow's one-line summary of one, why a kernel was
// rejected for a node, and the ambiguity and no-kernel errors. Defined in
// kernel_explanation.cc; private to opkit/kernel.
#ifndef OPKIT_KERNEL_INTERNAL_KERNEL_EXPLANATION_H_
#define OPKIT_KERNEL_INTERNAL_KERNEL_EXPLANATION_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "opkit/core/status.h"
#include "opkit/kernel/internal/kernel_index.h"
#include "opkit/kernel/kernel_registration.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/node_def.pb.h"
#include "opkit/op_def.pb.h"

namespace opkit {
namespace internal {

// "'MatMulOp<float>' (registered at matmul_op.cc:40 in libfoo.so)".
std::string NameOf(const Record& rec);
// "Kernel 'MatMulOp<float>' (registered at ...) for op 'MatMul'".
std::string Describe(const KernelRegistration& reg);
// TensorFlow's KernelsRegisteredForOp() line for one kernel.
std::string KernelLine(const KernelDef& def);
// One KernelLine() per record, or "  <no registered kernels>\n".
std::string KernelLines(const RecordList& records);
// "T in [DT_FLOAT]; mode in ["a"]", or "no constraints".
std::string ConstraintsSummary(const KernelDef& def);

// Why `rec` is not a candidate for the node on `device` with `label`; ""
// when it is.
std::string RejectionReason(const Record& rec, std::string_view device,
                            std::string_view label, const NodeDef& node,
                            const OpDef* op_def);

// TensorFlow's "Multiple OpKernel registrations match NodeDef" for a node
// that `a` and `b` both match at the same priority, with how to resolve it.
Status AmbiguityError(const NodeDef& node, const Record& a, const Record& b);
// The error of Note [Kernel ambiguity] (kernel_registry.h): registering `k`
// would make selection ambiguous with `rival` (registered before it, or
// earlier in the same batch): TensorFlow's "Multiple OpKernel registrations
// match" wording, both origins, and the ways to resolve it.
Status AmbiguousRegistrationError(const Record& k, const Record& rival);
// TensorFlow's "No OpKernel was registered to support Op", listing every
// kernel of the op and why each was rejected; mentions `num_pending`
// uncommitted registrations when there are some.
Status NoKernelError(const NodeDef& node, const std::string& device,
                     const OpDef* op_def, const RecordList& op_kernels,
                     size_t num_pending);
// TensorFlow's FindKernelDef error (Note [FindKernelDef message] in
// kernel_explanation.cc): "No registered 'Op' OpKernel for CPU devices
// compatible with node {{node n}}", the attrs when a kernel of the op,
// device and label exists but its constraints do not hold, ".  Registered:"
// with KernelsRegisteredForOp's lines; then opkit's explanation as
// NoKernelError gives it, and `op_status` (the op registry's error) when the
// op is unknown (`op_def` null).
Status FindKernelDefError(const NodeDef& node, const std::string& device,
                          const OpDef* op_def, const RecordList& op_kernels,
                          size_t num_pending, const Status& op_status);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNEL_INTERNAL_KERNEL_EXPLANATION_H_

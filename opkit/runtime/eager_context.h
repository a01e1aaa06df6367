// EagerContext: run one op now, with a kernel cache; PreparedOp: the hot path
// for calling the same op again and again.
//
//   OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<EagerContext> ctx, EagerContext::Create());
//   std::vector<Tensor> out;
//   OPKIT_RETURN_IF_ERROR(ctx->Run("MatMul", {a, b}, {{"transpose_b", AttrB(true)}}, &out));
//
//   // Select the kernel once, reuse it until the kernel registry changes:
//   OPKIT_ASSIGN_OR_RETURN(auto add, ctx->Prepare("AddV2", {DT_FLOAT, DT_FLOAT}));
//   for (...) OPKIT_RETURN_IF_ERROR(add->Run({x, y}, &out));
//
// Type attrs are inferred from the inputs as TensorFlow infers them: an
// input whose type is an attr `T` sets T (later inputs of the same attr must
// agree); `N * T` sets N from how many tensors it gets (only when it is the
// op's one variable-length input; otherwise give N); a `list(type)` input
// sets its attr to the tensors' types. Attrs given explicitly win, and the
// inputs are then checked against them. Missing attrs take the op's
// defaults.
//
// Note [Eager kernel cache]
// Run() keeps one CachedKernel (kernel_cache.h) per call key: the op, the
// input dtypes and the attrs as given, in any order (Note [Eager call key]
// in eager_context.cc). A call whose key is cached and whose kernel is
// current runs it under a shared lock, building no NodeDef and allocating
// nothing for the lookup. Like a PreparedOp's, the kernel is selected again
// at the next call once the kernel registry's generation moves (Note [Kernel
// cache generations]), so a program running a loop picks up a replaced
// kernel at its next call.
#ifndef OPKIT_RUNTIME_EAGER_CONTEXT_H_
#define OPKIT_RUNTIME_EAGER_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/attr_value.pb.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/kernel_cache.h"
#include "opkit/tensor/tensor.h"

namespace opkit {

// Attr values of an eager call, by name.
using EagerAttrs = std::vector<std::pair<std::string, AttrValue>>;

class EagerContext;

// An op with its kernel selected, ready to run on inputs of fixed types.
// Thread-compatible: one thread runs it at a time (give each thread its
// own). Holds its context borrowed: the EagerContext must outlive it.
class OPKIT_EXPORT PreparedOp {
 public:
  ~PreparedOp();
  PreparedOp(const PreparedOp&) = delete;
  PreparedOp& operator=(const PreparedOp&) = delete;

  // Runs the kernel on `inputs` (count and dtypes as prepared; a mismatch is
  // InvalidArgument) and replaces `*outputs` with the results. Selects the
  // kernel again first if the kernel registry changed since the last
  // selection. A kernel error comes back with the node attached.
  Status Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);

  // The node the kernel was built for (attrs inferred, defaults added).
  const NodeDef& node_def() const { return kernel_.props()->node_def; }
  // The selected kernel's class name and KernelDef.
  const std::string& kernel_class_name() const {
    return *kernel_.kernel_class_name();
  }
  const KernelDef& kernel_def() const { return *kernel_.kernel_def(); }
  // How many times the kernel was selected (1 after Prepare).
  int selections() const { return kernel_.selections(); }

 private:
  friend class EagerContext;
  PreparedOp(EagerContext* context, std::shared_ptr<const NodeProperties> props);

  EagerContext* const context_;
  CachedKernel kernel_;
  // Reused every call so that the hot path does not allocate for it.
  std::vector<TensorValue> input_values_;
  OpKernelContext::Params params_;
};

// Runs ops one at a time on a CPU device. Thread-safe: Run may be called
// from many threads at once (kernels are thread-safe by contract).
class OPKIT_EXPORT EagerContext {
 public:
  struct Options {
    // Where ops and kernels are looked up; null means the global ones.
    // Borrowed: they must outlive the context.
    const OpRegistryInterface* op_registry = nullptr;
    const KernelRegistry* kernel_registry = nullptr;
    // Threads of the CPU device's intra-op pool (TensorFlow's
    // intra_op_parallelism_threads): 0 means one per CPU the process may
    // use (NumSchedulableCpus), N pins it; negative is InvalidArgument.
    int intra_op_threads = 0;
  };

  // A context over a new CPU device.
  static StatusOr<std::unique_ptr<EagerContext>> Create(Options options);
  static StatusOr<std::unique_ptr<EagerContext>> Create();
  ~EagerContext();
  EagerContext(const EagerContext&) = delete;
  EagerContext& operator=(const EagerContext&) = delete;

  // Runs `op` on `inputs` with `attrs` (see the file comment for inference)
  // and replaces `*outputs` with its results. Errors: NotFound for an
  // unknown op or when no kernel fits; InvalidArgument for inputs or attrs
  // that do not fit the op (naming which); a kernel's own error with the
  // node attached.
  Status Run(std::string_view op, const std::vector<Tensor>& inputs,
             const EagerAttrs& attrs, std::vector<Tensor>* outputs);
  Status Run(std::string_view op, const std::vector<Tensor>& inputs,
             std::vector<Tensor>* outputs) {
    return Run(op, inputs, {}, outputs);
  }

  // Selects and builds the kernel of `op` for inputs of `input_types`, for
  // repeated calls. Errors as Run.
  StatusOr<std::unique_ptr<PreparedOp>> Prepare(
      std::string_view op, const DataTypeVector& input_types,
      const EagerAttrs& attrs = {});

  // Which kernel Run would use for these inputs and attrs, and why each
  // registered kernel of the op was or was not chosen.
  StatusOr<KernelSelectionExplanation> Explain(std::string_view op,
                                               const DataTypeVector& input_types,
                                               const EagerAttrs& attrs = {});

  Device* device() const { return device_.get(); }
  const OpRegistryInterface& op_registry() const { return *op_registry_; }
  const KernelRegistry& kernel_registry() const { return *kernel_registry_; }
  // Number of cached kernels (for tests and diagnostics).
  size_t kernel_cache_size() const;

 private:
  friend class PreparedOp;
  struct KernelCache;
  EagerContext(const OpRegistryInterface* ops, const KernelRegistry* kernels,
               std::unique_ptr<Device> device);

  // The node for `op` on inputs of `input_types` with `attrs`: attrs
  // inferred, defaults added, validated.
  Status BuildNode(std::string_view op, const DataTypeVector& input_types,
                   const EagerAttrs& attrs,
                   std::shared_ptr<const NodeProperties>* props) const;
  // Run()'s slow path: selects (again) the kernel for a call whose key is
  // not cached or whose kernel is stale, and caches it.
  Status SelectForCall(size_t hash, std::string_view op,
                       const std::vector<Tensor>& inputs,
                       const EagerAttrs& attrs,
                       std::shared_ptr<OpKernel>* kernel);
  // Runs `kernel` on `inputs`; shared by Run and PreparedOp::Run.
  Status Execute(OpKernel* kernel, OpKernelContext::Params* params,
                 std::vector<TensorValue>* input_values,
                 const std::vector<Tensor>& inputs,
                 std::vector<Tensor>* outputs) const;

  const OpRegistryInterface* const op_registry_;
  const KernelRegistry* const kernel_registry_;
  const std::unique_ptr<Device> device_;

  // Note [Eager kernel cache]; has its own lock.
  const std::unique_ptr<KernelCache> cache_;
};

}  // namespace opkit

#endif  // OPKIT_RUNTIME_EAGER_CONTEXT_H_

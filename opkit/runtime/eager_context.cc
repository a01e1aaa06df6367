#include "opkit/runtime/eager_context.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/tensor/allocator.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

const DeviceType& CpuType() {
  static const DeviceType* const kCpu = new DeviceType(DEVICE_CPU);
  return *kCpu;
}

// Note [Eager output memory]
// Every eager call allocates its outputs, and a program calling the same op
// in a loop frees the previous call's outputs as it gets the new ones. For
// big tensors that round trip is expensive: glibc serves blocks of a few
// MiB with fresh mmap()s (or trims them back), so each call would pay a
// page fault per 4 KiB of output while the kernel first writes it -- about
// 5% of a 1024^3 float MatMul. Eager calls on large inputs (together at
// least LargeBlockRecycler::kMinBytes) therefore allocate from a
// process-wide allocator over cpu_allocator() that keeps a few recently
// freed large blocks and hands one back for a request of the same size (as
// a framework's pooling allocator would). It is bounded (kMaxCachedBlocks
// blocks, kMaxCachedBytes bytes), stays out of the way while
// cpu_allocator()'s counters are on (so bytes_in_use stays exact), and is
// off under sanitizers so that use-after-free is still caught. Small blocks
// go straight to cpu_allocator(), which has its own cache for them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kRecycleLargeBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kRecycleLargeBlocks = false;
#else
constexpr bool kRecycleLargeBlocks = true;
#endif
#else
constexpr bool kRecycleLargeBlocks = true;
#endif

class LargeBlockRecycler final : public Allocator {
 public:
  // Blocks smaller than this are not tracked or kept.
  static constexpr size_t kMinBytes = size_t{1} << 20;
  static constexpr size_t kMaxCachedBlocks = 4;
  static constexpr size_t kMaxCachedBytes = size_t{256} << 20;

  // Never destroyed: tensors it allocated may outlive every context.
  static LargeBlockRecycler* Get() {
    static LargeBlockRecycler* const recycler =
        new LargeBlockRecycler(cpu_allocator());
    return recycler;
  }

  std::string Name() override { return base_->Name(); }

  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    if (num_bytes < kMinBytes || alignment > kAllocatorAlignment) {
      return base_->AllocateRaw(alignment, num_bytes);
    }
    {
      mutex_lock l(mu_);
      for (size_t i = 0; i < cached_.size(); ++i) {
        if (cached_[i].bytes == num_bytes) {
          void* ptr = cached_[i].ptr;
          cached_bytes_ -= num_bytes;
          cached_.erase(cached_.begin() + i);
          return ptr;  // Still in sizes_.
        }
      }
    }
    void* ptr = base_->AllocateRaw(alignment, num_bytes);
    if (ptr != nullptr) {
      mutex_lock l(mu_);
      sizes_[ptr] = num_bytes;
    }
    return ptr;
  }

  void DeallocateRaw(void* ptr) override {
    if (ptr == nullptr) return;
    std::vector<void*> to_free;
    {
      mutex_lock l(mu_);
      auto it = sizes_.find(ptr);
      if (it == sizes_.end()) {
        // A small block: never tracked.
        to_free.push_back(ptr);
      } else if (base_->GetStats().has_value()) {
        // Counters on: give everything back so bytes_in_use is exact.
        sizes_.erase(it);
        to_free.push_back(ptr);
        for (const Block& b : cached_) {
          sizes_.erase(b.ptr);
          to_free.push_back(b.ptr);
        }
        cached_.clear();
        cached_bytes_ = 0;
      } else {
        const size_t bytes = it->second;
        if (bytes > kMaxCachedBytes) {
          sizes_.erase(it);
          to_free.push_back(ptr);
        } else {
          // Evict the oldest blocks to make room.
          while (!cached_.empty() &&
                 (cached_.size() >= kMaxCachedBlocks ||
                  cached_bytes_ + bytes > kMaxCachedBytes)) {
            sizes_.erase(cached_.front().ptr);
            to_free.push_back(cached_.front().ptr);
            cached_bytes_ -= cached_.front().bytes;
            cached_.erase(cached_.begin());
          }
          cached_.push_back(Block{ptr, bytes});
          cached_bytes_ += bytes;
        }
      }
    }
    for (void* p : to_free) base_->DeallocateRaw(p);
  }

  std::optional<AllocatorStats> GetStats() override { return base_->GetStats(); }
  bool ClearStats() override { return base_->ClearStats(); }

 private:
  explicit LargeBlockRecycler(Allocator* base) : base_(base) {}

  struct Block {
    void* ptr;
    size_t bytes;
  };

  Allocator* const base_;
  mutex mu_;
  // Size of every large block handed out or cached.
  absl::flat_hash_map<void*, size_t> sizes_ OPKIT_GUARDED_BY(mu_);
  // Freed blocks kept for reuse, oldest first.
  std::vector<Block> cached_ OPKIT_GUARDED_BY(mu_);
  size_t cached_bytes_ OPKIT_GUARDED_BY(mu_) = 0;
};

// The allocator for an eager call's outputs and temporaries on `device`:
// the recycler when the inputs are large (so, most likely, the outputs
// too), else null (the device's own). Small calls stay off the recycler:
// every block it hands out costs a lock when freed.
Allocator* EagerAllocator(Device* device, const std::vector<Tensor>& inputs) {
  if (!kRecycleLargeBlocks) return nullptr;
  size_t bytes = 0;
  for (const Tensor& t : inputs) bytes += t.TotalBytes();
  if (bytes < LargeBlockRecycler::kMinBytes) return nullptr;
  if (device->GetAllocator() != cpu_allocator()) return nullptr;
  return LargeBlockRecycler::Get();
}

// A stable key for a node's op and attrs: protobuf's deterministic
// serialization sorts map entries by key.
std::string CacheKey(const NodeDef& node) {
  NodeDef key_node;
  key_node.set_op(node.op());
  *key_node.mutable_attr() = node.attr();
  std::string key;
  {
    google::protobuf::io::StringOutputStream raw(&key);
    google::protobuf::io::CodedOutputStream coded(&raw);
    coded.SetSerializationDeterministic(true);
    key_node.SerializeToCodedStream(&coded);
  }
  return key;
}

// Sets attr `name` of `node` to type `dt`, or checks it against the value
// already there. `what` describes the input for the message.
Status InferTypeAttr(const std::string& name, DataType dt,
                     const std::string& what, NodeDef* node) {
  auto it = node->mutable_attr()->find(name);
  if (it == node->mutable_attr()->end()) {
    (*node->mutable_attr())[name].set_type(dt);
    return Status::OK();
  }
  if (it->second.value_case() != AttrValue::kType) {
    return errors::InvalidArgument("Attr '", name, "' of ", node->op(),
                                   " must be a type, got ",
                                   it->second.ShortDebugString());
  }
  if (it->second.type() != dt) {
    return errors::InvalidArgument(
        "cannot compute ", node->op(), " as ", what, " was expected to be a ",
        DataTypeString(it->second.type()), " tensor but is a ",
        DataTypeString(dt), " tensor");
  }
  return Status::OK();
}

// Fills in the type and number attrs of `node` that its inputs determine.
Status InferAttrsFromInputs(const OpDef& op_def, const DataTypeVector& types,
                            NodeDef* node) {
  // How many inputs the variable-length args take: only inferable when
  // there is exactly one whose length is not given.
  int fixed = 0;
  int unknown_lists = 0;
  for (const auto& arg : op_def.input_arg()) {
    if (!arg.number_attr().empty()) {
      auto it = node->attr().find(arg.number_attr());
      if (it != node->attr().end() && it->second.value_case() == AttrValue::kI) {
        fixed += static_cast<int>(it->second.i());
      } else {
        ++unknown_lists;
      }
    } else if (!arg.type_list_attr().empty()) {
      auto it = node->attr().find(arg.type_list_attr());
      if (it != node->attr().end() && it->second.has_list()) {
        fixed += it->second.list().type_size();
      } else {
        ++unknown_lists;
      }
    } else {
      ++fixed;
    }
  }
  if (unknown_lists > 1) {
    return errors::InvalidArgument(
        node->op(), " has several list inputs; give their lengths as attrs "
        "(the number attr of each `N * T` input, the types of each "
        "list(type) input) so that ", types.size(), " inputs can be split");
  }
  const int list_length = static_cast<int>(types.size()) - fixed;
  if (list_length < 0 || (unknown_lists == 0 && list_length != 0)) {
    return errors::InvalidArgument(node->op(), " expects ", fixed,
                                   unknown_lists ? " or more" : "",
                                   " inputs, got ", types.size());
  }

  size_t next = 0;
  for (const auto& arg : op_def.input_arg()) {
    int count = 1;
    if (!arg.number_attr().empty()) {
      auto it = node->attr().find(arg.number_attr());
      if (it != node->attr().end() && it->second.value_case() == AttrValue::kI) {
        count = static_cast<int>(it->second.i());
      } else {
        count = list_length;
        (*node->mutable_attr())[arg.number_attr()].set_i(count);
      }
    } else if (!arg.type_list_attr().empty()) {
      auto it = node->attr().find(arg.type_list_attr());
      if (it != node->attr().end() && it->second.has_list()) {
        count = it->second.list().type_size();
        for (int k = 0; k < count; ++k) {
          if (RemoveRefType(it->second.list().type(k)) != types[next + k]) {
            return errors::InvalidArgument(
                "cannot compute ", node->op(), " as input #", next + k,
                "(zero-based) was expected to be a ",
                DataTypeString(it->second.list().type(k)), " tensor but is a ",
                DataTypeString(types[next + k]), " tensor");
          }
        }
      } else {
        count = list_length;
        AttrValue::ListValue* list =
            (*node->mutable_attr())[arg.type_list_attr()].mutable_list();
        for (int k = 0; k < count; ++k) list->add_type(types[next + k]);
      }
      next += count;
      continue;
    }
    for (int k = 0; k < count; ++k, ++next) {
      const std::string what = StrCat("input #", next, "(zero-based)");
      if (!arg.type_attr().empty()) {
        OPKIT_RETURN_IF_ERROR(InferTypeAttr(arg.type_attr(), types[next], what, node));
      } else if (RemoveRefType(arg.type()) != types[next]) {
        return errors::InvalidArgument(
            "cannot compute ", node->op(), " as ", what,
            " was expected to be a ", DataTypeString(RemoveRefType(arg.type())),
            " tensor but is a ", DataTypeString(types[next]), " tensor");
      }
    }
  }
  return Status::OK();
}

}  // namespace

struct EagerContext::KernelCache {
  struct Entry {
    std::shared_ptr<const NodeProperties> props;
    std::shared_ptr<OpKernel> kernel;
    uint64_t generation = 0;
  };
  mutex mu;
  absl::flat_hash_map<std::string, Entry> entries OPKIT_GUARDED_BY(mu);
};

EagerContext::EagerContext(const OpRegistryInterface* ops,
                           const KernelRegistry* kernels,
                           std::unique_ptr<Device> device)
    : op_registry_(ops),
      kernel_registry_(kernels),
      device_(std::move(device)),
      cache_(std::make_unique<KernelCache>()) {}

EagerContext::~EagerContext() = default;

StatusOr<std::unique_ptr<EagerContext>> EagerContext::Create() {
  return Create(Options());
}

StatusOr<std::unique_ptr<EagerContext>> EagerContext::Create(Options options) {
  if (options.intra_op_threads < 0) {
    return errors::InvalidArgument("intra_op_threads must be >= 0 (0 means one "
                                   "per core), got ", options.intra_op_threads);
  }
  const OpRegistryInterface* ops =
      options.op_registry ? options.op_registry : OpRegistry::Global();
  const KernelRegistry* kernels = options.kernel_registry
                                      ? options.kernel_registry
                                      : KernelRegistry::Global();
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Device> device,
                         CpuDevice::Create("/device:CPU:0", options.intra_op_threads));
  return std::unique_ptr<EagerContext>(
      new EagerContext(ops, kernels, std::move(device)));
}

Status EagerContext::BuildNode(std::string_view op,
                               const DataTypeVector& input_types,
                               const EagerAttrs& attrs,
                               std::shared_ptr<const NodeProperties>* props) const {
  const OpDef* op_def = nullptr;
  OPKIT_RETURN_IF_ERROR(op_registry_->LookUpOpDef(std::string(op), &op_def));
  NodeDef node;
  node.set_name(std::string(op));
  node.set_op(std::string(op));
  for (const auto& [name, value] : attrs) {
    if (!node.mutable_attr()->insert({name, value}).second) {
      return errors::InvalidArgument("Attr '", name, "' of ", op,
                                     " is given twice; give it once");
    }
  }
  for (size_t i = 0; i < input_types.size(); ++i) {
    if (input_types[i] == DT_INVALID || IsRefType(input_types[i])) {
      return errors::InvalidArgument("Input #", i, " of ", op,
                                     " has no valid type (",
                                     DataTypeString(input_types[i]),
                                     "); pass initialized tensors");
    }
  }
  OPKIT_RETURN_IF_ERROR(InferAttrsFromInputs(*op_def, input_types, &node));
  // Name the inputs so that ValidateNodeDef can count them.
  for (size_t i = 0; i < input_types.size(); ++i) {
    node.add_input(StrCat("_eager_input_", i));
  }
  OPKIT_RETURN_IF_ERROR(
      NodeProperties::CreateFromNodeDef(std::move(node), *op_def, props));
  if ((*props)->input_types != input_types) {
    return errors::InvalidArgument(
        "cannot compute ", op, ": it expects inputs of types [",
        DataTypeSliceString((*props)->input_types), "], got [",
        DataTypeSliceString(input_types), "]");
  }
  return Status::OK();
}

Status EagerContext::BuildKernel(const std::shared_ptr<const NodeProperties>& props,
                                 std::unique_ptr<OpKernel>* kernel,
                                 KernelSelection* selection) const {
  OPKIT_RETURN_IF_ERROR(
      kernel_registry_->FindKernel(CpuType(), props->node_def, selection));
  return CreateOpKernel(*selection, CpuType(), device_.get(), nullptr, props,
                        /*graph_def_version=*/0, kernel);
}

Status EagerContext::Execute(OpKernel* kernel, OpKernelContext::Params* params,
                             std::vector<TensorValue>* input_values,
                             const std::vector<Tensor>& inputs,
                             std::vector<Tensor>* outputs) const {
  const int n = static_cast<int>(inputs.size());
  if (n != kernel->num_inputs()) {
    return errors::InvalidArgument(kernel->type_string(), " takes ",
                                   kernel->num_inputs(), " inputs, got ", n);
  }
  for (int i = 0; i < n; ++i) {
    if (!inputs[i].IsInitialized()) {
      return errors::InvalidArgument(
          "Input #", i, " of ", kernel->type_string(),
          " is an uninitialized tensor (no buffer); give it a shape and "
          "values, e.g. Tensor(dtype, shape)");
    }
  }
  // The caller keeps its tensors: no kernel may take their buffers over.
  input_values->resize(n);
  for (int i = 0; i < n; ++i) {
    (*input_values)[i] = TensorValue(const_cast<Tensor*>(&inputs[i]));
  }
  params->forward_inputs = false;
  params->op_kernel = kernel;
  params->device = device_.get();
  params->allocator = EagerAllocator(device_.get(), inputs);
  params->inputs = input_values;
  Status status;
  {
    OpKernelContext ctx(params);
    status = ctx.status();
    if (status.ok()) {
      kernel->Compute(&ctx);
      status = ctx.status();
    }
    if (status.ok()) {
      const int num_outputs = ctx.num_outputs();
      outputs->resize(num_outputs);
      for (int i = 0; i < num_outputs && status.ok(); ++i) {
        status = ctx.release_output(i, &(*outputs)[i]);
      }
    }
  }
  if (!status.ok()) return AttachDef(status, kernel->def());
  return Status::OK();
}

Status EagerContext::Run(std::string_view op, const std::vector<Tensor>& inputs,
                         const EagerAttrs& attrs, std::vector<Tensor>* outputs) {
  if (outputs == nullptr) {
    return errors::InvalidArgument("Run(", op, "): outputs must not be null");
  }
  DataTypeVector types(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) types[i] = inputs[i].dtype();
  std::shared_ptr<const NodeProperties> props;
  OPKIT_RETURN_IF_ERROR(BuildNode(op, types, attrs, &props));

  const std::string key = CacheKey(props->node_def);
  const uint64_t generation = kernel_registry_->generation();
  std::shared_ptr<OpKernel> kernel;
  {
    mutex_lock l(cache_->mu);
    auto it = cache_->entries.find(key);
    if (it != cache_->entries.end() && it->second.generation == generation) {
      kernel = it->second.kernel;
    }
  }
  if (kernel == nullptr) {
    std::unique_ptr<OpKernel> built;
    KernelSelection selection;
    OPKIT_RETURN_IF_ERROR(BuildKernel(props, &built, &selection));
    kernel = std::move(built);
    mutex_lock l(cache_->mu);
    cache_->entries[key] = KernelCache::Entry{props, kernel, selection.generation};
  }
  OpKernelContext::Params params;
  std::vector<TensorValue> values;
  return Execute(kernel.get(), &params, &values, inputs, outputs);
}

StatusOr<std::unique_ptr<PreparedOp>> EagerContext::Prepare(
    std::string_view op, const DataTypeVector& input_types,
    const EagerAttrs& attrs) {
  std::shared_ptr<const NodeProperties> props;
  OPKIT_RETURN_IF_ERROR(BuildNode(op, input_types, attrs, &props));
  std::unique_ptr<PreparedOp> prepared(new PreparedOp(this, std::move(props)));
  OPKIT_RETURN_IF_ERROR(prepared->Select());
  return prepared;
}

StatusOr<KernelSelectionExplanation> EagerContext::Explain(
    std::string_view op, const DataTypeVector& input_types,
    const EagerAttrs& attrs) {
  std::shared_ptr<const NodeProperties> props;
  OPKIT_RETURN_IF_ERROR(BuildNode(op, input_types, attrs, &props));
  return kernel_registry_->ExplainKernelSelection(CpuType(), props->node_def);
}

size_t EagerContext::kernel_cache_size() const {
  mutex_lock l(cache_->mu);
  return cache_->entries.size();
}

PreparedOp::PreparedOp(EagerContext* context,
                       std::shared_ptr<const NodeProperties> props)
    : context_(context), props_(std::move(props)) {}

PreparedOp::~PreparedOp() = default;

Status PreparedOp::Select() {
  KernelSelection selection;
  std::unique_ptr<OpKernel> kernel;
  OPKIT_RETURN_IF_ERROR(context_->BuildKernel(props_, &kernel, &selection));
  kernel_ = std::move(kernel);
  kernel_def_ = selection.def;
  kernel_class_name_ = *selection.kernel_class_name;
  generation_ = selection.generation;
  ++selections_;
  return Status::OK();
}

Status PreparedOp::Run(const std::vector<Tensor>& inputs,
                       std::vector<Tensor>* outputs) {
  if (outputs == nullptr) {
    return errors::InvalidArgument("PreparedOp::Run: outputs must not be null");
  }
  if (context_->kernel_registry_->generation() != generation_) {
    OPKIT_RETURN_IF_ERROR(Select());
  }
  const DataTypeVector& expected = props_->input_types;
  if (inputs.size() != expected.size()) {
    return errors::InvalidArgument(props_->node_def.op(), " was prepared for ",
                                   expected.size(), " inputs, got ",
                                   inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != expected[i]) {
      return errors::InvalidArgument(
          props_->node_def.op(), " was prepared for input #", i, " of type ",
          DataTypeString(expected[i]), ", got ", DataTypeString(inputs[i].dtype()),
          "; prepare it again for the new types");
    }
  }
  return context_->Execute(kernel_.get(), &params_, &input_values_, inputs,
                           outputs);
}

}  // namespace opkit

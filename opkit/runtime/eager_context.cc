// EagerContext and PreparedOp: attr inference from inputs, the kernel cache
// keyed by call (Note [Eager call key]) and running a kernel on tensors.
#include "opkit/runtime/eager_context.h"

#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/tensor/allocator.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/runtime/internal/thread_count.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

const DeviceType& CpuType() {
  static const DeviceType* const kCpu = new DeviceType(DEVICE_CPU);
  return *kCpu;
}

// Note [Eager output memory]
// Every eager call allocates its outputs, and a program calling the same op
// in a loop frees the previous call's outputs as it gets the new ones. Eager
// calls on large inputs (together at least
// LargeBlockRecycler::kDefaultMinBytes, so, most likely, large outputs too)
// therefore allocate from large_block_cpu_allocator(), which hands recently
// freed large blocks back (Note [Large block recycling] in allocator.h).
// Small calls stay on the device's allocator: every block the recycler
// hands out costs a lock when freed.

// The allocator for an eager call's outputs and temporaries on `device`, or
// null for the device's own (Note [Eager output memory]).
Allocator* EagerAllocator(Device* device, const std::vector<Tensor>& inputs) {
  size_t bytes = 0;
  for (const Tensor& t : inputs) bytes += t.TotalBytes();
  if (bytes < LargeBlockRecycler::kDefaultMinBytes) return nullptr;
  if (device->GetAllocator() != cpu_allocator()) return nullptr;
  return large_block_cpu_allocator();
}

// Note [Eager call key]
// Run() finds its kernel by what the caller passed -- the op name, the
// input dtypes and the attrs as given (in any order) -- so that a cache hit
// builds no NodeDef, infers nothing and allocates nothing: the attrs the
// call infers and the defaults it adds follow from those three. The key is
// hashed (attrs combined order-independently) and a hit compares the whole
// key, so a hash collision costs a compare, never a wrong kernel. Attr
// values of the kinds eager calls pass (strings, numbers, bools, types and
// lists of those) are hashed and compared field by field; the others
// (shapes, tensors, funcs) through AttrValueHash and AreAttrValuesEqual.
// Two calls whose attrs differ only in how they are written (a default
// given explicitly or left out) get two entries with equal kernels.

uint64_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// A list holding only strings, numbers, bools and types.
bool IsPlainList(const AttrValue::ListValue& list) {
  return list.shape_size() == 0 && list.tensor_size() == 0 &&
         list.func_size() == 0;
}

// Consistent with EagerAttrEqual: equal values hash equal.
uint64_t EagerAttrHash(const AttrValue& v) {
  switch (v.value_case()) {
    case AttrValue::VALUE_NOT_SET:
      return 0;
    case AttrValue::kS:
      return absl::HashOf(1, v.s());
    case AttrValue::kI:
      return absl::HashOf(2, v.i());
    case AttrValue::kF:
      return absl::HashOf(3, FloatBits(v.f()));
    case AttrValue::kB:
      return absl::HashOf(4, v.b());
    case AttrValue::kType:
      return absl::HashOf(5, static_cast<int>(v.type()));
    case AttrValue::kList: {
      const AttrValue::ListValue& list = v.list();
      if (!IsPlainList(list)) return AttrValueHash(v);
      uint64_t h = absl::HashOf(6, list.s_size(), list.i_size(), list.f_size(),
                                list.b_size(), list.type_size());
      for (const std::string& x : list.s()) h = absl::HashOf(h, x);
      for (int64_t x : list.i()) h = absl::HashOf(h, x);
      for (float x : list.f()) h = absl::HashOf(h, FloatBits(x));
      for (bool x : list.b()) h = absl::HashOf(h, x);
      for (int x : list.type()) h = absl::HashOf(h, x);
      return h;
    }
    default:
      return AttrValueHash(v);
  }
}

template <typename Repeated, typename Same>
bool SameElements(const Repeated& a, const Repeated& b, Same same) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i) {
    if (!same(a.Get(i), b.Get(i))) return false;
  }
  return true;
}

// Whether two attr values are the same value; floats compare bit for bit
// (so NaN matches NaN and -0 does not match 0, as their encodings).
bool EagerAttrEqual(const AttrValue& a, const AttrValue& b) {
  if (a.value_case() != b.value_case()) return false;
  switch (a.value_case()) {
    case AttrValue::VALUE_NOT_SET:
      return true;
    case AttrValue::kS:
      return a.s() == b.s();
    case AttrValue::kI:
      return a.i() == b.i();
    case AttrValue::kF:
      return FloatBits(a.f()) == FloatBits(b.f());
    case AttrValue::kB:
      return a.b() == b.b();
    case AttrValue::kType:
      return a.type() == b.type();
    case AttrValue::kList: {
      const AttrValue::ListValue& la = a.list();
      const AttrValue::ListValue& lb = b.list();
      const bool plain = IsPlainList(la);
      if (plain != IsPlainList(lb)) return false;
      if (!plain) return AreAttrValuesEqual(a, b);
      const auto eq = [](const auto& x, const auto& y) { return x == y; };
      return SameElements(la.s(), lb.s(), eq) && SameElements(la.i(), lb.i(), eq) &&
             SameElements(la.f(), lb.f(),
                          [](float x, float y) { return FloatBits(x) == FloatBits(y); }) &&
             SameElements(la.b(), lb.b(), eq) && SameElements(la.type(), lb.type(), eq);
    }
    default:
      return AreAttrValuesEqual(a, b);
  }
}

// The hash of a call's key (Note [Eager call key]).
size_t EagerCallHash(std::string_view op, const std::vector<Tensor>& inputs,
                     const EagerAttrs& attrs) {
  size_t h = absl::HashOf(op, inputs.size(), attrs.size());
  for (const Tensor& t : inputs) h = absl::HashOf(h, static_cast<int>(t.dtype()));
  uint64_t attr_sum = 0;  // a sum: the order of the attrs does not matter
  for (const auto& [name, value] : attrs) {
    attr_sum += absl::HashOf(name, EagerAttrHash(value));
  }
  return absl::HashOf(h, attr_sum);
}

// Whether `a` and `b` set the same attrs to the same values, in any order.
// `b` has distinct names; then so has `a` if this is true.
bool SameAttrs(const EagerAttrs& a, const EagerAttrs& b) {
  if (a.size() != b.size()) return false;
  const auto contains = [](const EagerAttrs& in, const std::string& name,
                           const AttrValue& value) {
    for (const auto& [n, v] : in) {
      if (n == name) return EagerAttrEqual(v, value);
    }
    return false;
  };
  for (const auto& [name, value] : a) {
    if (!contains(b, name, value)) return false;
  }
  for (const auto& [name, value] : b) {
    if (!contains(a, name, value)) return false;
  }
  return true;
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
  int64_t fixed = 0;
  int unknown_lists = 0;
  for (const auto& arg : op_def.input_arg()) {
    if (!arg.number_attr().empty()) {
      auto it = node->attr().find(arg.number_attr());
      if (it != node->attr().end() && it->second.value_case() == AttrValue::kI) {
        // Checked before it is added up: a huge or negative count (an attr
        // the caller set) must not overflow the sum.
        const int64_t n = it->second.i();
        if (n < 0 || n > static_cast<int64_t>(types.size())) {
          return errors::InvalidArgument(
              node->op(), "'s attr ", arg.number_attr(), " = ", n, " cannot count input '",
              arg.name(), "': the op was given ", types.size(), " inputs");
        }
        fixed += n;
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
  const int list_length = static_cast<int>(static_cast<int64_t>(types.size()) - fixed);
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

// Note [Eager kernel cache], keyed as Note [Eager call key] says. Entries
// are never removed, so an Entry* stays valid while the context lives; a
// stale entry's kernel is replaced under the exclusive lock.
struct EagerContext::KernelCache {
  struct Entry {
    Entry(std::string_view op, const std::vector<Tensor>& inputs,
          const EagerAttrs& attrs, CachedKernel kernel)
        : op(op), attrs(attrs), kernel(std::move(kernel)) {
      types.reserve(inputs.size());
      for (const Tensor& t : inputs) types.push_back(t.dtype());
    }
    // Whether this entry is for a call of `op` on `inputs` with `attrs`.
    bool Matches(std::string_view call_op, const std::vector<Tensor>& inputs,
                 const EagerAttrs& call_attrs) const {
      if (call_op != op || inputs.size() != types.size()) return false;
      for (size_t i = 0; i < types.size(); ++i) {
        if (inputs[i].dtype() != types[i]) return false;
      }
      return SameAttrs(call_attrs, attrs);
    }

    const std::string op;
    DataTypeVector types;
    const EagerAttrs attrs;  // as the call gave them
    CachedKernel kernel;     // guarded by KernelCache::mu
  };

  // The entry for the call, or null; with `mu` held (shared or exclusive).
  Entry* Find(size_t hash, std::string_view op, const std::vector<Tensor>& inputs,
              const EagerAttrs& attrs) const OPKIT_REQUIRES_SHARED(mu) {
    auto it = entries.find(hash);
    if (it == entries.end()) return nullptr;
    for (const std::unique_ptr<Entry>& e : it->second) {
      if (e->Matches(op, inputs, attrs)) return e.get();
    }
    return nullptr;
  }

  mutable mutex mu;
  // By call hash; a bucket holds the entries whose keys collide.
  absl::flat_hash_map<size_t, std::vector<std::unique_ptr<Entry>>> entries
      OPKIT_GUARDED_BY(mu);
  size_t size OPKIT_GUARDED_BY(mu) = 0;
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
  OPKIT_ASSIGN_OR_RETURN(
      const int intra_op_threads,
      internal::ResolveThreadCount(options.intra_op_threads,
                                   "EagerContext::Options::intra_op_threads"));
  const OpRegistryInterface* ops =
      options.op_registry ? options.op_registry : OpRegistry::Global();
  const KernelRegistry* kernels = options.kernel_registry
                                      ? options.kernel_registry
                                      : KernelRegistry::Global();
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Device> device,
                         CpuDevice::Create("/device:CPU:0", intra_op_threads));
  return std::unique_ptr<EagerContext>(
      new EagerContext(ops, kernels, std::move(device)));
}

Status EagerContext::BuildNode(std::string_view op,
                               const DataTypeVector& input_types,
                               const EagerAttrs& attrs,
                               std::shared_ptr<const NodeProperties>* props) const {
  const OpDef* op_def = nullptr;
  OPKIT_RETURN_IF_ERROR(op_registry_->LookUpOpDef(std::string(op), &op_def));
  if (op == "Switch" || op == "RefSwitch") {
    // Its untaken output is a dead tensor, which only a graph carries.
    return errors::InvalidArgument(
        op, " forwards its input to one of two outputs and leaves the other "
        "dead, which only a graph can carry, so it cannot run eagerly; choose "
        "the branch with an if statement, or run the op in a graph "
        "(Session)");
  }
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
  // The hot path: a hit under the shared lock, no allocation.
  const size_t hash = EagerCallHash(op, inputs, attrs);
  std::shared_ptr<OpKernel> kernel;
  {
    shared_lock l(cache_->mu);
    const KernelCache::Entry* entry = cache_->Find(hash, op, inputs, attrs);
    if (entry != nullptr && entry->kernel.current()) {
      kernel = entry->kernel.shared_kernel();
    }
  }
  if (kernel == nullptr) {
    OPKIT_RETURN_IF_ERROR(SelectForCall(hash, op, inputs, attrs, &kernel));
  }
  OpKernelContext::Params params;
  std::vector<TensorValue> values;
  return Execute(kernel.get(), &params, &values, inputs, outputs);
}

Status EagerContext::SelectForCall(size_t hash, std::string_view op,
                                   const std::vector<Tensor>& inputs,
                                   const EagerAttrs& attrs,
                                   std::shared_ptr<OpKernel>* kernel) {
  std::optional<CachedKernel> cached;
  {
    shared_lock l(cache_->mu);
    const KernelCache::Entry* entry = cache_->Find(hash, op, inputs, attrs);
    if (entry != nullptr) cached = entry->kernel;  // stale: select again
  }
  if (!cached.has_value()) {
    DataTypeVector types(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) types[i] = inputs[i].dtype();
    std::shared_ptr<const NodeProperties> props;
    OPKIT_RETURN_IF_ERROR(BuildNode(op, types, attrs, &props));
    cached.emplace(kernel_registry_, device_.get(), std::move(props));
  }
  // Selected and built without the lock: other calls go on meanwhile.
  OPKIT_RETURN_IF_ERROR(cached->Refresh());
  *kernel = cached->shared_kernel();
  mutex_lock l(cache_->mu);
  KernelCache::Entry* entry = cache_->Find(hash, op, inputs, attrs);
  if (entry == nullptr) {
    cache_->entries[hash].push_back(std::make_unique<KernelCache::Entry>(
        op, inputs, attrs, *std::move(cached)));
    ++cache_->size;
  } else if (entry->kernel.generation() <= cached->generation()) {
    // Unless a racing call already stored a newer selection.
    entry->kernel = *std::move(cached);
  }
  return Status::OK();
}

StatusOr<std::unique_ptr<PreparedOp>> EagerContext::Prepare(
    std::string_view op, const DataTypeVector& input_types,
    const EagerAttrs& attrs) {
  std::shared_ptr<const NodeProperties> props;
  OPKIT_RETURN_IF_ERROR(BuildNode(op, input_types, attrs, &props));
  std::unique_ptr<PreparedOp> prepared(new PreparedOp(this, std::move(props)));
  OPKIT_RETURN_IF_ERROR(prepared->kernel_.Refresh());
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
  shared_lock l(cache_->mu);
  return cache_->size;
}

PreparedOp::PreparedOp(EagerContext* context,
                       std::shared_ptr<const NodeProperties> props)
    : context_(context),
      kernel_(context->kernel_registry_, context->device_.get(), std::move(props)) {}

PreparedOp::~PreparedOp() = default;

Status PreparedOp::Run(const std::vector<Tensor>& inputs,
                       std::vector<Tensor>* outputs) {
  if (outputs == nullptr) {
    return errors::InvalidArgument("PreparedOp::Run: outputs must not be null");
  }
  if (!kernel_.current()) OPKIT_RETURN_IF_ERROR(kernel_.Refresh());
  const DataTypeVector& expected = kernel_.props()->input_types;
  if (inputs.size() != expected.size()) {
    return errors::InvalidArgument(kernel_.props()->node_def.op(), " was prepared for ",
                                   expected.size(), " inputs, got ",
                                   inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != expected[i]) {
      return errors::InvalidArgument(
          kernel_.props()->node_def.op(), " was prepared for input #", i, " of type ",
          DataTypeString(expected[i]), ", got ", DataTypeString(inputs[i].dtype()),
          "; prepare it again for the new types");
    }
  }
  return context_->Execute(kernel_.kernel(), &params_, &input_values_, inputs,
                           outputs);
}

}  // namespace opkit

#include "opkit/runtime/eager_context.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/framework/node_def_util.h"
#include "opkit/framework/op_def_util.h"
#include "opkit/framework/op_kernel_construction.h"
#include "opkit/framework/types.h"

namespace opkit {
namespace {

const DeviceType& CpuType() {
  static const DeviceType* const kCpu = new DeviceType(DEVICE_CPU);
  return *kCpu;
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

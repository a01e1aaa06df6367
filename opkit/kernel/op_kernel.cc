// OpKernel, OpKernelConstruction, OpKernelContext, CreateOpKernel and the
// registrar behind REGISTER_KERNEL_BUILDER. See Note [Context misuse] in
// op_kernel_context.h for how misuse is reported.
#include "opkit/kernel/op_kernel.h"

#include <exception>
#include <new>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/threadpool.h"
#include "opkit/tensor/allocator.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"

namespace opkit {
namespace {

// The tensor input(int) returns for an index it cannot serve. Never
// destroyed, so references to it stay valid during shutdown too.
const Tensor& EmptyTensor() {
  static const Tensor* const empty = new Tensor();
  return *empty;
}

const std::shared_ptr<const NodeProperties>& EmptyNodeProperties() {
  static const auto* const empty = new std::shared_ptr<const NodeProperties>(
      std::make_shared<NodeProperties>(OpDef(), NodeDef(), DataTypeVector(),
                                       DataTypeVector()));
  return *empty;
}

// "file.cc" of "/a/b/file.cc".
const char* Basename(const char* file) {
  if (file == nullptr) return "";
  const char* base = file;
  for (const char* p = file; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

// TensorFlow's TypesCompatible: a ref type is accepted where its base type
// is expected.
bool TypesCompatible(DataType expected, DataType actual) {
  return expected == actual ||
         (!IsRefType(expected) && RemoveRefType(actual) == expected);
}

// "3 inputs" / "1 input" / "no inputs".
std::string CountOf(int n, const char* noun) {
  if (n == 0) return StrCat("no ", noun, "s");
  return StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace

// ---------------------------------------------------------------------------
// NodeProperties

Status NodeProperties::CreateFromNodeDef(
    NodeDef node_def, const OpRegistryInterface& op_registry,
    std::shared_ptr<const NodeProperties>* props) {
  const OpRegistrationData* op_reg_data = nullptr;
  OPKIT_RETURN_IF_ERROR(op_registry.LookUp(node_def.op(), &op_reg_data));
  return CreateFromNodeDef(std::move(node_def), op_reg_data->op_def, props);
}

Status NodeProperties::CreateFromNodeDef(
    NodeDef node_def, const OpDef& op_def,
    std::shared_ptr<const NodeProperties>* props) {
  props->reset();
  AddDefaultsToNodeDef(op_def, &node_def);
  OPKIT_RETURN_IF_ERROR(ValidateNodeDef(node_def, op_def));
  DataTypeVector inputs;
  DataTypeVector outputs;
  OPKIT_RETURN_IF_ERROR(InOutTypesForNode(node_def, op_def, &inputs, &outputs));
  *props = std::make_shared<const NodeProperties>(
      op_def, std::move(node_def), std::move(inputs), std::move(outputs));
  return OkStatus();
}

// ---------------------------------------------------------------------------
// OpKernelConstruction

OpKernelConstruction::OpKernelConstruction(
    DeviceType device_type, DeviceBase* device, Allocator* allocator,
    std::shared_ptr<const NodeProperties> props, int graph_def_version,
    Status* status)
    : device_type_(std::move(device_type)),
      device_(device),
      allocator_(allocator != nullptr  ? allocator
                 : device != nullptr   ? device->GetAllocator()
                                       : cpu_allocator()),
      props_(props != nullptr ? std::move(props) : EmptyNodeProperties()),
      graph_def_version_(graph_def_version),
      status_(status != nullptr ? status : &own_status_) {
  if (allocator_ == nullptr) allocator_ = cpu_allocator();
  if (props_ == EmptyNodeProperties() && props_->node_def.op().empty()) {
    SetStatus(errors::InvalidArgument(
        "OpKernelConstruction was given no NodeProperties; build them with "
        "NodeProperties::CreateFromNodeDef"));
  }
}

ResourceMgr* OpKernelConstruction::resource_manager() const {
  return device_ == nullptr ? nullptr : device_->resource_manager();
}

DataType OpKernelConstruction::input_type(int i) const {
  if (i < 0 || i >= num_inputs()) {
    const_cast<OpKernelConstruction*>(this)->SetStatus(errors::Internal(
        "input_type(", i, ") is out of range: ",
        FormatNodeDefForError(def()), " has ", CountOf(num_inputs(), "input")));
    return DT_INVALID;
  }
  return props_->input_types[i];
}

DataType OpKernelConstruction::output_type(int i) const {
  if (i < 0 || i >= num_outputs()) {
    const_cast<OpKernelConstruction*>(this)->SetStatus(errors::Internal(
        "output_type(", i, ") is out of range: ",
        FormatNodeDefForError(def()), " has ",
        CountOf(num_outputs(), "output")));
    return DT_INVALID;
  }
  return props_->output_types[i];
}

Status OpKernelConstruction::MatchSignature(
    const DataTypeSlice& expected_inputs,
    const DataTypeSlice& expected_outputs) {
  const DataTypeVector& inputs = input_types();
  const DataTypeVector& outputs = output_types();
  bool match = inputs.size() == expected_inputs.size() &&
               outputs.size() == expected_outputs.size();
  for (size_t i = 0; match && i < inputs.size(); ++i) {
    match = TypesCompatible(expected_inputs[i], inputs[i]);
  }
  for (size_t i = 0; match && i < outputs.size(); ++i) {
    match = TypesCompatible(expected_outputs[i], outputs[i]);
  }
  if (match) return OkStatus();
  Status s = errors::InvalidArgument(
      "Signature mismatch, have: ", DataTypeSliceString(inputs), "->",
      DataTypeSliceString(outputs),
      " expected: ", DataTypeSliceString(expected_inputs), "->",
      DataTypeSliceString(expected_outputs));
  SetStatus(s);
  return s;
}

bool OpKernelConstruction::HasAttr(std::string_view attr_name) const {
  return HasNodeAttr(AttrSlice(def()), attr_name);
}

Status OpKernelConstruction::allocate_temp(DataType type,
                                           const TensorShape& shape,
                                           Tensor* out_temp) {
  if (out_temp == nullptr) {
    return errors::InvalidArgument("allocate_temp was given a null output");
  }
  return Tensor::Allocate(type, shape, out_temp, allocator_);
}

void OpKernelConstruction::SetStatus(const Status& status) {
  status_->Update(status);
}

void OpKernelConstruction::CtxFailure(const Status& s) {
  VLOG(1) << s;
  SetStatus(s);
}

void OpKernelConstruction::CtxFailure(const char* file, int line,
                                      const Status& s) {
  VLOG(1) << "OP_REQUIRES failed at " << Basename(file) << ":" << line
          << " : " << s;
  SetStatus(s);
}

void OpKernelConstruction::CtxFailureWithWarning(const Status& s) {
  LOG(WARNING) << s;
  SetStatus(s);
}

void OpKernelConstruction::CtxFailureWithWarning(const char* file, int line,
                                                 const Status& s) {
  LOG(WARNING) << "OP_REQUIRES failed at " << Basename(file) << ":" << line
               << " : " << s;
  SetStatus(s);
}

// ---------------------------------------------------------------------------
// OpKernel

OpKernel::OpKernel(OpKernelConstruction* context)
    : props_(context->props()),
      library_owner_(context->library_owner()) {
  // Note [Inline kernel types]
  num_inputs_ = static_cast<int>(props_->input_types.size());
  num_outputs_ = static_cast<int>(props_->output_types.size());
  for (int i = 0; i < kInlineTypes && i < num_inputs_; ++i) {
    inline_input_types_[i] = props_->input_types[i];
  }
  for (int i = 0; i < kInlineTypes && i < num_outputs_; ++i) {
    inline_output_types_[i] = props_->output_types[i];
  }
  NameRangeMap inputs;
  NameRangeMap outputs;
  Status s = NameRangesForNode(AttrSlice(props_->node_def), props_->op_def,
                               &inputs, &outputs);
  if (!s.ok()) {
    context->SetStatus(s);
    return;
  }
  // The ranges must agree with the types, or the context would index past
  // the inputs it was given.
  auto add = [&](const auto& args, const NameRangeMap& ranges, int count,
                 ArgRangeMap* out, const char* kind) -> Status {
    for (const OpDef::ArgDef& arg : args) {
      auto it = ranges.find(arg.name());
      if (it == ranges.end()) continue;
      const auto [start, stop] = it->second;
      if (start < 0 || stop < start || stop > count) {
        return errors::Internal("The ", kind, " range [", start, ", ", stop,
                                ") of argument '", arg.name(), "' of ",
                                FormatNodeDefForError(props_->node_def),
                                " does not fit its ", count, " ", kind, "s");
      }
      const bool is_list =
          !arg.number_attr().empty() || !arg.type_list_attr().empty();
      out->emplace(arg.name(), ArgRange{start, stop, is_list});
    }
    return OkStatus();
  };
  s = add(props_->op_def.input_arg(), inputs, num_inputs(), &input_ranges_,
          "input");
  if (s.ok()) {
    s = add(props_->op_def.output_arg(), outputs, num_outputs(),
            &output_ranges_, "output");
  }
  if (!s.ok()) context->SetStatus(s);
}

OpKernel::~OpKernel() = default;

DataType OpKernel::InputTypeSlow(int i) const {
  if (i < 0 || i >= num_inputs()) return DT_INVALID;
  return props_->input_types[i];
}

DataType OpKernel::OutputTypeSlow(int i) const {
  if (i < 0 || i >= num_outputs()) return DT_INVALID;
  return props_->output_types[i];
}

Status OpKernel::InputRange(std::string_view input_name, int* start,
                            int* stop) const {
  bool is_list = false;
  return InputRange(input_name, start, stop, &is_list);
}

Status OpKernel::OutputRange(std::string_view output_name, int* start,
                             int* stop) const {
  bool is_list = false;
  return OutputRange(output_name, start, stop, &is_list);
}

Status OpKernel::InputRange(std::string_view input_name, int* start, int* stop,
                            bool* is_list) const {
  auto it = input_ranges_.find(input_name);
  if (it == input_ranges_.end()) {
    return errors::InvalidArgument("Unknown input name: ", input_name);
  }
  *start = it->second.start;
  *stop = it->second.stop;
  *is_list = it->second.is_list;
  return OkStatus();
}

Status OpKernel::OutputRange(std::string_view output_name, int* start,
                             int* stop, bool* is_list) const {
  auto it = output_ranges_.find(output_name);
  if (it == output_ranges_.end()) {
    return errors::InvalidArgument("Unknown output name: ", output_name);
  }
  *start = it->second.start;
  *stop = it->second.stop;
  *is_list = it->second.is_list;
  return OkStatus();
}

void AsyncOpKernel::Compute(OpKernelContext* context) {
  // Shared with the callback, so that a late or repeated `done` touches
  // live memory even after this call has returned.
  struct State {
    mutex mu;
    condition_variable cv;
    bool done = false;
  };
  auto state = std::make_shared<State>();
  ComputeAsync(context, [state]() {
    mutex_lock l(state->mu);
    state->done = true;
    state->cv.notify_all();
  });
  mutex_lock l(state->mu);
  state->cv.wait(l, [&state] { return state->done; });
}

// ---------------------------------------------------------------------------
// OpInputList, OpOutputList

const Tensor& OpInputList::operator[](int i) const {
  if (i < 0 || i >= size()) {
    if (ctx_ != nullptr) {
      ctx_->SetStatus(errors::Internal(
          "OpInputList index ", i, " is out of range: the list has ",
          CountOf(size(), "element"), " (kernel ", ctx_->op_kernel().name(),
          ")"));
    }
    return EmptyTensor();
  }
  return ctx_->input(start_ + i);
}

Status OpOutputList::CheckIndex(int i) const {
  if (ctx_ == nullptr) {
    return errors::Internal("OpOutputList used before output_list() set it");
  }
  if (i < 0 || i >= size()) {
    Status s = errors::Internal("OpOutputList index ", i,
                                " is out of range: the list has ",
                                CountOf(size(), "element"), " (kernel ",
                                ctx_->op_kernel().name(), ")");
    ctx_->SetStatus(s);
    return s;
  }
  return OkStatus();
}

Tensor* OpOutputList::operator[](int i) const {
  if (!CheckIndex(i).ok()) return nullptr;
  return ctx_->mutable_output(start_ + i);
}

DataType OpOutputList::expected_output_dtype(int i) const {
  if (!CheckIndex(i).ok()) return DT_INVALID;
  return ctx_->expected_output_dtype(start_ + i);
}

Status OpOutputList::allocate(int i, const TensorShape& shape,
                              Tensor** output) {
  if (output != nullptr) *output = nullptr;
  OPKIT_RETURN_IF_ERROR(CheckIndex(i));
  return ctx_->allocate_output(start_ + i, shape, output);
}

void OpOutputList::set(int i, const Tensor& tensor) {
  if (!CheckIndex(i).ok()) return;
  ctx_->set_output(start_ + i, tensor);
}

void OpOutputList::set(int i, Tensor&& tensor) {
  if (!CheckIndex(i).ok()) return;
  ctx_->set_output(start_ + i, std::move(tensor));
}

// ---------------------------------------------------------------------------
// OpKernelContext

OpKernelContext::OpKernelContext(Params* params) : params_(params) {
  DeviceBase* device = params_->device;
  allocator_ = params_->allocator;
  if (allocator_ == nullptr && device != nullptr) {
    allocator_ = device->GetAllocator();
  }
  if (allocator_ == nullptr) allocator_ = cpu_allocator();
  resource_manager_ = params_->resource_manager;
  if (resource_manager_ == nullptr && device != nullptr) {
    resource_manager_ = device->resource_manager();
  }
  const OpKernel* kernel = params_->op_kernel;
  if (kernel == nullptr) {
    // Without a kernel there are no argument types to check against: the
    // context serves no inputs or outputs.
    status_ = errors::InvalidArgument(
        "OpKernelContext::Params::op_kernel is null; set it to the kernel "
        "being run");
    outputs_ = reinterpret_cast<OutputSlot*>(inline_outputs_);
    return;
  }
  num_inputs_ = params_->inputs == nullptr
                    ? 0
                    : static_cast<int>(params_->inputs->size());
  num_outputs_ = kernel->num_outputs();
  if (num_outputs_ <= kInlineOutputs) {
    outputs_ = reinterpret_cast<OutputSlot*>(inline_outputs_);
    for (; inline_constructed_ < num_outputs_; ++inline_constructed_) {
      new (&outputs_[inline_constructed_]) OutputSlot();
    }
  } else {
    heap_outputs_.reset(new OutputSlot[num_outputs_]);
    outputs_ = heap_outputs_.get();
  }
  if (num_inputs_ != kernel->num_inputs()) {
    status_ = errors::InvalidArgument(
        FormatNodeDefForError(kernel->def()), " (op ", kernel->type_string(),
        ") expects ", CountOf(kernel->num_inputs(), "input"), ", but ",
        CountOf(num_inputs_, "input"), num_inputs_ == 1 ? " was" : " were",
        " given");
    return;
  }
  for (int i = 0; i < num_inputs_; ++i) {
    const TensorValue& value = (*params_->inputs)[i];
    if (value.tensor == nullptr) {
      if (params_->allow_missing_inputs) continue;
      status_ = errors::InvalidArgument(
          "Input ", i, " of ", FormatNodeDefForError(kernel->def()),
          " has no tensor (null TensorValue::tensor)");
      return;
    }
    const DataType expected = kernel->input_type(i);
    if (!TypesCompatible(expected, value.dtype())) {
      status_ = errors::InvalidArgument(
          "Input ", i, " of ", FormatNodeDefForError(kernel->def()), " (op ",
          kernel->type_string(), ") must be ", DataTypeString(expected),
          ", but a ", DataTypeString(value.dtype()), " tensor was given");
      return;
    }
  }
}

OpKernelContext::~OpKernelContext() {
  OutputSlot* inline_slots = reinterpret_cast<OutputSlot*>(inline_outputs_);
  for (int i = 0; i < inline_constructed_; ++i) inline_slots[i].~OutputSlot();
}

template <>
const Eigen::ThreadPoolDevice&
OpKernelContext::eigen_device<Eigen::ThreadPoolDevice>() const {
  return eigen_cpu_device();
}

template <>
const Eigen::DefaultDevice&
OpKernelContext::eigen_device<Eigen::DefaultDevice>() const {
  static const Eigen::DefaultDevice* const device = new Eigen::DefaultDevice();
  return *device;
}

const Eigen::ThreadPoolDevice& OpKernelContext::eigen_cpu_device() const {
  if (params_->device != nullptr && params_->device->has_eigen_cpu_device()) {
    return *params_->device->eigen_cpu_device();
  }
  // A kernel run without a device (a test, a bare DeviceBase) still gets a
  // working device; one thread keeps it cheap when nobody uses it.
  static ThreadPool* const fallback = new ThreadPool("opkit_fallback", 1);
  return fallback->eigen_device();
}

// --- Misuse helpers ------------------------------------------------------------

Status OpKernelContext::Misuse(Status s) const {
  SetStatus(s);
  return s;
}

Status OpKernelContext::InputIndexError(const char* what, int index) const {
  const std::string kernel_name =
      params_->op_kernel == nullptr ? std::string("<none>")
                                    : params_->op_kernel->name();
  if (index >= 0 && index < num_inputs_) {
    return Misuse(errors::Internal(what, "(", index, "): input ", index,
                                   " of kernel ", kernel_name,
                                   " has no tensor"));
  }
  return Misuse(errors::Internal(
      what, "(", index, ") is out of range: kernel ", kernel_name, " has ",
      CountOf(num_inputs_, "input"),
      num_inputs_ > 0 ? StrCat(" (valid indices 0 to ", num_inputs_ - 1, ")")
                      : std::string()));
}

Status OpKernelContext::CheckOutputIndex(const char* what, int index) const {
  if (index >= 0 && index < num_outputs_) return OkStatus();
  const std::string kernel_name =
      params_->op_kernel == nullptr ? std::string("<none>")
                                    : params_->op_kernel->name();
  // TensorFlow's text for allocate_output.
  if (index < 0) {
    return Misuse(errors::Internal(what, " with bad index=", index,
                                   " kernel=", kernel_name));
  }
  return Misuse(errors::Internal(what, " with bad index=", index,
                                 " num_outputs=", num_outputs_,
                                 " kernel=", kernel_name));
}

Status OpKernelContext::CheckOutputFree(const char* what, int index) const {
  if (outputs_[index].set) {
    return Misuse(errors::Internal(
        what, ": output ", index, " of kernel ", op_kernel().name(),
        " is already set; each output may be allocated or set once per call"));
  }
  if (IsRefType(op_kernel().output_type(index))) {
    return Misuse(errors::Unimplemented(
        what, ": output ", index, " of kernel ", op_kernel().name(),
        " is a Ref output (",
        DataTypeString(op_kernel().output_type(index)),
        "), which OpKernelContext does not support"));
  }
  return OkStatus();
}

Status OpKernelContext::InputArg(std::string_view name, int* start, int* stop,
                                 bool* is_list) const {
  if (params_->op_kernel == nullptr) {
    return Misuse(errors::InvalidArgument("Unknown input name: ", name));
  }
  return Misuse(op_kernel().InputRange(name, start, stop, is_list));
}

Status OpKernelContext::OutputArg(std::string_view name, int* start, int* stop,
                                  bool* is_list) const {
  if (params_->op_kernel == nullptr) {
    return Misuse(errors::InvalidArgument("Unknown output name: ", name));
  }
  return Misuse(op_kernel().OutputRange(name, start, stop, is_list));
}

Status OpKernelContext::SingleInputIndex(std::string_view name,
                                         int* index) const {
  int start = 0, stop = 0;
  bool is_list = false;
  OPKIT_RETURN_IF_ERROR(InputArg(name, &start, &stop, &is_list));
  // TensorFlow's rule: a list of exactly one element may be used as a
  // single input.
  if (stop != start + 1) {
    return Misuse(errors::InvalidArgument(
        "OpKernel used list-valued input name '", name,
        "' when single-valued input was expected"));
  }
  *index = start;
  return OkStatus();
}

Status OpKernelContext::SingleOutputIndex(std::string_view name,
                                          int* index) const {
  int start = 0, stop = 0;
  bool is_list = false;
  OPKIT_RETURN_IF_ERROR(OutputArg(name, &start, &stop, &is_list));
  if (stop != start + 1) {
    return Misuse(errors::InvalidArgument(
        "OpKernel used list-valued output name '", name,
        "' when single-valued output was expected"));
  }
  *index = start;
  return OkStatus();
}

// --- Inputs ------------------------------------------------------------------

DataType OpKernelContext::input_dtype(int index) const {
  if (index < 0 || index >= num_inputs_) {
    InputIndexError("input_dtype", index).IgnoreError();
    return DT_INVALID;
  }
  return (*params_->inputs)[index].dtype();
}

Status OpKernelContext::input_dtype(std::string_view name,
                                    DataType* dtype) const {
  int index = 0;
  OPKIT_RETURN_IF_ERROR(SingleInputIndex(name, &index));
  if (index >= num_inputs_ || (*params_->inputs)[index].tensor == nullptr) {
    return InputIndexError("input_dtype", index);
  }
  *dtype = (*params_->inputs)[index].dtype();
  return OkStatus();
}

bool OpKernelContext::input_is_ref(int index) const {
  if (index < 0 || index >= num_inputs_) return false;
  return (*params_->inputs)[index].is_ref();
}

bool OpKernelContext::has_input(int index) const {
  if (index < 0 || index >= num_inputs_) return false;
  return (*params_->inputs)[index].tensor != nullptr;
}

const Tensor& OpKernelContext::input(int index) const {
  if (index >= 0 && index < num_inputs_) {
    const Tensor* t = (*params_->inputs)[index].tensor;
    if (t != nullptr) return *t;
  }
  InputIndexError("input", index).IgnoreError();
  return EmptyTensor();
}

Status OpKernelContext::input(std::string_view name, const Tensor** tensor) {
  *tensor = nullptr;
  int index = 0;
  OPKIT_RETURN_IF_ERROR(SingleInputIndex(name, &index));
  if (index >= num_inputs_ || (*params_->inputs)[index].tensor == nullptr) {
    return InputIndexError("input", index);
  }
  if (input_is_ref(index)) {
    return Misuse(errors::InvalidArgument("OpKernel used ref input name '",
                                          name,
                                          "' when non-ref input was expected"));
  }
  *tensor = (*params_->inputs)[index].tensor;
  return OkStatus();
}

Status OpKernelContext::input_list(std::string_view name, OpInputList* list) {
  int start = 0, stop = 0;
  bool is_list = false;
  OPKIT_RETURN_IF_ERROR(InputArg(name, &start, &stop, &is_list));
  if (!is_list) {
    return Misuse(errors::InvalidArgument(
        "OpKernel used single-valued input name '", name,
        "' when list-valued input was expected; use input() for it"));
  }
  *list = OpInputList(this, start, stop);
  return OkStatus();
}

Tensor OpKernelContext::mutable_input(int index, bool lock_held) {
  if (index < 0 || index >= num_inputs_ ||
      (*params_->inputs)[index].tensor == nullptr) {
    InputIndexError("mutable_input", index).IgnoreError();
    return EmptyTensor();
  }
  const TensorValue& value = (*params_->inputs)[index];
  if (!value.is_ref()) {
    Misuse(errors::Internal("mutable_input(", index, "): input ", index,
                            " of kernel ", op_kernel().name(),
                            " is not a Ref input; use input()"))
        .IgnoreError();
    return EmptyTensor();
  }
  if (lock_held) return *value.tensor;
  mutex_lock l(*value.mutex_if_ref);
  return *value.tensor;
}

Status OpKernelContext::mutable_input(std::string_view name, Tensor* tensor,
                                      bool lock_held) {
  int index = 0;
  OPKIT_RETURN_IF_ERROR(SingleInputIndex(name, &index));
  if (index >= num_inputs_ || (*params_->inputs)[index].tensor == nullptr) {
    return InputIndexError("mutable_input", index);
  }
  if (!input_is_ref(index)) {
    return Misuse(errors::InvalidArgument(
        "OpKernel used non-ref input name '", name,
        "' when ref input was expected"));
  }
  *tensor = mutable_input(index, lock_held);
  return OkStatus();
}

mutex* OpKernelContext::input_ref_mutex(int index) {
  if (index < 0 || index >= num_inputs_ ||
      (*params_->inputs)[index].tensor == nullptr) {
    InputIndexError("input_ref_mutex", index).IgnoreError();
    return nullptr;
  }
  const TensorValue& value = (*params_->inputs)[index];
  if (!value.is_ref()) {
    Misuse(errors::Internal("input_ref_mutex(", index, "): input ", index,
                            " of kernel ", op_kernel().name(),
                            " is not a Ref input"))
        .IgnoreError();
    return nullptr;
  }
  return value.mutex_if_ref;
}

void OpKernelContext::replace_ref_input(int index, const Tensor& tensor,
                                        bool lock_held) {
  mutex* mu = input_ref_mutex(index);
  if (mu == nullptr) return;
  Tensor* target = (*params_->inputs)[index].tensor;
  if (lock_held) {
    *target = tensor;
  } else {
    mutex_lock l(*mu);
    *target = tensor;
  }
}

// --- Outputs -----------------------------------------------------------------

DataType OpKernelContext::expected_output_dtype(int index) const {
  if (!CheckOutputIndex("expected_output_dtype", index).ok()) {
    return DT_INVALID;
  }
  return op_kernel().output_type(index);
}

Status OpKernelContext::allocate_output(int index, const TensorShape& shape,
                                        Tensor** tensor) {
  if (tensor == nullptr) {
    return Misuse(errors::Internal("allocate_output(", index,
                                   ") was given a null Tensor**"));
  }
  *tensor = nullptr;
  OPKIT_RETURN_IF_ERROR(CheckOutputIndex("allocate_output", index));
  OPKIT_RETURN_IF_ERROR(CheckOutputFree("allocate_output", index));
  OutputSlot& slot = outputs_[index];
  OPKIT_RETURN_IF_ERROR(Tensor::Allocate(op_kernel().output_type(index), shape,
                                         &slot.tensor, allocator_));
  slot.set = true;
  if (params_->track_allocations) {
    output_bytes_ += static_cast<int64_t>(slot.tensor.AllocatedBytes());
  }
  *tensor = &slot.tensor;
  return OkStatus();
}

Status OpKernelContext::allocate_output(std::string_view name,
                                        const TensorShape& shape,
                                        Tensor** tensor) {
  if (tensor != nullptr) *tensor = nullptr;
  int index = 0;
  OPKIT_RETURN_IF_ERROR(SingleOutputIndex(name, &index));
  return allocate_output(index, shape, tensor);
}

Status OpKernelContext::allocate_temp(DataType type, const TensorShape& shape,
                                      Tensor* out_temp) {
  if (out_temp == nullptr) {
    return Misuse(errors::Internal("allocate_temp was given a null Tensor*"));
  }
  OPKIT_RETURN_IF_ERROR(Tensor::Allocate(type, shape, out_temp, allocator_));
  if (params_->track_allocations) {
    temp_bytes_ += static_cast<int64_t>(out_temp->AllocatedBytes());
  }
  return OkStatus();
}

Status OpKernelContext::SetOutputChecked(int index, Tensor&& tensor) {
  OPKIT_RETURN_IF_ERROR(CheckOutputIndex("set_output", index));
  OPKIT_RETURN_IF_ERROR(CheckOutputFree("set_output", index));
  const DataType expected = op_kernel().output_type(index);
  if (tensor.dtype() != expected) {
    return Misuse(errors::Internal(
        "set_output: output ", index, " of kernel ", op_kernel().name(),
        " (op ", op_kernel().type_string(), ") must be ",
        DataTypeString(expected), ", but a ", DataTypeString(tensor.dtype()),
        " tensor was given"));
  }
  OutputSlot& slot = outputs_[index];
  slot.tensor = std::move(tensor);
  slot.set = true;
  return OkStatus();
}

void OpKernelContext::set_output(int index, const Tensor& tensor) {
  SetOutputChecked(index, Tensor(tensor)).IgnoreError();
}

void OpKernelContext::set_output(int index, Tensor&& tensor) {
  SetOutputChecked(index, std::move(tensor)).IgnoreError();
}

Status OpKernelContext::set_output(std::string_view name,
                                   const Tensor& tensor) {
  int index = 0;
  OPKIT_RETURN_IF_ERROR(SingleOutputIndex(name, &index));
  return SetOutputChecked(index, Tensor(tensor));
}

Status OpKernelContext::output_list(std::string_view name,
                                    OpOutputList* list) {
  int start = 0, stop = 0;
  bool is_list = false;
  OPKIT_RETURN_IF_ERROR(OutputArg(name, &start, &stop, &is_list));
  if (!is_list) {
    return Misuse(errors::InvalidArgument(
        "OpKernel used single-valued output name '", name,
        "' when list-valued output was expected"));
  }
  *list = OpOutputList(this, start, stop);
  return OkStatus();
}

bool OpKernelContext::forward_input_to_output_with_shape(
    int input_index, int output_index, const TensorShape& output_shape,
    Tensor** output) {
  if (output == nullptr) {
    Misuse(errors::Internal("forward_input_to_output_with_shape was given a "
                            "null Tensor**"))
        .IgnoreError();
    return false;
  }
  *output = nullptr;
  if (input_index < 0 || input_index >= num_inputs_ ||
      (*params_->inputs)[input_index].tensor == nullptr) {
    InputIndexError("forward_input_to_output_with_shape", input_index)
        .IgnoreError();
    return false;
  }
  if (!CheckOutputIndex("forward_input_to_output_with_shape", output_index)
           .ok() ||
      !CheckOutputFree("forward_input_to_output_with_shape", output_index)
           .ok()) {
    return false;
  }
  const TensorValue& value = (*params_->inputs)[input_index];
  if (value.is_ref()) {
    Misuse(errors::Internal("forward_input_to_output_with_shape: input ",
                            input_index, " of kernel ", op_kernel().name(),
                            " is a Ref input and cannot be forwarded"))
        .IgnoreError();
    return false;
  }
  const DataType expected = op_kernel().output_type(output_index);
  if (value.tensor->dtype() != expected) {
    Misuse(errors::Internal(
        "forward_input_to_output_with_shape: input ", input_index, " is ",
        DataTypeString(value.tensor->dtype()), " but output ", output_index,
        " of kernel ", op_kernel().name(), " must be ",
        DataTypeString(expected)))
        .IgnoreError();
    return false;
  }
  Tensor forwarded;
  if (!forwarded.CopyFrom(*value.tensor, output_shape)) return false;
  OutputSlot& slot = outputs_[output_index];
  slot.tensor = std::move(forwarded);
  slot.set = true;
  *output = &slot.tensor;
  return true;
}

Status OpKernelContext::forward_input_to_output_with_shape(
    std::string_view input_name, std::string_view output_name,
    const TensorShape& output_shape, Tensor** output) {
  if (output != nullptr) *output = nullptr;
  int input_index = 0;
  int output_index = 0;
  OPKIT_RETURN_IF_ERROR(SingleInputIndex(input_name, &input_index));
  OPKIT_RETURN_IF_ERROR(SingleOutputIndex(output_name, &output_index));
  const bool had_error = !status_.ok();
  if (!forward_input_to_output_with_shape(input_index, output_index,
                                          output_shape, output)) {
    // A misuse was recorded by this call: return it.
    if (!had_error && !status_.ok()) return status_;
    // TensorFlow's text (element counts differ).
    return errors::FailedPrecondition("OpKernel could not forward input '",
                                      input_name, "' to output '",
                                      output_name, "'");
  }
  return OkStatus();
}

bool OpKernelContext::TryForward(int input_index, int output_index,
                                 const TensorShape& output_shape,
                                 Tensor** output) {
  const TensorValue& value = (*params_->inputs)[input_index];
  const Tensor* input = value.tensor;
  // Taking the buffer over is safe only if nobody else can see it: no other
  // Tensor shares it, and it is not a Ref (whose owner keeps using it).
  if (!params_->forward_inputs || input == nullptr || value.is_ref() ||
      input->dtype() != op_kernel().output_type(output_index) ||
      input->NumElements() != output_shape.num_elements() ||
      !input->RefCountIsOne() || !input->IsAligned()) {
    return false;
  }
  Tensor forwarded;
  if (!forwarded.CopyFrom(*input, output_shape)) return false;
  OutputSlot& slot = outputs_[output_index];
  slot.tensor = std::move(forwarded);
  slot.set = true;
  *output = &slot.tensor;
  return true;
}

Status OpKernelContext::forward_input_or_allocate_output(
    std::initializer_list<int> candidate_input_indices, int output_index,
    const TensorShape& output_shape, Tensor** output, int* forwarded_input) {
  return forward_input_or_allocate_output(
      candidate_input_indices.begin(), candidate_input_indices.size(),
      output_index, output_shape, output, forwarded_input);
}

Status OpKernelContext::forward_input_or_allocate_output(
    const int* candidate_input_indices, size_t num_candidates,
    int output_index, const TensorShape& output_shape, Tensor** output,
    int* forwarded_input) {
  if (forwarded_input != nullptr) *forwarded_input = -1;
  if (output == nullptr) {
    return Misuse(errors::Internal(
        "forward_input_or_allocate_output was given a null Tensor**"));
  }
  *output = nullptr;
  OPKIT_RETURN_IF_ERROR(
      CheckOutputIndex("forward_input_or_allocate_output", output_index));
  OPKIT_RETURN_IF_ERROR(
      CheckOutputFree("forward_input_or_allocate_output", output_index));
  for (size_t i = 0; i < num_candidates; ++i) {
    const int input_index = candidate_input_indices[i];
    if (input_index < 0 || input_index >= num_inputs_) {
      return InputIndexError("forward_input_or_allocate_output", input_index);
    }
  }
  for (size_t i = 0; i < num_candidates && params_->forward_inputs; ++i) {
    const int input_index = candidate_input_indices[i];
    if (TryForward(input_index, output_index, output_shape, output)) {
      if (forwarded_input != nullptr) *forwarded_input = input_index;
      return OkStatus();
    }
  }
  return allocate_output(output_index, output_shape, output);
}

void OpKernelContext::set_output_ref(int index, mutex* mu,
                                     Tensor* tensor_for_ref) {
  if (!CheckOutputIndex("set_output_ref", index).ok()) return;
  const DataType expected = op_kernel().output_type(index);
  if (!IsRefType(expected)) {
    Misuse(errors::Internal("set_output_ref: output ", index, " of kernel ",
                            op_kernel().name(), " is not a Ref output (",
                            DataTypeString(expected), "); use set_output()"))
        .IgnoreError();
    return;
  }
  if (mu == nullptr || tensor_for_ref == nullptr) {
    Misuse(errors::Internal("set_output_ref: output ", index, " of kernel ",
                            op_kernel().name(),
                            " was given a null mutex or tensor"))
        .IgnoreError();
    return;
  }
  OutputSlot& slot = outputs_[index];
  if (slot.set) {
    Misuse(errors::Internal("set_output_ref: output ", index, " of kernel ",
                            op_kernel().name(), " is already set"))
        .IgnoreError();
    return;
  }
  // An uninitialized variable's tensor may still be a placeholder of another
  // dtype; only a real value must match.
  if (tensor_for_ref->IsInitialized() &&
      tensor_for_ref->dtype() != RemoveRefType(expected)) {
    Misuse(errors::Internal("set_output_ref: output ", index, " of kernel ",
                            op_kernel().name(), " must refer to a ",
                            DataTypeString(RemoveRefType(expected)),
                            " tensor, but a ",
                            DataTypeString(tensor_for_ref->dtype()),
                            " tensor was given"))
        .IgnoreError();
    return;
  }
  slot.ref_mu = mu;
  slot.ref = tensor_for_ref;
  slot.set = true;
}

void OpKernelContext::forward_ref_input_to_ref_output(int input_index,
                                                      int output_index) {
  mutex* mu = input_ref_mutex(input_index);
  if (mu == nullptr) return;
  set_output_ref(output_index, mu, (*params_->inputs)[input_index].tensor);
}

bool OpKernelContext::output_is_ref(int index) const {
  return index >= 0 && index < num_outputs_ && outputs_[index].set &&
         outputs_[index].ref != nullptr;
}

TensorValue OpKernelContext::output_ref(int index) const {
  if (!output_is_ref(index)) return TensorValue();
  return TensorValue(outputs_[index].ref_mu, outputs_[index].ref);
}

Tensor* OpKernelContext::mutable_output(int index) {
  if (!CheckOutputIndex("mutable_output", index).ok()) return nullptr;
  OutputSlot& slot = outputs_[index];
  return slot.set ? &slot.tensor : nullptr;
}

bool OpKernelContext::output_is_set(int index) const {
  return index >= 0 && index < num_outputs_ && outputs_[index].set;
}

Status OpKernelContext::release_output(int index, Tensor* out) {
  if (index < 0 || index >= num_outputs_) {
    return errors::Internal("release_output(", index,
                            ") is out of range: the kernel has ",
                            CountOf(num_outputs_, "output"));
  }
  OutputSlot& slot = outputs_[index];
  if (!slot.set) {
    return errors::Internal("release_output(", index, "): output ", index,
                            " of kernel ", op_kernel().name(),
                            " was never set");
  }
  if (slot.ref != nullptr) {
    // A ref output read as a value: a copy sharing the buffer, taken under
    // the ref's lock so that it sees a whole assignment.
    mutex_lock l(*slot.ref_mu);
    *out = *slot.ref;
    slot.set = false;
    slot.ref = nullptr;
    slot.ref_mu = nullptr;
    return OkStatus();
  }
  *out = std::move(slot.tensor);
  slot.set = false;
  return OkStatus();
}

Status OpKernelContext::CheckAllOutputsSet() const {
  for (int i = 0; i < num_outputs_; ++i) {
    if (!outputs_[i].set) {
      return errors::Internal("Missing ", i, "-th output from ",
                              FormatNodeDefForError(op_kernel().def()));
    }
  }
  return OkStatus();
}

// --- Status --------------------------------------------------------------------

void OpKernelContext::SetStatus(const Status& status) const {
  status_.Update(status);
}

void OpKernelContext::CtxFailure(const Status& s) {
  VLOG(1) << s;
  SetStatus(s);
}

void OpKernelContext::CtxFailure(const char* file, int line, const Status& s) {
  VLOG(1) << "OP_REQUIRES failed at " << Basename(file) << ":" << line
          << " : " << s;
  if (status_.ok() && !s.ok()) {
    failure_file_ = file;
    failure_line_ = line;
  }
  SetStatus(s);
}

void OpKernelContext::CtxFailureWithWarning(const Status& s) {
  LOG(WARNING) << s;
  SetStatus(s);
}

void OpKernelContext::CtxFailureWithWarning(const char* file, int line,
                                            const Status& s) {
  LOG(WARNING) << "OP_REQUIRES failed at " << Basename(file) << ":" << line
               << " : " << s;
  if (status_.ok() && !s.ok()) {
    failure_file_ = file;
    failure_line_ = line;
  }
  SetStatus(s);
}

// ---------------------------------------------------------------------------
// CreateOpKernel

Status CreateOpKernel(const KernelSelection& selection,
                      const DeviceType& device_type, DeviceBase* device,
                      Allocator* allocator,
                      std::shared_ptr<const NodeProperties> props,
                      int graph_def_version,
                      std::unique_ptr<OpKernel>* kernel) {
  kernel->reset();
  if (props == nullptr) {
    return errors::InvalidArgument(
        "CreateOpKernel was given no NodeProperties; build them with "
        "NodeProperties::CreateFromNodeDef");
  }
  const std::string class_name = selection.kernel_class_name != nullptr
                                     ? *selection.kernel_class_name
                                     : std::string("<unnamed kernel>");
  if (selection.factory == nullptr) {
    return errors::InvalidArgument("Cannot create kernel ", class_name, " for ",
                                   FormatNodeDefForError(props->node_def),
                                   ": its registration has no factory");
  }
  const NodeDef& node_def = props->node_def;
  Status status;
  OpKernelConstruction construction(device_type, device, allocator, props,
                                    graph_def_version, &status);
  construction.set_library_owner(selection.owner);
  std::unique_ptr<OpKernel> created;
  // A plugin's constructor is foreign code: an exception must not escape
  // through opkit's API.
  try {
    created.reset(selection.factory(&construction));
  } catch (const std::exception& e) {
    status.Update(errors::Internal("The constructor of kernel ", class_name,
                                   " threw an exception: ", e.what()));
  } catch (...) {
    status.Update(errors::Internal("The constructor of kernel ", class_name,
                                   " threw an exception that is not a "
                                   "std::exception"));
  }
  if (!status.ok()) {
    created.reset();
    return AttachDef(status, node_def);
  }
  if (created == nullptr) {
    return AttachDef(
        errors::Internal("The factory of kernel ", class_name,
                         " returned no kernel and reported no error"),
        node_def);
  }
  *kernel = std::move(created);
  return OkStatus();
}

Status CreateOpKernel(const DeviceType& device_type, DeviceBase* device,
                      Allocator* allocator, const NodeDef& node_def,
                      int graph_def_version,
                      const OpRegistryInterface& op_registry,
                      const KernelRegistry& kernel_registry,
                      std::unique_ptr<OpKernel>* kernel) {
  kernel->reset();
  VLOG(1) << "Instantiating kernel for node: " << SummarizeNodeDef(node_def);
  std::shared_ptr<const NodeProperties> props;
  OPKIT_RETURN_IF_ERROR(
      NodeProperties::CreateFromNodeDef(node_def, op_registry, &props));
  KernelSelection selection;
  OPKIT_RETURN_IF_ERROR(
      kernel_registry.FindKernel(device_type, props->node_def, &selection));
  return CreateOpKernel(selection, device_type, device, allocator,
                        std::move(props), graph_def_version, kernel);
}

Status CreateOpKernel(DeviceType device_type, DeviceBase* device,
                      Allocator* allocator, const NodeDef& node_def,
                      int graph_def_version, OpKernel** kernel) {
  if (kernel == nullptr) {
    return errors::InvalidArgument("CreateOpKernel was given a null OpKernel**");
  }
  *kernel = nullptr;
  KernelRegistry* registry = KernelRegistry::Global();
  const OpRegistryInterface* ops = registry->op_registry();
  if (ops == nullptr) ops = OpRegistry::Global();
  std::unique_ptr<OpKernel> created;
  Status s = CreateOpKernel(device_type, device, allocator, node_def,
                            graph_def_version, *ops, *registry, &created);
  *kernel = created.release();
  return s;
}

// ---------------------------------------------------------------------------
// REGISTER_KERNEL_BUILDER

namespace kernel_factory {

OpKernelRegistrar::OpKernelRegistrar(bool should_register,
                                     const KernelDefBuilder& builder,
                                     const char* kernel_class_name,
                                     KernelFactory factory, const char* file,
                                     int line) {
  if (!should_register) return;
  // Runs during static initialization: nothing may escape.
  try {
    ::opkit::internal::AddPendingKernelRegistration(
        builder, kernel_class_name != nullptr ? kernel_class_name : "",
        factory, RegistrationOrigin{file != nullptr ? file : "", line, ""});
  } catch (...) {
    LOG(ERROR) << "Could not record the kernel registration of "
               << (kernel_class_name != nullptr ? kernel_class_name : "")
               << " at " << Basename(file) << ":" << line
               << " (out of memory?); the kernel is not registered";
  }
}

}  // namespace kernel_factory
// ---------------------------------------------------------------------------
// CancellationManager

CancellationManager::CancellationManager() = default;
CancellationManager::~CancellationManager() = default;

CancellationToken CancellationManager::get_cancellation_token() {
  mutex_lock l(mu_);
  return next_token_++;
}

bool CancellationManager::RegisterCallback(CancellationToken token,
                                           std::function<void()> callback) {
  mutex_lock l(mu_);
  if (cancelled_) return false;
  callbacks_.emplace_back(token, std::move(callback));
  return true;
}

bool CancellationManager::DeregisterCallback(CancellationToken token) {
  mutex_lock l(mu_);
  for (auto it = callbacks_.begin(); it != callbacks_.end(); ++it) {
    if (it->first == token) {
      callbacks_.erase(it);
      return true;
    }
  }
  return false;
}

void CancellationManager::StartCancel() {
  std::vector<std::pair<CancellationToken, std::function<void()>>> callbacks;
  {
    mutex_lock l(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    callbacks.swap(callbacks_);
  }
  for (auto& entry : callbacks) entry.second();
}

bool CancellationManager::IsCancelled() const {
  mutex_lock l(mu_);
  return cancelled_;
}

}  // namespace opkit

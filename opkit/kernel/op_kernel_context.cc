// OpKernelContext: construction (checking the call's inputs against the
// kernel), Eigen devices, the misuse reports every accessor shares, failure
// status; and CancellationManager. Inputs and outputs are in
// op_kernel_context_inputs.cc and op_kernel_context_outputs.cc. See Note
// [Context misuse] in op_kernel_context.h for how misuse is reported.
#include "opkit/kernel/op_kernel_context.h"

#include <new>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/threadpool.h"
#include "opkit/device/device.h"
#include "opkit/kernel/internal/op_kernel_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/allocator.h"

namespace opkit {

using internal::Basename;
using internal::CountOf;
using internal::TypesCompatible;

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

// OpKernelContext's outputs: allocation, set_output, forwarding an input's
// buffer, Ref outputs, lists (OpOutputList), and handing the results to the
// runtime.
#include <string_view>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/kernel/internal/op_kernel_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/node_def_util.h"

namespace opkit {

using internal::CountOf;

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

Status OpKernelContext::allocate_output(int index, const TensorShape& shape,
                                        Tensor** tensor,
                                        AllocatorAttributes /*attr*/) {
  return allocate_output(index, shape, tensor);
}

Status OpKernelContext::allocate_output(std::string_view name,
                                        const TensorShape& shape,
                                        Tensor** tensor,
                                        AllocatorAttributes /*attr*/) {
  return allocate_output(name, shape, tensor);
}

Status OpKernelContext::allocate_temp(DataType type, const TensorShape& shape,
                                      Tensor* out_temp,
                                      AllocatorAttributes /*allocator_attr*/) {
  return allocate_temp(type, shape, out_temp);
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

std::unique_ptr<Tensor> OpKernelContext::forward_input(
    int input_index, int output_index, DataType output_dtype,
    const TensorShape& output_shape, MemoryType /*output_memory_type*/,
    const AllocatorAttributes& output_attr) {
  if (input_index < 0 || input_index >= num_inputs_) {
    InputIndexError("forward_input", input_index).IgnoreError();
    return nullptr;
  }
  if (output_index != Params::kNoReservation) {
    if (!CheckOutputIndex("forward_input", output_index).ok()) return nullptr;
    if (op_kernel().output_type(output_index) != output_dtype) return nullptr;
  }
  const TensorValue& value = (*params_->inputs)[input_index];
  const Tensor* input = value.tensor;
  // Taking the buffer over is safe only if nobody else can see it: no other
  // Tensor shares it, and it is not a Ref (whose owner keeps using it). Every
  // buffer is host memory, which is what any AllocatorAttributes can ask.
  AllocatorAttributes input_attr;
  input_attr.set_on_host(true);
  input_attr.set_nic_compatible(true);
  input_attr.set_gpu_compatible(true);
  if (!params_->forward_inputs || input == nullptr || value.is_ref() ||
      input->dtype() != output_dtype ||
      input->NumElements() != output_shape.num_elements() ||
      !input->RefCountIsOne() || !input->IsAligned() ||
      !output_attr.IsEqualOrLessRestrictiveThan(input_attr)) {
    return nullptr;
  }
  auto forwarded = std::make_unique<Tensor>();
  if (!forwarded->CopyFrom(*input, output_shape)) return nullptr;
  return forwarded;
}

bool OpKernelContext::TryForward(int input_index, int output_index,
                                 const TensorShape& output_shape,
                                 Tensor** output) {
  std::unique_ptr<Tensor> forwarded = forward_input(
      input_index, output_index, op_kernel().output_type(output_index),
      output_shape, DEVICE_MEMORY, AllocatorAttributes());
  if (forwarded == nullptr) return false;
  OutputSlot& slot = outputs_[output_index];
  slot.tensor = std::move(*forwarded);
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
    const std::vector<int>& candidate_input_indices, int output_index,
    const TensorShape& output_shape, Tensor** output, int* forwarded_input) {
  return forward_input_or_allocate_output(
      candidate_input_indices.data(), candidate_input_indices.size(),
      output_index, output_shape, output, forwarded_input);
}

Status OpKernelContext::forward_input_or_allocate_output(
    std::initializer_list<std::string_view> candidate_input_names,
    std::string_view output_name, const TensorShape& output_shape,
    Tensor** output) {
  if (output != nullptr) *output = nullptr;
  std::vector<int> candidates;
  candidates.reserve(candidate_input_names.size());
  for (std::string_view name : candidate_input_names) {
    int index = 0;
    OPKIT_RETURN_IF_ERROR(SingleInputIndex(name, &index));
    candidates.push_back(index);
  }
  int output_index = 0;
  OPKIT_RETURN_IF_ERROR(SingleOutputIndex(output_name, &output_index));
  return forward_input_or_allocate_output(candidates.data(), candidates.size(),
                                          output_index, output_shape, output);
}

Status OpKernelContext::forward_input_or_allocate_temp(
    std::initializer_list<int> candidate_input_indices, DataType type,
    const TensorShape& shape, const AllocatorAttributes& allocator_attr,
    Tensor* out_temp) {
  return ForwardInputOrAllocateTemp(candidate_input_indices.begin(),
                                    candidate_input_indices.size(), type,
                                    shape, allocator_attr, out_temp);
}

Status OpKernelContext::forward_input_or_allocate_temp(
    const std::vector<int>& candidate_input_indices, DataType type,
    const TensorShape& shape, const AllocatorAttributes& allocator_attr,
    Tensor* out_temp) {
  return ForwardInputOrAllocateTemp(candidate_input_indices.data(),
                                    candidate_input_indices.size(), type,
                                    shape, allocator_attr, out_temp);
}

Status OpKernelContext::ForwardInputOrAllocateTemp(
    const int* candidates, size_t num_candidates, DataType type,
    const TensorShape& shape, const AllocatorAttributes& allocator_attr,
    Tensor* out_temp) {
  if (out_temp == nullptr) {
    return Misuse(errors::Internal(
        "forward_input_or_allocate_temp was given a null Tensor*"));
  }
  for (size_t i = 0; i < num_candidates; ++i) {
    if (candidates[i] < 0 || candidates[i] >= num_inputs_) {
      return InputIndexError("forward_input_or_allocate_temp", candidates[i]);
    }
  }
  for (size_t i = 0; i < num_candidates; ++i) {
    std::unique_ptr<Tensor> forwarded =
        forward_input(candidates[i], Params::kNoReservation, type, shape,
                      DEVICE_MEMORY, allocator_attr);
    if (forwarded != nullptr) {
      *out_temp = std::move(*forwarded);
      return OkStatus();
    }
  }
  return allocate_temp(type, shape, out_temp, allocator_attr);
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
    if (!slot.ref->IsInitialized() && slot.ref->NumElements() != 0) {
      // A variable read before anything assigned it (VariableV2 run
      // eagerly): FailedPrecondition, as TensorFlow says it.
      return errors::FailedPrecondition("Attempting to use uninitialized value ",
                                        op_kernel().name());
    }
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

}  // namespace opkit

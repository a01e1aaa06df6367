// OpKernelContext's inputs: by index and by name, lists (OpInputList), Ref
// inputs and their mutexes.
#include <string_view>

#include "opkit/core/errors.h"
#include "opkit/kernel/internal/op_kernel_util.h"
#include "opkit/kernel/op_kernel.h"

namespace opkit {

using internal::CountOf;
using internal::EmptyTensor;

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

Status OpKernelContext::MatchSignature(const DataTypeVector& expected_inputs,
                                       const DataTypeVector& expected_outputs) {
  DataTypeVector inputs;
  inputs.reserve(static_cast<size_t>(num_inputs_));
  for (int i = 0; i < num_inputs_; ++i) {
    inputs.push_back((*params_->inputs)[i].dtype());
  }
  return internal::MatchSignatureHelper(expected_inputs, expected_outputs,
                                        inputs, op_kernel().output_types());
}

bool OpKernelContext::ValidateInputsAreSameShape(OpKernel* op) {
  for (int i = 1; i < num_inputs_; ++i) {
    const Tensor& first = input(0);
    const Tensor& other = input(i);
    if (!first.IsSameSize(other)) {
      SetStatus(errors::InvalidArgument(
          "Inputs to operation ", op->name(), " of type ", op->type_string(),
          " must have the same size and shape.  Input 0: ",
          first.shape().DebugString(), " != input ", i, ": ",
          other.shape().DebugString()));
      return false;
    }
  }
  return true;
}

}  // namespace opkit

// OpKernelConstruction: what a kernel's constructor sees (attrs, types,
// device, allocator) and where it records a failure.
#include "opkit/kernel/op_kernel_construction.h"

#include <memory>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/device/device.h"
#include "opkit/kernel/internal/op_kernel_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/allocator.h"

namespace opkit {

using internal::Basename;
using internal::CountOf;
using internal::TypesCompatible;

namespace {

const std::shared_ptr<const NodeProperties>& EmptyNodeProperties() {
  static const auto* const empty = new std::shared_ptr<const NodeProperties>(
      std::make_shared<NodeProperties>(OpDef(), NodeDef(), DataTypeVector(),
                                       DataTypeVector()));
  return *empty;
}

}  // namespace

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
  Status s = internal::MatchSignatureHelper(expected_inputs, expected_outputs,
                                            input_types(), output_types());
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

namespace internal {

Status MatchSignatureHelper(const DataTypeVector& expected_inputs,
                            const DataTypeVector& expected_outputs,
                            const DataTypeVector& inputs,
                            const DataTypeVector& outputs) {
  bool match = inputs.size() == expected_inputs.size() &&
               outputs.size() == expected_outputs.size();
  for (size_t i = 0; match && i < inputs.size(); ++i) {
    match = TypesCompatible(expected_inputs[i], inputs[i]);
  }
  for (size_t i = 0; match && i < outputs.size(); ++i) {
    match = TypesCompatible(expected_outputs[i], outputs[i]);
  }
  if (match) return OkStatus();
  return errors::InvalidArgument(
      "Signature mismatch, have: ", DataTypeSliceString(inputs), "->",
      DataTypeSliceString(outputs),
      " expected: ", DataTypeSliceString(expected_inputs), "->",
      DataTypeSliceString(expected_outputs));
}

}  // namespace internal

}  // namespace opkit

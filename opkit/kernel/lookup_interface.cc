// lookup::LookupInterface: the argument checks, with TensorFlow's messages.
#include "opkit/kernel/lookup_interface.h"

#include "opkit/core/errors.h"

namespace opkit {
namespace lookup {

Status LookupInterface::CheckKeyShape(const TensorShape& shape) {
  if (!TensorShapeUtils::EndsWith(shape, key_shape())) {
    return errors::InvalidArgument("Input key shape ", shape.DebugString(),
                                   " must end with the table's key shape ",
                                   key_shape().DebugString());
  }
  return OkStatus();
}

// TensorFlow prints the DataType enum values here ("Key must be type 9 but
// got 3"); so does opkit.
Status LookupInterface::CheckKeyAndValueTypes(const Tensor& keys,
                                              const Tensor& values) {
  if (keys.dtype() != key_dtype()) {
    return errors::InvalidArgument("Key must be type ",
                                   static_cast<int>(key_dtype()), " but got ",
                                   static_cast<int>(keys.dtype()));
  }
  if (values.dtype() != value_dtype()) {
    return errors::InvalidArgument("Value must be type ",
                                   static_cast<int>(value_dtype()),
                                   " but got ",
                                   static_cast<int>(values.dtype()));
  }
  return OkStatus();
}

Status LookupInterface::CheckKeyAndValueTensorsHelper(const Tensor& keys,
                                                      const Tensor& values) {
  OPKIT_RETURN_IF_ERROR(CheckKeyAndValueTypes(keys, values));
  OPKIT_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
  // The keys' batch dimensions, then the value shape.
  TensorShape expected = keys.shape();
  const int key_dims = key_shape().dims();
  expected.RemoveDimRange(expected.dims() - key_dims, expected.dims());
  OPKIT_RETURN_IF_ERROR(expected.AppendShapeWithStatus(value_shape()));
  if (!(values.shape() == expected)) {
    return errors::InvalidArgument("Expected shape ", expected.DebugString(),
                                   " for value, got ",
                                   values.shape().DebugString());
  }
  return OkStatus();
}

Status LookupInterface::CheckKeyAndValueTensorsForInsert(const Tensor& keys,
                                                         const Tensor& values) {
  return CheckKeyAndValueTensorsHelper(keys, values);
}

Status LookupInterface::CheckKeyAndValueTensorsForImport(const Tensor& keys,
                                                         const Tensor& values) {
  return CheckKeyAndValueTensorsHelper(keys, values);
}

Status LookupInterface::CheckKeyTensorForRemove(const Tensor& keys) {
  if (keys.dtype() != key_dtype()) {
    return errors::InvalidArgument("Key must be type ",
                                   static_cast<int>(key_dtype()), " but got ",
                                   static_cast<int>(keys.dtype()));
  }
  return CheckKeyShape(keys.shape());
}

Status LookupInterface::CheckFindArguments(const Tensor& keys,
                                           const Tensor& default_value) {
  OPKIT_RETURN_IF_ERROR(CheckKeyAndValueTypes(keys, default_value));
  OPKIT_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
  if (!(default_value.shape() == value_shape())) {
    return errors::InvalidArgument(
        "Expected shape ", value_shape().DebugString(),
        " for default value, got ", default_value.shape().DebugString());
  }
  return OkStatus();
}

}  // namespace lookup
}  // namespace opkit

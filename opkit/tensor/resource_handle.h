// ResourceHandle: the element of a DT_RESOURCE tensor. It names a resource
// (a variable, a table) held by a device's ResourceMgr: the device, the
// container and name in that manager, and the C++ type of the resource (its
// TypeIndex hash and mangled name), plus the dtypes and shapes of what the
// resource holds when known. It carries no pointer: a handle is plain data
// that travels between kernels, through a graph and through Python, and the
// resource is found again by name (LookupResource in opkit/kernel/).
//
//   Tensor t;
//   OPKIT_RETURN_IF_ERROR(Tensor::Allocate(DT_RESOURCE, TensorShape({}), &t));
//   ResourceHandle& h = t.scalar<ResourceHandle>()();
//   h.set_container("localhost");
//   h.set_name("table");
//   OPKIT_RETURN_IF_ERROR(h.ValidateType<MyTable>());
//
// Thread-compatible (a value type).
#ifndef OPKIT_TENSOR_RESOURCE_HANDLE_H_
#define OPKIT_TENSOR_RESOURCE_HANDLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/type_index.h"
#include "opkit/tensor/types.h"
#include "opkit/resource_handle.pb.h"

namespace opkit {

// The dtype and (partial) shape of one tensor a resource holds.
struct DtypeAndPartialTensorShape {
  DataType dtype;
  PartialTensorShape shape;
};

class OPKIT_EXPORT ResourceHandle {
 public:
  // The shared_name that asks a handle op for a fresh name on every call
  // (TensorFlow's ResourceHandle::ANONYMOUS_NAME): MakeResourceHandle turns
  // it into "_AnonymousVar<N>".
  static constexpr const char* ANONYMOUS_NAME =
      "cd2c89b7-88b7-44c8-ad83-06c2a9158347";

  ResourceHandle() = default;
  ResourceHandle(const ResourceHandleProto& proto);  // NOLINT: implicit, as TF

  const std::string& device() const { return device_; }
  void set_device(const std::string& device) { device_ = device; }
  const std::string& container() const { return container_; }
  void set_container(const std::string& container) { container_ = container; }
  const std::string& name() const { return name_; }
  void set_name(const std::string& name) { name_ = name; }
  // TypeIndex::hash_code() of the resource's C++ type.
  uint64_t hash_code() const { return hash_code_; }
  void set_hash_code(uint64_t hash_code) { hash_code_ = hash_code; }
  // The mangled type name, for messages only.
  const std::string& maybe_type_name() const { return maybe_type_name_; }
  void set_maybe_type_name(const std::string& value) {
    maybe_type_name_ = value;
  }
  const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes() const {
    return dtypes_and_shapes_;
  }
  void set_dtypes_and_shapes(
      const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes) {
    dtypes_and_shapes_ = dtypes_and_shapes;
  }

  void AsProto(ResourceHandleProto* proto) const;
  // A shape the proto holds that is not valid becomes an unknown shape.
  void FromProto(const ResourceHandleProto& proto);
  std::string SerializeAsString() const;
  // False (leaving the handle alone) when `s` is not a ResourceHandleProto.
  bool ParseFromString(const std::string& s);

  // TensorFlow's format: "device: ... container: ... name: ... hash_code: ...
  // maybe_type_name: ...".
  std::string DebugString() const;
  // What Tensor::SummarizeValue prints for the element:
  // ResourceHandle(name="v", device="...", container="...", type="...",
  // dtype and shapes : "[ DType enum: 1, Shape: [2] ]").
  std::string SummarizeValue() const;

  // OK when the handle points at a resource of C++ type `type`;
  // InvalidArgument with TensorFlow's "Trying to access a handle's resource
  // using the wrong type" message (both names and hash codes) otherwise.
  Status ValidateType(const TypeIndex& type) const;
  template <typename T>
  Status ValidateType() const {
    return ValidateType(TypeIndex::Make<T>());
  }

  // A number never returned before in this process.
  static int64_t GenerateUniqueId();

 private:
  std::string device_;
  std::string container_;
  std::string name_;
  uint64_t hash_code_ = 0;
  std::string maybe_type_name_;
  std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes_;
};

// handle.DebugString(), as TensorFlow's free function.
OPKIT_EXPORT std::string ProtoDebugString(const ResourceHandle& handle);

template <>
struct DataTypeToEnum<ResourceHandle> {
  static constexpr DataType v() { return DT_RESOURCE; }
  static constexpr DataType ref() { return MakeRefType(DT_RESOURCE); }
  static constexpr DataType value = DT_RESOURCE;
};
template <>
struct EnumToDataType<DT_RESOURCE> {
  using Type = ResourceHandle;
};

}  // namespace opkit

#endif  // OPKIT_TENSOR_RESOURCE_HANDLE_H_

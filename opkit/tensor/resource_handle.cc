// ResourceHandle: proto conversion, printing, the type check.
#include "opkit/tensor/resource_handle.h"

#include <atomic>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"

namespace opkit {

ResourceHandle::ResourceHandle(const ResourceHandleProto& proto) {
  FromProto(proto);
}

void ResourceHandle::AsProto(ResourceHandleProto* proto) const {
  proto->set_device(device_);
  proto->set_container(container_);
  proto->set_name(name_);
  proto->set_hash_code(hash_code_);
  proto->set_maybe_type_name(maybe_type_name_);
  proto->clear_dtypes_and_shapes();
  for (const DtypeAndPartialTensorShape& ds : dtypes_and_shapes_) {
    ResourceHandleProto::DtypeAndShape* out = proto->add_dtypes_and_shapes();
    out->set_dtype(ds.dtype);
    ds.shape.AsProto(out->mutable_shape());
  }
}

void ResourceHandle::FromProto(const ResourceHandleProto& proto) {
  device_ = proto.device();
  container_ = proto.container();
  name_ = proto.name();
  hash_code_ = proto.hash_code();
  maybe_type_name_ = proto.maybe_type_name();
  dtypes_and_shapes_.clear();
  for (const auto& ds : proto.dtypes_and_shapes()) {
    PartialTensorShape shape;
    if (!PartialTensorShape::FromProto(ds.shape(), &shape).ok()) {
      shape = PartialTensorShape();
    }
    dtypes_and_shapes_.push_back({ds.dtype(), shape});
  }
}

std::string ResourceHandle::SerializeAsString() const {
  ResourceHandleProto proto;
  AsProto(&proto);
  return proto.SerializeAsString();
}

bool ResourceHandle::ParseFromString(const std::string& s) {
  ResourceHandleProto proto;
  if (!proto.ParseFromString(s)) return false;
  FromProto(proto);
  return true;
}

std::string ResourceHandle::DebugString() const {
  return StrCat("device: ", device_, " container: ", container_,
                " name: ", name_, " hash_code: ", hash_code_,
                " maybe_type_name: ", maybe_type_name_);
}

std::string ResourceHandle::SummarizeValue() const {
  std::string shapes;
  for (const DtypeAndPartialTensorShape& ds : dtypes_and_shapes_) {
    if (!shapes.empty()) shapes += ", ";
    shapes += StrCat("DType enum: ", static_cast<int>(ds.dtype),
                     ", Shape: ", ds.shape.DebugString());
  }
  return StrCat("ResourceHandle(name=\"", name_, "\", device=\"", device_,
                "\", container=\"", container_, "\", type=\"",
                maybe_type_name_, "\", dtype and shapes : \"[ ", shapes, " ]\")");
}

Status ResourceHandle::ValidateType(const TypeIndex& type) const {
  if (type.hash_code() != hash_code_) {
    return errors::InvalidArgument(
        "Trying to access a handle's resource using the wrong type. ",
        "The handle points to a resource (name '", name_, "') of type '",
        maybe_type_name_, "' (hash code ", hash_code_,
        ") but you are trying to access the resource as type '", type.name(),
        "' (hash code ", type.hash_code(), ")");
  }
  return OkStatus();
}

int64_t ResourceHandle::GenerateUniqueId() {
  static std::atomic<int64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::string ProtoDebugString(const ResourceHandle& handle) {
  return handle.DebugString();
}

}  // namespace opkit

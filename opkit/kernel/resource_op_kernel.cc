// ContainerInfo: the container and resource name a stateful kernel uses.
#include "opkit/kernel/resource_op_kernel.h"

#include <atomic>
#include <cctype>

#include "opkit/core/errors.h"
#include "opkit/op/attr_slice.h"
#include "opkit/op/node_def_util.h"

namespace opkit {
namespace {

// TensorFlow's rule: a letter, digit or '.', then letters, digits and
// "-./".
bool IsValidContainerName(const std::string& s) {
  if (s.empty()) return false;
  auto first_ok = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; };
  auto rest_ok = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
           c == '-' || c == '/';
  };
  if (!first_ok(s[0])) return false;
  for (size_t i = 1; i < s.size(); ++i) {
    if (!rest_ok(s[i])) return false;
  }
  return true;
}

}  // namespace

Status ContainerInfo::Init(ResourceMgr* rmgr, const NodeDef& ndef,
                           bool use_node_name_as_default) {
  if (rmgr == nullptr) {
    return errors::FailedPrecondition("Node ", ndef.name(),
                                      " needs a resource manager and has none");
  }
  rmgr_ = rmgr;
  std::string attr_container;
  OPKIT_RETURN_IF_ERROR(
      GetNodeAttr(AttrSlice(ndef), "container", &attr_container));
  if (!attr_container.empty() && !IsValidContainerName(attr_container)) {
    return errors::InvalidArgument("container contains invalid characters: ",
                                   attr_container);
  }
  std::string attr_shared_name;
  OPKIT_RETURN_IF_ERROR(
      GetNodeAttr(AttrSlice(ndef), "shared_name", &attr_shared_name));
  if (!attr_shared_name.empty() && attr_shared_name[0] == '_') {
    return errors::InvalidArgument("shared_name cannot start with '_':",
                                   attr_shared_name);
  }
  container_ =
      attr_container.empty() ? rmgr_->default_container() : attr_container;
  resource_is_private_to_kernel_ = false;
  if (!attr_shared_name.empty()) {
    name_ = attr_shared_name;
  } else if (use_node_name_as_default) {
    name_ = ndef.name();
  } else {
    resource_is_private_to_kernel_ = true;
    static std::atomic<int64_t> counter{0};
    name_ = StrCat("_", counter.fetch_add(1), "_", ndef.name());
  }
  return OkStatus();
}

std::string ContainerInfo::DebugString() const {
  return StrCat("[", container_, ",", name_, ",",
                resource_is_private_to_kernel_ ? "private" : "public", "]");
}

}  // namespace opkit

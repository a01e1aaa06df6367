// Var: printing and memory accounting.
#include "opkit/resource/resource_var.h"

#include "opkit/core/str_util.h"

namespace opkit {

std::string Var::DebugString() const {
  shared_lock l(mu_);
  return StrCat(DataTypeString(tensor_.dtype()), "/",
                tensor_.shape().DebugString());
}

int64_t Var::MemoryUsed() const {
  shared_lock l(mu_);
  return static_cast<int64_t>(tensor_.AllocatedBytes());
}

}  // namespace opkit

// KernelDefBuilder: records the chained calls into a KernelDef, collecting
// mistakes for Finalize() instead of aborting.
#include "opkit/kernel/kernel_def_builder.h"

#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace {

const char* OrEmpty(const char* s) { return s == nullptr ? "" : s; }

// The value list of a new constraint of `def` on `attr_name`; nullptr, with
// an error in `errors`, when the call (`method`) allows nothing.
AttrValue::ListValue* AddConstraint(KernelDef* def, std::vector<std::string>* errors,
                                    const char* method, const char* attr_name,
                                    bool allows_nothing, const char* what) {
  if (allows_nothing) {
    errors->push_back(StrCat(method, "(\"", OrEmpty(attr_name), "\") for a kernel of op '",
                             def->op(), "' allows no ", what, "; list at least one"));
    return nullptr;
  }
  KernelDef::AttrConstraint* c = def->add_constraint();
  c->set_name(OrEmpty(attr_name));
  return c->mutable_allowed_values()->mutable_list();
}

}  // namespace

KernelDefBuilder::KernelDefBuilder(const char* op_name) {
  kernel_def_.set_op(OrEmpty(op_name));
}

KernelDefBuilder::~KernelDefBuilder() = default;

KernelDefBuilder& KernelDefBuilder::Device(const char* device_type) {
  if (device_set_) {
    errors_.push_back(StrCat("Device() called twice for a kernel of op '",
                             kernel_def_.op(), "': '", kernel_def_.device_type(),
                             "' then '", OrEmpty(device_type),
                             "'; register one kernel per device"));
    return *this;
  }
  device_set_ = true;
  kernel_def_.set_device_type(OrEmpty(device_type));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(
    const char* attr_name, std::vector<DataType> allowed) {
  AttrValue::ListValue* list = AddConstraint(&kernel_def_, &errors_, "TypeConstraint",
                                             attr_name, allowed.empty(), "types");
  if (list == nullptr) return *this;
  for (DataType dt : allowed) list->add_type(dt);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(const char* attr_name,
                                                   DataType allowed) {
  return TypeConstraint(attr_name, std::vector<DataType>{allowed});
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(
    const char* attr_name, std::vector<std::string> allowed) {
  AttrValue::ListValue* list = AddConstraint(&kernel_def_, &errors_, "AttrConstraint",
                                             attr_name, allowed.empty(), "values");
  if (list == nullptr) return *this;
  for (std::string& s : allowed) list->add_s(std::move(s));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(
    const char* attr_name, std::vector<int64_t> allowed) {
  AttrValue::ListValue* list = AddConstraint(&kernel_def_, &errors_, "AttrConstraint",
                                             attr_name, allowed.empty(), "values");
  if (list == nullptr) return *this;
  for (int64_t i : allowed) list->add_i(i);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   std::vector<bool> allowed) {
  AttrValue::ListValue* list = AddConstraint(&kernel_def_, &errors_, "AttrConstraint",
                                             attr_name, allowed.empty(), "values");
  if (list == nullptr) return *this;
  for (bool b : allowed) list->add_b(b);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(
    const char* attr_name, std::initializer_list<const char*> allowed) {
  std::vector<std::string> values;
  values.reserve(allowed.size());
  for (const char* s : allowed) values.emplace_back(OrEmpty(s));
  return AttrConstraint(attr_name, std::move(values));
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   const std::string& allowed) {
  return AttrConstraint(attr_name, std::vector<std::string>{allowed});
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   const char* allowed) {
  return AttrConstraint(attr_name, std::vector<std::string>{OrEmpty(allowed)});
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   int64_t allowed) {
  return AttrConstraint(attr_name, std::vector<int64_t>{allowed});
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   bool allowed) {
  return AttrConstraint(attr_name, std::vector<bool>{allowed});
}

KernelDefBuilder& KernelDefBuilder::HostMemory(const char* arg_name) {
  kernel_def_.add_host_memory_arg(OrEmpty(arg_name));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Label(const char* label) {
  if (label_set_) {
    errors_.push_back(StrCat("Label() called twice for a kernel of op '",
                             kernel_def_.op(), "': '", kernel_def_.label(),
                             "' then '", OrEmpty(label),
                             "'; a kernel has one label"));
    return *this;
  }
  label_set_ = true;
  kernel_def_.set_label(OrEmpty(label));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Priority(int32_t priority) {
  kernel_def_.set_priority(priority);
  return *this;
}

Status KernelDefBuilder::Finalize(KernelDef* def) const {
  if (def != nullptr) *def = kernel_def_;
  std::vector<std::string> problems = errors_;
  if (kernel_def_.op().empty()) {
    problems.push_back("KernelDefBuilder was given an empty op name");
  }
  if (!device_set_ || kernel_def_.device_type().empty()) {
    problems.push_back(StrCat("Kernel for op '", kernel_def_.op(),
                              "' has no device; call .Device(DEVICE_CPU) or "
                              "another device type"));
  }
  if (problems.empty()) return OkStatus();
  return errors::InvalidArgument(StrJoin(problems, "\n"));
}

const KernelDef* KernelDefBuilder::Build() { return new KernelDef(kernel_def_); }

namespace {

template <typename List>
bool ShareAny(const List& a, const List& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x == y) return true;
    }
  }
  return false;
}

}  // namespace

bool KernelConstraintsOverlap(const KernelDef& a, const KernelDef& b) {
  for (const auto& ca : a.constraint()) {
    for (const auto& cb : b.constraint()) {
      if (ca.name() != cb.name()) continue;
      const auto& la = ca.allowed_values().list();
      const auto& lb = cb.allowed_values().list();
      if (!ShareAny(la.type(), lb.type()) && !ShareAny(la.s(), lb.s()) &&
          !ShareAny(la.i(), lb.i()) && !ShareAny(la.b(), lb.b())) {
        return false;
      }
    }
  }
  return true;
}

namespace register_kernel {

Name::Name(const char* op) : KernelDefBuilder(op) {}

}  // namespace register_kernel
}  // namespace opkit

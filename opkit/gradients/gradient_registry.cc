// GradientRegistry: one entry per op type, a function or "no gradient".
#include "opkit/gradients/gradient_registry.h"

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"

namespace opkit {

std::vector<std::pair<std::string, AttrValue>> GradientOp::Attrs(
    std::initializer_list<const char*> names) const {
  std::vector<std::pair<std::string, AttrValue>> out;
  for (const char* name : names) {
    auto it = node->attr().find(name);
    if (it != node->attr().end()) out.emplace_back(name, it->second);
  }
  return out;
}

bool GradientOp::ConstantInput(int i, Tensor* value) const {
  if (graph == nullptr || i < 0 || i >= static_cast<int>(inputs.size())) return false;
  if (inputs[i].index != 0) return false;
  for (const NodeDef& n : graph->node()) {
    if (n.name() != inputs[i].node) continue;
    if (n.op() != "Const") return false;
    auto it = n.attr().find("value");
    return it != n.attr().end() && value->FromProto(it->second.tensor());
  }
  return false;
}

GradientRegistry* GradientRegistry::Global() {
  static GradientRegistry* registry = new GradientRegistry();
  return registry;
}

Status GradientRegistry::Register(std::string_view op, GradFunc fn) {
  if (op.empty()) {
    return errors::InvalidArgument("a gradient must be registered for a named op");
  }
  if (fn == nullptr) {
    return errors::InvalidArgument("the gradient function of ", op,
                                   " is null; use RegisterNoGradient for an op "
                                   "without a gradient");
  }
  mutex_lock lock(mu_);
  auto [it, added] = funcs_.emplace(std::string(op), fn);
  if (!added) {
    return errors::AlreadyExists(
        "a gradient for op ", op, " is already registered",
        it->second == nullptr ? " (as having no gradient)" : "",
        "; unregister it first to replace it");
  }
  return OkStatus();
}

Status GradientRegistry::RegisterNoGradient(std::string_view op) {
  if (op.empty()) {
    return errors::InvalidArgument("a gradient must be registered for a named op");
  }
  mutex_lock lock(mu_);
  auto [it, added] = funcs_.emplace(std::string(op), nullptr);
  if (!added) {
    return errors::AlreadyExists("a gradient for op ", op,
                                 " is already registered; unregister it first to "
                                 "mark the op as having none");
  }
  return OkStatus();
}

bool GradientRegistry::Unregister(std::string_view op) {
  mutex_lock lock(mu_);
  auto it = funcs_.find(op);
  if (it == funcs_.end()) return false;
  funcs_.erase(it);
  return true;
}

Status GradientRegistry::Lookup(std::string_view op, GradFunc* fn) const {
  *fn = nullptr;
  mutex_lock lock(mu_);
  auto it = funcs_.find(op);
  if (it == funcs_.end()) {
    return errors::NotFound(
        "No gradient defined for op: ", op,
        ". Register one with REGISTER_GRADIENT_OP(\"", op,
        "\", fn), or REGISTER_NO_GRADIENT_OP(\"", op,
        "\") if it has none (opkit/gradients/gradient_registry.h)");
  }
  *fn = it->second;
  return OkStatus();
}

bool GradientRegistry::Has(std::string_view op) const {
  mutex_lock lock(mu_);
  return funcs_.find(op) != funcs_.end();
}

std::vector<std::string> GradientRegistry::ListOps() const {
  mutex_lock lock(mu_);
  std::vector<std::string> ops;
  for (const auto& [name, fn] : funcs_) ops.push_back(name);
  return ops;
}

namespace gradient_registration {

Registrar::Registrar(const char* op, GradFunc fn) {
  GradientRegistry* registry = GradientRegistry::Global();
  const Status s =
      fn == nullptr ? registry->RegisterNoGradient(op) : registry->Register(op, fn);
  if (!s.ok()) OPKIT_LOG(ERROR) << s.message();
}

}  // namespace gradient_registration
}  // namespace opkit

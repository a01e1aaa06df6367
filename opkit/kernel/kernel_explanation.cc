// Messages about kernels (internal/kernel_explanation.h) and
// ExplainKernelSelection(): every kernel of a node's op with the verdict of
// selection on it.
#include "opkit/kernel/internal/kernel_explanation.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/kernel/internal/kernel_select.h"
#include "opkit/op/attr_slice.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {
namespace {

// The node's value of `attr`, else the op's default, else null.
const AttrValue* AttrOrDefault(const NodeDef& node, const std::string& attr,
                               const OpDef* op_def) {
  auto it = node.attr().find(attr);
  if (it != node.attr().end()) return &it->second;
  if (op_def == nullptr) return nullptr;
  const OpDef::AttrDef* attr_def = FindAttr(attr, *op_def);
  if (attr_def == nullptr || !attr_def->has_default_value()) return nullptr;
  return &attr_def->default_value();
}

// Why `c` does not hold for the node; "" when it does.
std::string ConstraintMismatch(const CompiledConstraint& c, const NodeDef& node,
                               const OpDef* op_def) {
  const AttrValue* value = AttrOrDefault(node, c.attr, op_def);
  if (value == nullptr) {
    return StrCat("attr '", c.attr,
                  "' is not set in the node and the op gives no default");
  }
  if (ConstraintHolds(c, value)) return "";
  const std::string allowed = SummarizeAttrValue(*c.allowed);
  if (c.kind == ConstraintKind::kType && value->value_case() == AttrValue::kList) {
    for (int t : value->list().type()) {
      if (!TypeAllowed(c, t)) {
        return StrCat("attr '", c.attr, "' is ", SummarizeAttrValue(*value),
                      ": element ", DataType_Name(static_cast<DataType>(t)),
                      " is not in ", allowed);
      }
    }
  }
  const bool kind_ok =
      (c.kind == ConstraintKind::kType &&
       (value->value_case() == AttrValue::kType ||
        value->value_case() == AttrValue::kList)) ||
      (c.kind == ConstraintKind::kString && value->value_case() == AttrValue::kS) ||
      (c.kind == ConstraintKind::kInt && value->value_case() == AttrValue::kI) ||
      (c.kind == ConstraintKind::kBool && value->value_case() == AttrValue::kB);
  if (!kind_ok) {
    return StrCat("attr '", c.attr, "' of the node is ",
                  SummarizeAttrValue(*value),
                  ", which is not the kind of value the constraint ", allowed,
                  " restricts");
  }
  return StrCat("attr '", c.attr, "' is ", SummarizeAttrValue(*value),
                ", not in ", allowed);
}

// The values of each attr that both kernels constrain that both allow, for
// the ambiguity message: "T in {float, double}", or "any attrs".
std::string OverlapSummary(const KernelDef& a, const KernelDef& b) {
  std::string out;
  for (const auto& ca : a.constraint()) {
    for (const auto& cb : b.constraint()) {
      if (ca.name() != cb.name()) continue;
      std::vector<std::string> common;
      for (int t : ca.allowed_values().list().type()) {
        const auto& other = cb.allowed_values().list().type();
        if (std::find(other.begin(), other.end(), t) != other.end()) {
          common.push_back(DataTypeString(static_cast<DataType>(t)));
        }
      }
      if (common.empty()) continue;
      out += StrCat(out.empty() ? "" : ", ", ca.name(), " in {",
                    StrJoin(common, ", "), "}");
    }
  }
  return out.empty() ? "any attrs" : out;
}

}  // namespace

std::string RejectionReason(const Record& rec, std::string_view device,
                            std::string_view label, const NodeDef& node,
                            const OpDef* op_def) {
  if (rec.device() != device) {
    return StrCat("device '", rec.device(), "' is not the requested '", device,
                  "'");
  }
  if (rec.label() != label) {
    return StrCat("label '", rec.label(), "' does not match the node's _kernel '",
                  label, "'");
  }
  for (const CompiledConstraint& c : rec.constraints) {
    std::string why = ConstraintMismatch(c, node, op_def);
    if (!why.empty()) return why;
  }
  return "";
}

std::string NameOf(const Record& rec) {
  return StrCat("'", rec.reg.kernel_class_name, "' (registered at ",
                rec.reg.origin.ToString(), ")");
}

std::string KernelLine(const KernelDef& def) {
  std::string line = StrCat("  device='", def.device_type(), "'");
  if (!def.label().empty()) line += StrCat("; label='", def.label(), "'");
  for (const auto& c : def.constraint()) {
    line += StrCat("; ", c.name(), " in ", SummarizeAttrValue(c.allowed_values()));
  }
  line += "\n";
  return line;
}

std::string KernelLines(const RecordList& records) {
  if (records.empty()) return "  <no registered kernels>\n";
  std::string out;
  for (const Record* rec : records) out += KernelLine(rec->reg.def);
  return out;
}

std::string ConstraintsSummary(const KernelDef& def) {
  std::vector<std::string> parts;
  for (const auto& c : def.constraint()) {
    parts.push_back(StrCat(c.name(), " in ", SummarizeAttrValue(c.allowed_values())));
  }
  if (parts.empty()) return "no constraints";
  return StrJoin(parts, "; ");
}

std::string Describe(const KernelRegistration& reg) {
  return StrCat("Kernel '", reg.kernel_class_name, "' (registered at ",
                reg.origin.ToString(), ") for op '", reg.def.op(), "'");
}

Status AmbiguityError(const NodeDef& node, const Record& a, const Record& b) {
  return errors::InvalidArgument(
      "Multiple OpKernel registrations match NodeDef '", SummarizeNodeDef(node),
      "': '", a.reg.def.ShortDebugString(), "' and '",
      b.reg.def.ShortDebugString(), "'\n  ", NameOf(a), "\n  ", NameOf(b),
      "\nBoth have priority ", a.priority(),
      ". To resolve this, give one of them a higher priority "
      "(KernelDefBuilder::Priority()) or unregister one "
      "(KernelRegistry::Unregister()).");
}

Status AmbiguousRegistrationError(const Record& k, const Record& rival) {
  return errors::InvalidArgument(
      "Kernel ", NameOf(k),
      " would make kernel selection ambiguous. Multiple OpKernel "
      "registrations match NodeDef-s of op '", k.op(), "' on device '",
      k.device(), "' with ", OverlapSummary(k.reg.def, rival.reg.def),
      ": it and ", NameOf(rival), " both have label '", k.label(),
      "' and priority ", k.priority(),
      ". To replace the registered kernel, give the new one a higher "
      "priority (.Priority(", static_cast<int64_t>(k.priority()) + 1,
      ") in its REGISTER_KERNEL_BUILDER, or a ScopedKernelOverride); or "
      "unregister the registered one first (KernelRegistry::Unregister("
      "KernelFilter().Op(\"", k.op(), "\").Device(\"", k.device(),
      "\"))) and register the new one again (for a library: load it "
      "again); or give one of them a distinct Label().");
}

namespace {

// Why each of `op_kernels` was rejected for the node on `device`, and how
// many registrations are pending; the part of both no-kernel messages that
// is opkit's own.
std::string RejectionReport(const NodeDef& node, const std::string& device,
                            const OpDef* op_def, const RecordList& op_kernels,
                            size_t num_pending) {
  std::string message;
  if (!op_kernels.empty()) {
    const std::string& label = NodeLabel(node);
    message += StrCat("Why each registered kernel was rejected for device '",
                      device, "'", label.empty() ? "" : StrCat(" and label '", label, "'"),
                      ":\n");
    for (const Record* rec : op_kernels) {
      message += StrCat("  ", NameOf(*rec), ": ",
                        RejectionReason(*rec, device, label, node, op_def), "\n");
    }
  }
  if (num_pending > 0) {
    message += StrCat(num_pending,
                      " kernel registrations are pending and not committed to "
                      "the registry yet (see KernelRegistry::CommitPending)\n");
  }
  return message;
}

NodeDef WithDefaults(const NodeDef& node, const OpDef* op_def) {
  NodeDef with_defaults = node;
  if (op_def != nullptr) AddDefaultsToNodeDef(*op_def, &with_defaults);
  return with_defaults;
}

}  // namespace

Status NoKernelError(const NodeDef& node, const std::string& device,
                     const OpDef* op_def, const RecordList& op_kernels,
                     size_t num_pending) {
  std::string message = StrCat(
      "No OpKernel was registered to support Op '", node.op(), "' used by ",
      FormatNodeDefForError(node), " with these attrs: [",
      SummarizeAttrs(WithDefaults(node, op_def)), "]\nRegistered devices: [",
      device, "]\nRegistered kernels:\n", KernelLines(op_kernels));
  message += RejectionReport(node, device, op_def, op_kernels, num_pending);
  return errors::NotFound(message);
}

// Note [FindKernelDef message]
// TensorFlow has two no-kernel texts, and tools match on each: kernel
// creation's "No OpKernel was registered to support Op ..." (NoKernelError)
// and FindKernelDef's, built the way errors::AppendToMessage builds it
// (each addition after "\n\t"):
//   No registered 'Op' OpKernel for CPU devices compatible with node {{node n}}
//   \t (OpKernel was found, but attributes didn't match) Requested Attributes: T=DT_INT32
//   \t.  Registered:  device='CPU'; T in [DT_FLOAT]
// The middle line only when a kernel of the op has the node's device and
// label; the attrs are the node's with the op's defaults added (what
// selection compared), then `_device="..."` for a node with a device. What
// follows TensorFlow's text is opkit's: why each kernel was rejected, and for
// an unknown op the op registry's message.
Status FindKernelDefError(const NodeDef& node, const std::string& device,
                          const OpDef* op_def, const RecordList& op_kernels,
                          size_t num_pending, const Status& op_status) {
  std::string message =
      StrCat("No registered '", node.op(), "' OpKernel for ", device,
             " devices compatible with node ", FormatNodeDefForError(node));
  const std::string& label = NodeLabel(node);
  const bool attr_mismatch =
      std::any_of(op_kernels.begin(), op_kernels.end(), [&](const Record* rec) {
        return rec->device() == device && rec->label() == label;
      });
  if (attr_mismatch) {
    message += StrCat("\n\t (OpKernel was found, but attributes didn't match) ",
                      "Requested Attributes: ",
                      SummarizeAttrsHelper(AttrSlice(WithDefaults(node, op_def)),
                                           node.device()));
  }
  message += StrCat("\n\t.  Registered:", KernelLines(op_kernels));
  if (op_def == nullptr && !op_status.ok()) {
    message += StrCat(op_status.message(), "\n");
  }
  message += RejectionReport(node, device, op_def, op_kernels, num_pending);
  return errors::NotFound(message);
}

}  // namespace internal

using internal::AmbiguityError;
using internal::KernelLine;
using internal::NameOf;
using internal::NodeLabel;
using internal::NoKernelError;
using internal::Record;
using internal::RecordList;
using internal::RejectionReason;
using internal::Selection;

KernelSelectionExplanation KernelRegistry::ExplainKernelSelection(
    const DeviceType& device_type, const NodeDef& node_def) const {
  KernelSelectionExplanation out;
  out.node_name = node_def.name();
  out.op = node_def.op();
  out.device_type = device_type.type_string();
  out.label = NodeLabel(node_def);
  const OpDef* op_def = impl_->LookUpOp(node_def.op(), *op_registry_);
  Selection result;
  RecordList op_kernels;
  {
    Impl::ReadSection section(impl_->index);
    op_kernels = internal::KernelsOfOp(section.snapshot(), node_def.op());
    if (op_def != nullptr) {
      internal::NodeAttrs attrs(impl_->concrete_ops, *op_registry_, node_def);
      result = internal::Select(section.snapshot(), out.device_type, node_def,
                                attrs);
    }
  }
  for (const Record* rec : op_kernels) {
    KernelCandidate c;
    c.def = rec->reg.def;
    c.kernel_class_name = rec->reg.kernel_class_name;
    c.origin = rec->reg.origin;
    if (op_def == nullptr) {
      c.reason = StrCat("op '", out.op, "' is not registered");
    } else {
      c.reason = RejectionReason(*rec, out.device_type, out.label, node_def,
                                 op_def);
      c.matched = c.reason.empty();
      if (c.matched && result.outcome == Selection::Outcome::kAmbiguous &&
          rec->priority() == result.best->priority()) {
        const Record& other = rec == result.best ? *result.rival : *result.best;
        c.reason = StrCat("matched at the same priority ", rec->priority(),
                          " as ", NameOf(other), ": ambiguous");
      } else if (c.matched && rec != result.best) {
        if (result.best != nullptr) {
          c.reason = StrCat("matched, but its priority ", rec->priority(),
                            " is below the winner's ", result.best->priority());
        }
      }
    }
    if (rec == result.best && result.outcome == Selection::Outcome::kFound) {
      out.winner = static_cast<int>(out.candidates.size());
    }
    out.candidates.push_back(std::move(c));
  }
  if (result.outcome == Selection::Outcome::kAmbiguous) {
    out.status = AmbiguityError(node_def, *result.best, *result.rival);
  } else if (result.outcome == Selection::Outcome::kNone) {
    out.status = internal::FindKernelDefError(
        node_def, out.device_type, op_def, op_kernels,
        impl_->is_global ? NumPendingKernelRegistrations() : 0,
        op_def == nullptr ? UnknownOpStatus(node_def.op()) : OkStatus());
  }
  return out;
}

std::string KernelSelectionExplanation::ToString() const {
  std::string out = StrCat("Kernel selection for ", FormatNodeNameForError(node_name),
                           " (op '", op, "') on device '", device_type,
                           "', label '", label, "': ", candidates.size(),
                           " registered kernel(s)\n");
  for (size_t i = 0; i < candidates.size(); ++i) {
    const KernelCandidate& c = candidates[i];
    const char* verdict = static_cast<int>(i) == winner ? "[selected]"
                          : c.matched                   ? "[matched] "
                                                        : "[rejected]";
    std::string line = KernelLine(c.def);
    line.pop_back();  // The trailing newline.
    out += StrCat("  ", verdict, " '", c.kernel_class_name, "' (",
                  c.origin.ToString(), "):", line.substr(1), "; priority ",
                  c.def.priority());
    if (!c.reason.empty()) out += StrCat(" -- ", c.reason);
    out += "\n";
  }
  if (winner >= 0) {
    out += StrCat("Selected: '", candidates[winner].kernel_class_name, "'\n");
  } else {
    out += StrCat("No kernel selected: ", status.ToString(), "\n");
  }
  return out;
}

}  // namespace opkit

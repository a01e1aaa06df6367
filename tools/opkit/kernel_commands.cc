// The commands about kernels: kernels (the registrations), explain (which
// kernel a node selects, and why), load (what a library registers and which
// kernels it overrides).
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/runtime/library.h"
#include "opkit/tensor/types.h"
#include "tools/opkit/commands.h"

namespace opkit {
namespace cli {
namespace {

using nlohmann::json;

json OriginJson(const RegistrationOrigin& origin) {
  return json{{"file", origin.file},
              {"line", origin.line},
              {"library", origin.library}};
}

std::string OriginText(const RegistrationOrigin& origin) {
  // __FILE__ is relative to the build directory ("../../opkit/kernels/x.cc");
  // the source-tree path reads better.
  RegistrationOrigin shown = origin;
  while (shown.file.compare(0, 3, "../") == 0) shown.file.erase(0, 3);
  std::string out = shown.ToString();
  if (origin.library.empty() && !origin.file.empty()) out += " (built in)";
  return out;
}

json ConstraintsJson(const KernelDef& def) {
  json out = json::object();
  for (const auto& c : def.constraint()) {
    json values = json::array();
    const auto& list = c.allowed_values().list();
    for (int t : list.type()) values.push_back(DataTypeString(static_cast<DataType>(t)));
    for (const std::string& s : list.s()) values.push_back(s);
    for (int64_t i : list.i()) values.push_back(i);
    for (bool b : list.b()) values.push_back(b);
    out[c.name()] = values;
  }
  return out;
}

json KernelJson(const KernelDef& def, const std::string& class_name,
                const RegistrationOrigin& origin) {
  json host = json::array();
  for (const std::string& h : def.host_memory_arg()) host.push_back(h);
  return json{{"op", def.op()},
              {"device", def.device_type()},
              {"constraints", ConstraintsJson(def)},
              {"label", def.label()},
              {"priority", def.priority()},
              {"class", class_name},
              {"host_memory_args", host},
              {"origin", OriginJson(origin)}};
}

// "T in {float, int32}; ..." for a kernel's constraints.
std::string KernelConstraintsString(const KernelDef& def) {
  std::vector<std::string> parts;
  for (const auto& c : def.constraint()) {
    parts.push_back(c.name() + " in " + AllowedText(c.allowed_values()));
  }
  return StrJoin(parts, "; ");
}

// The table cells every kernel listing starts with: op, device,
// constraints, label, priority.
std::vector<std::string> KernelCells(const KernelDef& def) {
  const std::string constraints = KernelConstraintsString(def);
  return {def.op(), def.device_type(), constraints.empty() ? "-" : constraints,
          def.label().empty() ? "-" : "label='" + def.label() + "'",
          "priority " + std::to_string(def.priority())};
}

// --- kernels ------------------------------------------------------------------

class KernelsCommand : public Command {
 public:
  KernelsCommand()
      : Command({"kernels", "opkit kernels [OP] [--json]",
                 "List registered kernels: device, constraints, label, priority, origin.",
                 "One line per kernel: op, device, type constraints, label, priority,\n"
                 "kernel class, and where it was registered (file:line, and the library\n"
                 "for kernels loaded from one). Without OP, every kernel of every op.",
                 "OP"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("OP", op_, "an op name");
    AddFlag(app, "json", &json_, "print a JSON array of kernels");
  }

  int Run() override {
    std::vector<std::string> ops;
    if (!op_.empty()) {
      const OpDef* op_def = nullptr;
      Status s = LookUpOp(op_, &op_def);
      if (!s.ok()) return ReportError(s);
      ops.push_back(op_def->name());
    } else {
      std::set<std::string> names;
      const KernelList all = GetAllRegisteredKernels();
      for (const KernelDef& def : all.kernel()) names.insert(def.op());
      ops.assign(names.begin(), names.end());
    }
    json out = json::array();
    std::vector<std::vector<std::string>> rows;
    for (const std::string& op : ops) {
      for (const KernelRegistration& r :
           KernelRegistry::Global()->GetRegistrationsForOp(op)) {
        out.push_back(KernelJson(r.def, r.kernel_class_name, r.origin));
        rows.push_back(KernelCells(r.def));
        rows.back().push_back(r.kernel_class_name.empty() ? "-" : r.kernel_class_name);
        rows.back().push_back(OriginText(r.origin));
      }
    }
    if (json_) {
      PrintJson(out);
      return kExitOk;
    }
    if (rows.empty()) {
      std::cout << (op_.empty() ? std::string("no kernels registered")
                                : "no kernels registered for op '" + ops[0] + "'")
                << "\n";
      return kExitOk;
    }
    PrintTable(rows);
    return kExitOk;
  }

 private:
  std::string op_;
  bool json_ = false;
};

// --- explain ------------------------------------------------------------------

// Parses one --attr NAME=VALUE for `op_def` into `*node`, VALUE in the
// shorthand of the attr's type (AttrTextSyntax::kShorthand). Sets *note when
// the value is well-formed but not allowed by the op (a type outside the
// op's list), which explain reports rather than refuses, since kernel
// selection then says why nothing matches.
Status AddAttrFromFlag(const OpDef& op_def, const std::string& name,
                       const std::string& text, NodeDef* node, std::string* note) {
  const std::string where = "--attr " + name + "=" + text;
  const OpDef::AttrDef* attr = FindAttr(name, op_def);
  if (name != "_kernel" && (attr == nullptr || FindInputArg(name, op_def) != nullptr ||
                            FindOutputArg(name, op_def) != nullptr)) {
    std::vector<std::string> names;
    for (const auto& a : op_def.attr()) names.push_back(a.name());
    names.push_back("_kernel");
    return errors::InvalidArgument(where, ": op '", op_def.name(), "' has no attr '", name,
                                   "'; its attrs are: ", StrJoin(names, ", "));
  }
  const std::string type = attr == nullptr ? "string" : attr->type();
  AttrValue value;
  Status s = ParseAttrValue(type, text, AttrTextSyntax::kShorthand, &value);
  if (!s.ok()) return errors::InvalidArgument(where, ": ", s.message());
  Status valid = attr == nullptr ? OkStatus() : ValidateAttrValue(value, *attr);
  if (!valid.ok()) {
    if (type != "type" && type != "list(type)") {
      return errors::InvalidArgument(where, ": ", valid.message());
    }
    *note = StrCat("op '", op_def.name(), "' does not allow ", name, "=", ValueText(value),
                   " (", valid.message(), ")");
  }
  (*node->mutable_attr())[name] = value;
  return OkStatus();
}

class ExplainCommand : public Command {
 public:
  ExplainCommand()
      : Command({"explain", "opkit explain OP [--device DEV] [--attr NAME=VALUE]... [--json]",
                 "Show which kernel would run for a node, and why each candidate was or was "
                 "not chosen.",
                 "The node is op OP with the attrs given by --attr; the op's defaults fill\n"
                 "the rest. VALUE is written by the attr's type:\n"
                 "  type        T=float  T=DT_FLOAT  T=float32  T=tf.float32\n"
                 "  list(type)  Tlist=[float,int32]\n"
                 "  bool        transpose_a=true\n"
                 "  int, float  N=3  alpha=0.5\n"
                 "  shape       shape=[2,3]  shape=[?,3]  shape=?\n"
                 "  string      padding=SAME  padding='SAME'\n"
                 "  tensor      value={ dtype: DT_FLOAT float_val: 1 }  (text format)\n"
                 "  label       _kernel=LABEL (selects kernels registered with that label)\n"
                 "Exit status 1 when no kernel would be selected (after the explanation).",
                 "OP (an op name, e.g. MatMul)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("OP", op_, "an op name")->required();
    AddValue(app, "device", &device_, "DEV", "device type to select for (default CPU)");
    AddRepeatable(app, "attr", &attrs_, "NAME=VALUE", "an attr of the node (repeatable)");
    AddFlag(app, "json", &json_, "print the explanation as JSON");
  }

  int Run() override {
    std::vector<std::pair<std::string, std::string>> attrs;
    for (const std::string& flag : attrs_) {
      std::string name, text;
      Status s = SplitNameValue("attr", "NAME=VALUE", flag, &name, &text);
      if (!s.ok()) return UsageError(s.message());
      attrs.emplace_back(name, text);
    }
    const OpDef* op_def = nullptr;
    Status s = LookUpOp(op_, &op_def);
    if (!s.ok()) return ReportError(s);
    if (device_.empty()) return ReportError("--device value is empty; use e.g. --device CPU");
    NodeDef node;
    node.set_name(op_def->name());
    node.set_op(op_def->name());
    std::vector<std::string> notes;
    for (const auto& [name, text] : attrs) {
      std::string note;
      Status a = AddAttrFromFlag(*op_def, name, text, &node, &note);
      if (!a.ok()) return ReportError(a);
      if (!note.empty()) notes.push_back(note);
    }
    KernelSelectionExplanation ex = ExplainKernelSelection(DeviceType(device_), node);
    if (json_) {
      PrintJson(ExplanationJson(ex, notes));
    } else {
      for (const std::string& note : notes) std::cout << "note: " << note << "\n";
      const std::string text = ex.ToString();
      std::cout << text;
      if (!text.empty() && text.back() != '\n') std::cout << "\n";
    }
    if (ex.winner < 0) {
      const bool ambiguous = errors::IsInvalidArgument(ex.status);
      return ReportError(StrCat(
          "no ", device_, " kernel of '", op_def->name(), "' would be selected",
          ambiguous ? ": the best candidates are ambiguous" : " for these attrs",
          "; see the reasons above",
          ambiguous ? " (raise one kernel's priority, or pick one with --attr _kernel=LABEL)"
                    : ""));
    }
    if (!notes.empty()) {
      // A kernel without a constraint on the attr would run, but the op
      // itself refuses the node, as a graph holding it would be refused.
      return ReportError(StrCat("a node with these attrs is not valid for op '",
                                op_def->name(), "': ", notes.front(),
                                "; choose an allowed value"));
    }
    return kExitOk;
  }

 private:
  static json ExplanationJson(const KernelSelectionExplanation& ex,
                              const std::vector<std::string>& notes) {
    json candidates = json::array();
    for (size_t i = 0; i < ex.candidates.size(); ++i) {
      const KernelCandidate& c = ex.candidates[i];
      json j = KernelJson(c.def, c.kernel_class_name, c.origin);
      j["matched"] = c.matched;
      j["selected"] = static_cast<int>(i) == ex.winner;
      j["reason"] = c.reason;
      candidates.push_back(j);
    }
    return json{{"op", ex.op},
                {"device", ex.device_type},
                {"label", ex.label},
                {"candidates", candidates},
                {"selected", ex.winner >= 0 ? json(ex.winner) : json(nullptr)},
                {"notes", notes},
                {"error", ex.status.ok() ? json(nullptr) : json(ex.status.message())}};
  }

  std::string op_;
  std::string device_ = "CPU";
  std::vector<std::string> attrs_;
  bool json_ = false;
};

// --- load: does a library's kernel win? -----------------------------------

// A node that the kernel `def` accepts: the first allowed value of each
// constraint, its label.
NodeDef NodeForKernel(const KernelDef& def) {
  NodeDef node;
  node.set_name(def.op());
  node.set_op(def.op());
  const OpDef* op_def = nullptr;
  const bool known_op = LookUpOp(def.op(), &op_def).ok();
  for (const auto& c : def.constraint()) {
    const auto& list = c.allowed_values().list();
    AttrValue v;
    const OpDef::AttrDef* attr = known_op ? FindAttr(c.name(), *op_def) : nullptr;
    const bool is_list = attr != nullptr && attr->type().compare(0, 5, "list(") == 0;
    if (list.type_size() > 0) {
      if (is_list) v.mutable_list()->add_type(list.type(0)); else v.set_type(list.type(0));
    } else if (list.s_size() > 0) {
      v.set_s(list.s(0));
    } else if (list.i_size() > 0) {
      v.set_i(list.i(0));
    } else if (list.b_size() > 0) {
      v.set_b(list.b(0));
    } else {
      continue;
    }
    (*node.mutable_attr())[c.name()] = v;
  }
  if (!def.label().empty()) (*node.mutable_attr())["_kernel"].set_s(def.label());
  return node;
}

struct KernelVerdict {
  std::string text;     // for the table
  std::string verdict;  // "new", "overrides", "shadowed", "ambiguous"
  json others = json::array();
};

KernelVerdict JudgeLibraryKernel(const KernelDef& def, const std::string& library) {
  KernelVerdict out;
  KernelSelectionExplanation ex =
      ExplainKernelSelection(DeviceType(def.device_type()), NodeForKernel(def));
  const std::string serialized = def.SerializeAsString();
  int self = -1;
  for (size_t i = 0; i < ex.candidates.size(); ++i) {
    const KernelCandidate& c = ex.candidates[i];
    if (c.def.SerializeAsString() == serialized &&
        (self < 0 || c.origin.library == library)) {
      self = static_cast<int>(i);
    }
  }
  std::vector<std::string> others;
  for (size_t i = 0; i < ex.candidates.size(); ++i) {
    const KernelCandidate& c = ex.candidates[i];
    if (static_cast<int>(i) == self || !c.matched) continue;
    others.push_back(StrCat(c.kernel_class_name, " (", OriginText(c.origin),
                            ", priority ", c.def.priority(), ")"));
    out.others.push_back(KernelJson(c.def, c.kernel_class_name, c.origin));
  }
  if (ex.winner >= 0 && ex.winner == self) {
    if (others.empty()) {
      out.verdict = "new";
      out.text = "selected (no other kernel for these attrs)";
    } else {
      out.verdict = "overrides";
      out.text = "overrides " + StrJoin(others, ", ");
    }
  } else if (ex.winner >= 0) {
    const KernelCandidate& w = ex.candidates[ex.winner];
    out.verdict = "shadowed";
    out.text = StrCat("not selected: ", w.kernel_class_name, " (", OriginText(w.origin),
                      ", priority ", w.def.priority(), ") wins");
  } else {
    out.verdict = "ambiguous";
    out.text = "not selectable: " + ex.status.message();
  }
  return out;
}

class LoadCommand : public Command {
 public:
  LoadCommand()
      : Command({"load", "opkit load LIB... [--json]",
                 "Load op libraries and show what each registers and which kernels it "
                 "overrides.",
                 "For each library: its ops (with signatures) and its kernels, and for each\n"
                 "kernel whether it now wins over a kernel registered before it for the\n"
                 "same op and device (judged for the first type its constraints allow),\n"
                 "and the shared libraries its load brought in (a BLAS, OpenMP), which\n"
                 "stay loaded when the library is unloaded.\n"
                 "To use a library with another command, give --load LIB to that command:\n"
                 "  opkit --load ./zero_out.so ops 'Zero*'",
                 "LIB (the path of an op library, e.g. ./zero_out.so)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("LIB", paths_, "op libraries")->required();
    AddFlag(app, "json", &json_, "print a JSON array, one object per library");
  }

  int Run() override {
    json out = json::array();
    for (const std::string& path : paths_) {
      StatusOr<OpLibrary> lib = LoadOpLibrary(path);
      if (!lib.ok()) return ReportError(lib.status());
      out.push_back(Describe(*lib));
    }
    if (json_) PrintJson(out);
    return kExitOk;
  }

 private:
  // The library as JSON; printed as tables unless --json.
  json Describe(const OpLibrary& lib) const {
    json ops = json::array();
    std::vector<std::vector<std::string>> op_rows;
    for (const OpDef& op : lib.op_list().op()) {
      ops.push_back({{"name", op.name()}, {"signature", OpSignature(op)}});
      op_rows.push_back({op.name(), OpSignature(op)});
    }
    json kernels = json::array();
    std::vector<std::vector<std::string>> kernel_rows;
    for (const KernelDef& def : lib.kernel_list().kernel()) {
      KernelVerdict v = JudgeLibraryKernel(def, lib.path());
      kernel_rows.push_back(KernelCells(def));
      kernel_rows.back().push_back(v.text);
      json jk = KernelJson(def, "", RegistrationOrigin{"", 0, lib.path()});
      jk.erase("class");
      jk.erase("origin");
      jk["verdict"] = v.verdict;
      jk["detail"] = v.text;
      jk["displaced"] = v.others;
      kernels.push_back(jk);
    }
    json shared = json::array();
    for (const std::string& n : lib.shared_op_names()) shared.push_back(n);
    if (!json_) {
      std::cout << lib.path() << "\n";
      std::cout << "  ops (" << op_rows.size() << "):\n";
      PrintTable(op_rows, "    ");
      std::cout << "  kernels (" << kernel_rows.size() << "):\n";
      PrintTable(kernel_rows, "    ");
      if (!lib.shared_op_names().empty()) {
        std::cout << "  ops already registered identically by another library: "
                  << StrJoin(lib.shared_op_names(), ", ") << "\n";
      }
      if (!lib.kept_dependencies().empty()) {
        std::cout << "  shared libraries it brought in, kept loaded after an unload: "
                  << StrJoin(lib.kept_dependencies(), ", ") << "\n";
      }
    }
    return json{{"library", lib.path()},
                {"ops", ops},
                {"kernels", kernels},
                {"shared_ops", shared},
                {"kept_dependencies", lib.kept_dependencies()}};
  }

  std::vector<std::string> paths_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeKernelsCommand() { return std::make_unique<KernelsCommand>(); }
std::unique_ptr<Command> MakeExplainCommand() { return std::make_unique<ExplainCommand>(); }
std::unique_ptr<Command> MakeLoadCommand() { return std::make_unique<LoadCommand>(); }

}  // namespace cli
}  // namespace opkit

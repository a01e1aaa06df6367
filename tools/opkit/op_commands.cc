// The commands about op definitions: ops, op, compat; and the op signature
// and value texts the other commands print too.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/library.h"
#include "opkit/tensor/types.h"
#include "tools/opkit/commands.h"

namespace opkit {
namespace cli {
namespace {

using nlohmann::json;

std::string ArgText(const OpDef::ArgDef& arg) {
  std::string type;
  if (!arg.type_list_attr().empty()) {
    type = arg.type_list_attr();
  } else if (!arg.type_attr().empty()) {
    type = arg.type_attr();
  } else {
    type = DataTypeString(arg.type());
  }
  if (!arg.number_attr().empty()) type = arg.number_attr() + " * " + type;
  if (arg.is_ref()) type = "Ref(" + type + ")";
  return arg.name() + ": " + type;
}

bool HasAllowed(const OpDef::AttrDef& attr) {
  return attr.has_allowed_values() &&
         attr.allowed_values().value_case() == AttrValue::kList;
}

// --- ops --------------------------------------------------------------------

class OpsCommand : public Command {
 public:
  OpsCommand()
      : Command({"ops", "opkit ops [PATTERN] [--all] [--json]",
                 "List the registered ops, one line each with its summary.",
                 "PATTERN is a shell glob matched against the whole op name when it\n"
                 "contains *, ? or [ (e.g. 'Mat*'); otherwise it is a case-insensitive\n"
                 "substring (e.g. 'matmul' lists MatMul and BatchMatMul). Without\n"
                 "PATTERN, every op is listed. Ops from libraries given with --load are\n"
                 "included.",
                 "PATTERN"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("PATTERN", pattern_, "a glob or a substring of op names");
    AddFlag(app, "all", &all_, "include internal ops (names starting with '_')");
    AddFlag(app, "json", &json_, "print a JSON array of {name, summary, signature}");
  }

  int Run() override {
    OpList list;
    OpRegistry::Global()->Export(all_, &list);
    std::vector<const OpDef*> ops;
    const bool has_pattern = !pattern_.empty();
    const bool glob = pattern_.find_first_of("*?[") != std::string::npos;
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    const std::string needle = lower(pattern_);
    for (const OpDef& op : list.op()) {
      if (has_pattern && (glob ? !GlobMatch(pattern_, op.name())
                               : lower(op.name()).find(needle) == std::string::npos)) {
        continue;
      }
      ops.push_back(&op);
    }
    std::sort(ops.begin(), ops.end(),
              [](const OpDef* a, const OpDef* b) { return a->name() < b->name(); });
    if (json_) {
      json out = json::array();
      for (const OpDef* op : ops) {
        out.push_back({{"name", op->name()},
                       {"summary", op->summary()},
                       {"signature", OpSignature(*op)}});
      }
      PrintJson(out);
      return kExitOk;
    }
    if (ops.empty()) {
      if (has_pattern) {
        return ReportError(StrCat("no registered op matches '", pattern_, "' (as a ",
                                  glob ? "glob" : "substring",
                                  "); run 'opkit ops' to list them all"));
      }
      std::cout << "no ops registered\n";
      return kExitOk;
    }
    std::vector<std::vector<std::string>> rows;
    for (const OpDef* op : ops) {
      rows.push_back({op->name(), op->summary().empty() ? OpSignature(*op) : op->summary()});
    }
    PrintTable(rows);
    return kExitOk;
  }

 private:
  std::string pattern_;
  bool all_ = false;
  bool json_ = false;
};

// --- op -----------------------------------------------------------------------

class OpCommand : public Command {
 public:
  OpCommand()
      : Command({"op", "opkit op NAME [--signature | --json]",
                 "Show one op's full definition (OpDef).",
                 "Prints the OpDef as a protobuf text proto (the format of TensorFlow's\n"
                 "ops.pbtxt), or a one-line readable signature with --signature:\n"
                 "  MatMul(a: T, b: T) -> product: T; attrs: transpose_a: bool = false, ...;\n"
                 "  T in {half, float, ...}\n"
                 "An unknown NAME is an error that suggests close names.",
                 "NAME (an op name, e.g. MatMul)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("NAME", name_, "an op name")->required();
    AddFlag(app, "signature", &signature_, "print the readable signature instead");
    AddFlag(app, "json", &json_, "print the OpDef as JSON (protobuf's JSON mapping)");
  }

  int Run() override {
    const OpDef* op_def = nullptr;
    Status s = LookUpOp(name_, &op_def);
    if (!s.ok()) return ReportError(s);
    if (json_) {
      std::string text;
      google::protobuf::util::JsonPrintOptions options;
      options.preserve_proto_field_names = true;
      auto st = google::protobuf::util::MessageToJsonString(*op_def, &text, options);
      if (!st.ok()) return ReportError("cannot convert the OpDef to JSON");
      json out = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (out.is_discarded()) return ReportError("cannot convert the OpDef to JSON");
      out["signature"] = OpSignature(*op_def);
      PrintJson(out);
      return kExitOk;
    }
    if (signature_) {
      std::cout << OpSignature(*op_def) << "\n";
      return kExitOk;
    }
    std::string text;
    if (!google::protobuf::TextFormat::PrintToString(*op_def, &text)) {
      return ReportError("cannot print the OpDef as text");
    }
    std::cout << "op {\n";
    std::string line;
    for (char c : text) {
      line += c;
      if (c == '\n') {
        std::cout << "  " << line;
        line.clear();
      }
    }
    if (!line.empty()) std::cout << "  " << line << "\n";
    std::cout << "}\n";
    return kExitOk;
  }

 private:
  std::string name_;
  bool signature_ = false;
  bool json_ = false;
};

// --- compat -------------------------------------------------------------------

class CompatCommand : public Command {
 public:
  CompatCommand()
      : Command({"compat", "opkit compat OLD.pbtxt NEW.pbtxt [--json]",
                 "Check that the ops of NEW are backward compatible with those of OLD.",
                 "OLD and NEW are OpList text protos (the format of TensorFlow's ops.pbtxt).\n"
                 "A violation is an op of OLD missing from NEW, an op whose new definition\n"
                 "breaks graphs or callers written against the old one (OpDefCompatible),\n"
                 "or an attr whose default changed or was removed. Added ops are reported\n"
                 "as information. Exit status 1 when NEW is incompatible, 0 otherwise.",
                 "OLD.pbtxt and NEW.pbtxt (two OpList text files)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("OLD.pbtxt", old_path_, "the old op list")->required();
    app.add_option("NEW.pbtxt", new_path_, "the new op list")->required();
    AddFlag(app, "json", &json_, "print {compatible, violations, added, changed}");
  }

  int Run() override {
    OpList old_list, new_list;
    Status s = LoadOpListFromTextFile(old_path_, &old_list);
    if (!s.ok()) return ReportError(s);
    s = LoadOpListFromTextFile(new_path_, &new_list);
    if (!s.ok()) return ReportError(s);
    std::map<std::string, const OpDef*> old_ops, new_ops;
    for (const OpDef& op : old_list.op()) old_ops.emplace(op.name(), &op);
    for (const OpDef& op : new_list.op()) new_ops.emplace(op.name(), &op);

    json violations = json::array();
    std::vector<std::string> lines;
    std::vector<std::string> changed, added;
    auto violation = [&](const std::string& name, const char* kind, const std::string& msg) {
      violations.push_back({{"op", name}, {"kind", kind}, {"message", msg}});
      lines.push_back(msg);
    };
    for (const auto& [name, old_op] : old_ops) {
      auto it = new_ops.find(name);
      if (it == new_ops.end()) {
        violation(name, "removed",
                  "op '" + name + "' was removed; graphs that use it no longer load");
        continue;
      }
      const OpDef& new_op = *it->second;
      Status c = OpDefCompatible(*old_op, new_op);
      if (!c.ok()) violation(name, "incompatible", "op '" + name + "': " + c.message());
      Status d = OpDefAttrDefaultsUnchanged(*old_op, new_op);
      if (!d.ok()) violation(name, "default_changed", "op '" + name + "': " + d.message());
      if (c.ok() && d.ok() && old_op->SerializeAsString() != new_op.SerializeAsString()) {
        changed.push_back(name);
      }
    }
    for (const auto& [name, op] : new_ops) {
      if (old_ops.count(name) == 0) added.push_back(name);
    }
    const bool compatible = violations.empty();
    if (json_) {
      PrintJson(json{{"compatible", compatible},
                     {"violations", violations},
                     {"added", added},
                     {"changed", changed}});
    } else {
      for (const std::string& line : lines) std::cout << "violation: " << line << "\n";
      for (const std::string& name : changed) {
        std::cout << "info: op '" << name << "' changed compatibly\n";
      }
      for (const std::string& name : added) std::cout << "info: op '" << name << "' was added\n";
      std::cout << (compatible ? "compatible" : "incompatible") << ": " << old_ops.size()
                << " old ops, " << new_ops.size() << " new ops, " << violations.size()
                << " violation(s), " << added.size() << " added\n";
    }
    if (!compatible) {
      return ReportError(StrCat("'", new_path_, "' is not backward compatible with '",
                                old_path_, "': ", violations.size(),
                                " violation(s) listed above"));
    }
    return kExitOk;
  }

 private:
  std::string old_path_;
  std::string new_path_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeOpsCommand() { return std::make_unique<OpsCommand>(); }
std::unique_ptr<Command> MakeOpCommand() { return std::make_unique<OpCommand>(); }
std::unique_ptr<Command> MakeCompatCommand() { return std::make_unique<CompatCommand>(); }

// --- Shared helpers ---------------------------------------------------------

Status LoadLibraries(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    StatusOr<OpLibrary> lib = LoadOpLibrary(path);
    if (!lib.ok()) return lib.status();
  }
  return OkStatus();
}

Status LookUpOp(const std::string& name, const OpDef** op_def) {
  return OpRegistry::Global()->LookUpOpDef(name, op_def);
}

std::string AllowedText(const AttrValue& allowed) {
  std::vector<std::string> items;
  const auto& list = allowed.list();
  for (int t : list.type()) items.push_back(DataTypeString(static_cast<DataType>(t)));
  for (const std::string& s : list.s()) items.push_back("'" + s + "'");
  for (int64_t i : list.i()) items.push_back(std::to_string(i));
  for (bool b : list.b()) items.push_back(b ? "true" : "false");
  return "{" + StrJoin(items, ", ") + "}";
}

std::string ValueText(const AttrValue& v) {
  if (v.value_case() == AttrValue::kType) return DataTypeString(v.type());
  if (v.value_case() == AttrValue::kShape) {
    PartialTensorShape shape;
    if (PartialTensorShape::FromProto(v.shape(), &shape).ok()) return ShapeText(shape);
  }
  if (v.value_case() == AttrValue::kList && v.list().type_size() > 0) {
    std::vector<std::string> names;
    for (int t : v.list().type()) names.push_back(DataTypeString(static_cast<DataType>(t)));
    return "[" + StrJoin(names, ", ") + "]";
  }
  return SummarizeAttrValue(v);
}

std::string OpSignature(const OpDef& op_def) {
  std::vector<std::string> inputs, outputs, attrs, type_clauses;
  for (const auto& a : op_def.input_arg()) inputs.push_back(ArgText(a));
  for (const auto& a : op_def.output_arg()) outputs.push_back(ArgText(a));
  for (const auto& attr : op_def.attr()) {
    const bool has_default = attr.has_default_value();
    if (attr.type() == "type" && HasAllowed(attr)) {
      std::string clause = attr.name() + " in " + AllowedText(attr.allowed_values());
      if (has_default) clause += " = " + ValueText(attr.default_value());
      type_clauses.push_back(clause);
      continue;
    }
    std::string text = attr.name() + ": " + attr.type();
    if (HasAllowed(attr)) text += " in " + AllowedText(attr.allowed_values());
    if (attr.has_minimum()) text += " >= " + std::to_string(attr.minimum());
    if (has_default) text += " = " + ValueText(attr.default_value());
    attrs.push_back(text);
  }
  std::string out = op_def.name() + "(" + StrJoin(inputs, ", ") + ") -> ";
  out += outputs.size() == 1 ? outputs[0] : "(" + StrJoin(outputs, ", ") + ")";
  if (!attrs.empty()) out += "; attrs: " + StrJoin(attrs, ", ");
  if (!type_clauses.empty()) out += "; " + StrJoin(type_clauses, "; ");
  return out;
}

}  // namespace cli
}  // namespace opkit

// The commands about ops and kernels: ops, op, kernels, explain, load,
// compat.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/tensor/types.h"
#include "opkit/runtime/library.h"
#include "tools/opkit/commands.h"

namespace opkit {
namespace cli {
namespace {

using nlohmann::json;

// The types of an AttrValue list, as names ("float, int32").
std::vector<std::string> TypeNames(const AttrValue& list_value) {
  std::vector<std::string> out;
  for (int t : list_value.list().type()) {
    out.push_back(DataTypeString(static_cast<DataType>(t)));
  }
  return out;
}

// A value the way the signature shows it: types by name, the rest as
// SummarizeAttrValue prints them.
std::string ValueText(const AttrValue& v) {
  if (v.value_case() == AttrValue::kType) return DataTypeString(v.type());
  if (v.value_case() == AttrValue::kShape) {
    PartialTensorShape shape;
    if (PartialTensorShape::FromProto(v.shape(), &shape).ok()) return ShapeText(shape);
  }
  if (v.value_case() == AttrValue::kList && v.list().type_size() > 0) {
    return "[" + StrJoin(TypeNames(v), ", ") + "]";
  }
  return SummarizeAttrValue(v);
}

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

// The allowed values of an attr ("{'SAME', 'VALID'}", "{float, int32}").
std::string AllowedText(const AttrValue& allowed) {
  std::vector<std::string> items;
  const auto& list = allowed.list();
  for (int t : list.type()) items.push_back(DataTypeString(static_cast<DataType>(t)));
  for (const std::string& s : list.s()) items.push_back("'" + s + "'");
  for (int64_t i : list.i()) items.push_back(std::to_string(i));
  for (bool b : list.b()) items.push_back(b ? "true" : "false");
  return "{" + StrJoin(items, ", ") + "}";
}

bool HasAllowed(const OpDef::AttrDef& attr) {
  return attr.has_allowed_values() &&
         attr.allowed_values().value_case() == AttrValue::kList;
}

// The op's OpDef from the global registry, or the registry's NotFound
// (which suggests close names).
Status LookUpOp(const std::string& name, const OpDef** op_def) {
  return OpRegistry::Global()->LookUpOpDef(name, op_def);
}

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

// Prints rows of cells as left-aligned columns two spaces apart.
void PrintTable(const std::vector<std::vector<std::string>>& rows,
                const std::string& indent = "") {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

std::vector<std::string> KernelRow(const KernelDef& def, const std::string& class_name,
                                   const RegistrationOrigin& origin) {
  std::string constraints = KernelConstraintsString(def);
  return {def.op(),
          def.device_type(),
          constraints.empty() ? "-" : constraints,
          def.label().empty() ? "-" : "label='" + def.label() + "'",
          "priority " + std::to_string(def.priority()),
          class_name.empty() ? "-" : class_name,
          OriginText(origin)};
}

// --- Parsing --attr values ----------------------------------------------

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// "float", "float32", "DT_FLOAT".
bool ParseDataType(std::string_view text, DataType* out) {
  std::string t = Trim(text);
  if (t.size() > 3 && t.compare(0, 3, "DT_") == 0) {
    t = t.substr(3);
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  DataType dt;
  if (!DataTypeFromString(t, &dt) || IsRefType(dt)) return false;
  *out = dt;
  return true;
}

// Splits "[a, b, [c, d]]" (brackets optional) at top-level commas.
bool SplitList(std::string_view text, std::vector<std::string>* items) {
  std::string t = Trim(text);
  if (!t.empty() && t.front() == '[') {
    if (t.back() != ']') return false;
    t = t.substr(1, t.size() - 2);
  }
  items->clear();
  if (Trim(t).empty()) return true;
  int depth = 0;
  std::string cur;
  for (char c : t) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return false;
    if (c == ',' && depth == 0) {
      items->push_back(Trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (depth != 0) return false;
  items->push_back(Trim(cur));
  for (const std::string& item : *items) {
    if (item.empty()) return false;
  }
  return true;
}

std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

Status ParseScalar(const std::string& type, const std::string& text, AttrValue* out,
                   const std::string& where) {
  if (type == "type") {
    DataType dt;
    if (!ParseDataType(text, &dt)) {
      return errors::InvalidArgument(where, ": '", text,
                                     "' is not a data type; write e.g. float, "
                                     "int32 or DT_FLOAT");
    }
    out->set_type(dt);
  } else if (type == "int") {
    int64_t v = 0;
    Status s = ParseInt("attr", Trim(text), INT64_MIN, INT64_MAX, &v);
    if (!s.ok()) {
      return errors::InvalidArgument(where, ": '", text, "' is not an integer");
    }
    out->set_i(v);
  } else if (type == "float") {
    std::string t = Trim(text);
    errno = 0;
    char* end = nullptr;
    // strtof reports values outside float's range (ERANGE) instead of
    // narrowing a double, which would be undefined.
    float v = t.empty() ? 0 : std::strtof(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE) {
      return errors::InvalidArgument(where, ": '", text,
                                     "' is not a number in float's range");
    }
    out->set_f(v);
  } else if (type == "bool") {
    std::string t = Trim(text);
    if (t == "true" || t == "True" || t == "1") {
      out->set_b(true);
    } else if (t == "false" || t == "False" || t == "0") {
      out->set_b(false);
    } else {
      return errors::InvalidArgument(where, ": '", text,
                                     "' is not a bool; write true or false");
    }
  } else if (type == "string") {
    out->set_s(Unquote(text));
  } else if (type == "shape") {
    PartialTensorShape shape;
    Status s = ParseShapeText("attr", text, &shape);
    if (!s.ok()) {
      return errors::InvalidArgument(where, ": '", text,
                                     "' is not a shape; write e.g. [2,3], [?,3] or ?");
    }
    SetAttrValue(shape, out);
  } else {
    Status s = ParseAttrValue(type, text, out);
    if (!s.ok()) return errors::InvalidArgument(where, ": ", s.message());
  }
  return OkStatus();
}

// Parses one --attr NAME=VALUE for `op_def` into `*node`. Sets *note when
// the value is well-formed but not allowed by the op (a type outside the
// op's list), which explain reports rather than refuses, since kernel
// selection then says why nothing matches.
Status AddAttrFromFlag(const OpDef& op_def, const std::string& flag_text,
                       NodeDef* node, std::string* note) {
  std::string name, text;
  OPKIT_RETURN_IF_ERROR(SplitNameValue("attr", flag_text, &name, &text));
  const std::string where = "--attr " + flag_text;
  AttrValue value;
  if (name == "_kernel") {
    value.set_s(Unquote(text));
    (*node->mutable_attr())[name] = value;
    return OkStatus();
  }
  const OpDef::AttrDef* attr = FindAttr(name, op_def);
  if (attr == nullptr || FindInputArg(name, op_def) != nullptr ||
      FindOutputArg(name, op_def) != nullptr) {
    std::vector<std::string> names;
    for (const auto& a : op_def.attr()) names.push_back(a.name());
    names.push_back("_kernel");
    return errors::InvalidArgument(where, ": op '", op_def.name(),
                                   "' has no attr '", name, "'; its attrs are: ",
                                   StrJoin(names, ", "));
  }
  const std::string& type = attr->type();
  if (type.compare(0, 5, "list(") == 0 && type.back() == ')') {
    const std::string elem = type.substr(5, type.size() - 6);
    std::vector<std::string> items;
    if (elem == "tensor" || elem == "func" || !SplitList(text, &items)) {
      if (elem != "tensor" && elem != "func") {
        return errors::InvalidArgument(where, ": '", text, "' is not a list; write e.g. [",
                                       elem == "type" ? "float,int32" : "1,2", "]");
      }
      Status s = ParseAttrValue(type, text, &value);
      if (!s.ok()) return errors::InvalidArgument(where, ": ", s.message());
    } else {
      auto* list = value.mutable_list();
      for (const std::string& item : items) {
        AttrValue one;
        OPKIT_RETURN_IF_ERROR(ParseScalar(elem, item, &one, where));
        if (elem == "type") list->add_type(one.type());
        if (elem == "int") list->add_i(one.i());
        if (elem == "float") list->add_f(one.f());
        if (elem == "bool") list->add_b(one.b());
        if (elem == "string") list->add_s(one.s());
        if (elem == "shape") *list->add_shape() = one.shape();
      }
    }
  } else {
    OPKIT_RETURN_IF_ERROR(ParseScalar(type, text, &value, where));
  }
  Status valid = ValidateAttrValue(value, *attr);
  if (!valid.ok()) {
    if (type == "type" || type == "list(type)") {
      *note = StrCat("op '", op_def.name(), "' does not allow ", name, "=",
                     ValueText(value), " (", valid.message(), ")");
    } else {
      return errors::InvalidArgument(where, ": ", valid.message());
    }
  }
  (*node->mutable_attr())[name] = value;
  return OkStatus();
}

// --- load: does a library's kernel win? -----------------------------------

// A node that the kernel `def` accepts: the first allowed value of each
// constraint, its label.
NodeDef NodeForKernel(const KernelDef& def) {
  NodeDef node;
  node.set_name(def.op());
  node.set_op(def.op());
  for (const auto& c : def.constraint()) {
    const auto& list = c.allowed_values().list();
    AttrValue v;
    const OpDef* op_def = nullptr;
    const OpDef::AttrDef* attr = nullptr;
    if (LookUpOp(def.op(), &op_def).ok()) attr = FindAttr(c.name(), *op_def);
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

}  // namespace

// --- Shared helpers ---------------------------------------------------------

Status LoadLibraries(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    StatusOr<OpLibrary> lib = LoadOpLibrary(path);
    if (!lib.ok()) return lib.status();
  }
  return OkStatus();
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

std::string KernelConstraintsString(const KernelDef& def) {
  std::vector<std::string> parts;
  for (const auto& c : def.constraint()) {
    parts.push_back(c.name() + " in " + AllowedText(c.allowed_values()));
  }
  return StrJoin(parts, "; ");
}

// --- ops --------------------------------------------------------------------

CommandSpec OpsCommandSpec() {
  CommandSpec spec;
  spec.name = "ops";
  spec.usage = "opkit ops [PATTERN] [--all] [--json]";
  spec.summary = "List the registered ops, one line each with its summary.";
  spec.description =
      "PATTERN is a shell glob matched against the whole op name when it\n"
      "contains *, ? or [ (e.g. 'Mat*'); otherwise it is a case-insensitive\n"
      "substring (e.g. 'matmul' lists MatMul and BatchMatMul). Without\n"
      "PATTERN, every op is listed. Ops from libraries given with --load are\n"
      "included.";
  spec.flags = {{"all", "", false, "include internal ops (names starting with '_')"},
                {"json", "", false, "print a JSON array of {name, summary, signature}"}};
  spec.max_positional = 1;
  return spec;
}

int RunOps(const ParsedArgs& args) {
  OpList list;
  OpRegistry::Global()->Export(args.Has("all"), &list);
  std::vector<const OpDef*> ops;
  const bool has_pattern = !args.positional.empty();
  const std::string pattern = has_pattern ? args.positional[0] : "";
  const bool glob = pattern.find_first_of("*?[") != std::string::npos;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string needle = lower(pattern);
  for (const OpDef& op : list.op()) {
    if (has_pattern) {
      if (glob ? !GlobMatch(pattern, op.name())
               : lower(op.name()).find(needle) == std::string::npos) {
        continue;
      }
    }
    ops.push_back(&op);
  }
  std::sort(ops.begin(), ops.end(),
            [](const OpDef* a, const OpDef* b) { return a->name() < b->name(); });
  if (args.Has("json")) {
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
      return ReportError(StrCat("no registered op matches '", pattern,
                                "' (as a ", glob ? "glob" : "substring",
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

// --- op -----------------------------------------------------------------------

CommandSpec OpCommandSpec() {
  CommandSpec spec;
  spec.name = "op";
  spec.usage = "opkit op NAME [--signature | --json]";
  spec.summary = "Show one op's full definition (OpDef).";
  spec.description =
      "Prints the OpDef as a protobuf text proto (the format of TensorFlow's\n"
      "ops.pbtxt), or a one-line readable signature with --signature:\n"
      "  MatMul(a: T, b: T) -> product: T; attrs: transpose_a: bool = false, ...;\n"
      "  T in {half, float, ...}\n"
      "An unknown NAME is an error that suggests close names.";
  spec.flags = {{"signature", "", false, "print the readable signature instead"},
                {"json", "", false, "print the OpDef as JSON (protobuf's JSON mapping)"}};
  spec.min_positional = 1;
  spec.max_positional = 1;
  spec.positional_name = "NAME (an op name, e.g. MatMul)";
  return spec;
}

int RunOp(const ParsedArgs& args) {
  const OpDef* op_def = nullptr;
  Status s = LookUpOp(args.positional[0], &op_def);
  if (!s.ok()) return ReportError(s);
  if (args.Has("json")) {
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
  if (args.Has("signature")) {
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

// --- kernels ------------------------------------------------------------------

CommandSpec KernelsCommandSpec() {
  CommandSpec spec;
  spec.name = "kernels";
  spec.usage = "opkit kernels [OP] [--json]";
  spec.summary = "List registered kernels: device, constraints, label, priority, origin.";
  spec.description =
      "One line per kernel: op, device, type constraints, label, priority,\n"
      "kernel class, and where it was registered (file:line, and the library\n"
      "for kernels loaded from one). Without OP, every kernel of every op.";
  spec.flags = {{"json", "", false, "print a JSON array of kernels"}};
  spec.max_positional = 1;
  return spec;
}

int RunKernels(const ParsedArgs& args) {
  std::vector<std::string> ops;
  if (!args.positional.empty()) {
    const OpDef* op_def = nullptr;
    Status s = LookUpOp(args.positional[0], &op_def);
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
      rows.push_back(KernelRow(r.def, r.kernel_class_name, r.origin));
    }
  }
  if (args.Has("json")) {
    PrintJson(out);
    return kExitOk;
  }
  if (rows.empty()) {
    std::cout << (args.positional.empty() ? std::string("no kernels registered")
                                          : "no kernels registered for op '" + ops[0] + "'")
              << "\n";
    return kExitOk;
  }
  PrintTable(rows);
  return kExitOk;
}

// --- explain ------------------------------------------------------------------

CommandSpec ExplainCommandSpec() {
  CommandSpec spec;
  spec.name = "explain";
  spec.usage = "opkit explain OP [--device DEV] [--attr NAME=VALUE]... [--json]";
  spec.summary = "Show which kernel would run for a node, and why each candidate was or was not chosen.";
  spec.description =
      "The node is op OP with the attrs given by --attr; the op's defaults fill\n"
      "the rest. VALUE is written by the attr's type:\n"
      "  type        T=float  T=DT_FLOAT  T=float32\n"
      "  list(type)  Tlist=[float,int32]\n"
      "  bool        transpose_a=true\n"
      "  int, float  N=3  alpha=0.5\n"
      "  shape       shape=[2,3]  shape=[?,3]  shape=?\n"
      "  string      padding=SAME\n"
      "  label       _kernel=LABEL (selects kernels registered with that label)\n"
      "Exit status 1 when no kernel would be selected (after the explanation).";
  spec.flags = {{"device", "DEV", false, "device type to select for (default CPU)"},
                {"attr", "NAME=VALUE", true, "an attr of the node (repeatable)"},
                {"json", "", false, "print the explanation as JSON"}};
  spec.min_positional = 1;
  spec.max_positional = 1;
  spec.positional_name = "OP (an op name, e.g. MatMul)";
  return spec;
}

int RunExplain(const ParsedArgs& args) {
  const OpDef* op_def = nullptr;
  Status s = LookUpOp(args.positional[0], &op_def);
  if (!s.ok()) return ReportError(s);
  const std::string device = args.Get("device", "CPU");
  if (device.empty()) return ReportError("--device value is empty; use e.g. --device CPU");
  NodeDef node;
  node.set_name(op_def->name());
  node.set_op(op_def->name());
  std::vector<std::string> notes;
  for (const std::string& flag : args.GetAll("attr")) {
    if (flag.find('=') == std::string::npos || flag[0] == '=') {
      return ReportUsageError(ExplainCommandSpec(),
                              "--attr value '" + flag + "' is not of the form NAME=VALUE");
    }
    std::string note;
    Status a = AddAttrFromFlag(*op_def, flag, &node, &note);
    if (!a.ok()) return ReportError(a);
    if (!note.empty()) notes.push_back(note);
  }
  KernelSelectionExplanation ex = ExplainKernelSelection(DeviceType(device), node);
  if (args.Has("json")) {
    json candidates = json::array();
    for (size_t i = 0; i < ex.candidates.size(); ++i) {
      const KernelCandidate& c = ex.candidates[i];
      json j = KernelJson(c.def, c.kernel_class_name, c.origin);
      j["matched"] = c.matched;
      j["selected"] = static_cast<int>(i) == ex.winner;
      j["reason"] = c.reason;
      candidates.push_back(j);
    }
    json out{{"op", ex.op},
             {"device", ex.device_type},
             {"label", ex.label},
             {"candidates", candidates},
             {"selected", ex.winner >= 0 ? json(ex.winner) : json(nullptr)},
             {"notes", notes},
             {"error", ex.status.ok() ? json(nullptr) : json(ex.status.message())}};
    PrintJson(out);
  } else {
    for (const std::string& note : notes) std::cout << "note: " << note << "\n";
    std::cout << ex.ToString();
    if (!ex.ToString().empty() && ex.ToString().back() != '\n') std::cout << "\n";
  }
  if (ex.winner < 0) {
    const bool ambiguous = errors::IsInvalidArgument(ex.status);
    return ReportError(StrCat("no ", device, " kernel of '", op_def->name(), "' would be selected",
                              ambiguous ? ": the best candidates are ambiguous"
                                        : " for these attrs",
                              "; see the reasons above",
                              ambiguous ? " (raise one kernel's priority, or pick one with "
                                          "--attr _kernel=LABEL)"
                                        : ""));
  }
  if (!notes.empty()) {
    // A kernel without a constraint on the attr would run, but the op
    // itself refuses the node, as a graph holding it would be refused.
    return ReportError(StrCat("a node with these attrs is not valid for op '", op_def->name(),
                              "': ", notes.front(), "; choose an allowed value"));
  }
  return kExitOk;
}

// --- load ---------------------------------------------------------------------

CommandSpec LoadCommandSpec() {
  CommandSpec spec;
  spec.name = "load";
  spec.usage = "opkit load LIB... [--json]";
  spec.summary = "Load op libraries and show what each registers and which kernels it overrides.";
  spec.description =
      "For each library: its ops (with signatures) and its kernels, and for each\n"
      "kernel whether it now wins over a kernel registered before it for the\n"
      "same op and device (judged for the first type its constraints allow),\n"
      "and the shared libraries its load brought in (a BLAS, OpenMP), which\n"
      "stay loaded when the library is unloaded.\n"
      "To use a library with another command, give --load LIB to that command:\n"
      "  opkit --load ./zero_out.so ops 'Zero*'";
  spec.flags = {{"json", "", false, "print a JSON array, one object per library"}};
  spec.min_positional = 1;
  spec.max_positional = -1;
  spec.positional_name = "LIB (the path of an op library, e.g. ./zero_out.so)";
  return spec;
}

int RunLoad(const ParsedArgs& args) {
  json out = json::array();
  for (const std::string& path : args.positional) {
    StatusOr<OpLibrary> lib = LoadOpLibrary(path);
    if (!lib.ok()) return ReportError(lib.status());
    json jl{{"library", lib->path()}};
    json ops = json::array();
    std::vector<std::vector<std::string>> op_rows;
    for (const OpDef& op : lib->op_list().op()) {
      ops.push_back({{"name", op.name()}, {"signature", OpSignature(op)}});
      op_rows.push_back({op.name(), OpSignature(op)});
    }
    json kernels = json::array();
    std::vector<std::vector<std::string>> kernel_rows;
    for (const KernelDef& def : lib->kernel_list().kernel()) {
      KernelVerdict v = JudgeLibraryKernel(def, lib->path());
      std::string constraints = KernelConstraintsString(def);
      kernel_rows.push_back({def.op(), def.device_type(), constraints.empty() ? "-" : constraints,
                             def.label().empty() ? "-" : "label='" + def.label() + "'",
                             "priority " + std::to_string(def.priority()), v.text});
      json jk = KernelJson(def, "", RegistrationOrigin{"", 0, lib->path()});
      jk.erase("class");
      jk.erase("origin");
      jk["verdict"] = v.verdict;
      jk["detail"] = v.text;
      jk["displaced"] = v.others;
      kernels.push_back(jk);
    }
    jl["ops"] = ops;
    jl["kernels"] = kernels;
    json shared = json::array();
    for (const std::string& n : lib->shared_op_names()) shared.push_back(n);
    jl["shared_ops"] = shared;
    jl["kept_dependencies"] = lib->kept_dependencies();
    out.push_back(jl);
    if (!args.Has("json")) {
      std::cout << lib->path() << "\n";
      std::cout << "  ops (" << op_rows.size() << "):\n";
      PrintTable(op_rows, "    ");
      std::cout << "  kernels (" << kernel_rows.size() << "):\n";
      PrintTable(kernel_rows, "    ");
      if (!lib->shared_op_names().empty()) {
        std::cout << "  ops already registered identically by another library: "
                  << StrJoin(lib->shared_op_names(), ", ") << "\n";
      }
      if (!lib->kept_dependencies().empty()) {
        std::cout << "  shared libraries it brought in, kept loaded after an unload: "
                  << StrJoin(lib->kept_dependencies(), ", ") << "\n";
      }
    }
  }
  if (args.Has("json")) PrintJson(out);
  return kExitOk;
}

// --- compat -------------------------------------------------------------------

CommandSpec CompatCommandSpec() {
  CommandSpec spec;
  spec.name = "compat";
  spec.usage = "opkit compat OLD.pbtxt NEW.pbtxt [--json]";
  spec.summary = "Check that the ops of NEW are backward compatible with those of OLD.";
  spec.description =
      "OLD and NEW are OpList text protos (the format of TensorFlow's ops.pbtxt).\n"
      "A violation is an op of OLD missing from NEW, an op whose new definition\n"
      "breaks graphs or callers written against the old one (OpDefCompatible),\n"
      "or an attr whose default changed or was removed. Added ops are reported\n"
      "as information. Exit status 1 when NEW is incompatible, 0 otherwise.";
  spec.flags = {{"json", "", false, "print {compatible, violations, added, changed}"}};
  spec.min_positional = 2;
  spec.max_positional = 2;
  spec.positional_name = "OLD.pbtxt and NEW.pbtxt (two OpList text files)";
  return spec;
}

int RunCompat(const ParsedArgs& args) {
  OpList old_list, new_list;
  Status s = LoadOpListFromTextFile(args.positional[0], &old_list);
  if (!s.ok()) return ReportError(s);
  s = LoadOpListFromTextFile(args.positional[1], &new_list);
  if (!s.ok()) return ReportError(s);
  std::map<std::string, const OpDef*> old_ops, new_ops;
  for (const OpDef& op : old_list.op()) old_ops.emplace(op.name(), &op);
  for (const OpDef& op : new_list.op()) new_ops.emplace(op.name(), &op);

  json violations = json::array();
  std::vector<std::string> lines;
  std::vector<std::string> changed, added;
  for (const auto& [name, old_op] : old_ops) {
    auto it = new_ops.find(name);
    if (it == new_ops.end()) {
      std::string msg = "op '" + name + "' was removed; graphs that use it no longer load";
      violations.push_back({{"op", name}, {"kind", "removed"}, {"message", msg}});
      lines.push_back(msg);
      continue;
    }
    const OpDef& new_op = *it->second;
    bool bad = false;
    Status c = OpDefCompatible(*old_op, new_op);
    if (!c.ok()) {
      violations.push_back({{"op", name}, {"kind", "incompatible"}, {"message", c.message()}});
      lines.push_back("op '" + name + "': " + c.message());
      bad = true;
    }
    Status d = OpDefAttrDefaultsUnchanged(*old_op, new_op);
    if (!d.ok()) {
      violations.push_back({{"op", name}, {"kind", "default_changed"}, {"message", d.message()}});
      lines.push_back("op '" + name + "': " + d.message());
      bad = true;
    }
    if (!bad && old_op->SerializeAsString() != new_op.SerializeAsString()) {
      changed.push_back(name);
    }
  }
  for (const auto& [name, op] : new_ops) {
    if (old_ops.count(name) == 0) added.push_back(name);
  }
  const bool compatible = violations.empty();
  if (args.Has("json")) {
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
    return ReportError(StrCat("'", args.positional[1], "' is not backward compatible with '",
                              args.positional[0], "': ", violations.size(),
                              " violation(s) listed above"));
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace opkit

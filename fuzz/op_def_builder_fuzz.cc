// Fuzz target for OpDefBuilder: no spec string may crash it, and an OpDef it
// accepts must be self-consistent.
//
// Input format, one directive per line (a line without a known prefix is
// taken as an Attr spec, so that raw mutations still reach the parser):
//   A:<attr spec>      I:<input spec>     O:<output spec>
//   C:<control output name>               D:<a line of Doc text>
//   N:<op name>        F:<flags: c a s o u d = commutative, aggregate,
//                          stateful, do-not-optimize, allows uninitialized
//                          input, distributed communication>
//   R:<explanation>    (Deprecated, version 1; a second R: is an error)
//   T:<var>            (type constructor full_type::Unary(TFT_ARRAY, var))
// "\n" inside a line is written as the two characters backslash-n.
//
// Seeds: fuzz/corpus/op_def_builder/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/op/full_type_util.h"
#include "opkit/op/op_def_builder.h"

namespace {

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == 'n') {
      out.push_back('\n');
      ++i;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

const opkit::OpDef::AttrDef* FindAttr(const opkit::OpDef& op,
                                      const std::string& name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// What Finalize() promises about an OpDef it accepts: every attr an arg
// names exists with the right type. A violation is a bug in the builder.
void CheckAccepted(const opkit::OpDef& op) {
  auto check_args = [&op](const auto& args) {
    for (const auto& arg : args) {
      if (arg.name().empty()) std::abort();
      if (!arg.type_attr().empty()) {
        const auto* a = FindAttr(op, arg.type_attr());
        if (a == nullptr || a->type() != "type") std::abort();
      }
      if (!arg.type_list_attr().empty()) {
        const auto* a = FindAttr(op, arg.type_list_attr());
        if (a == nullptr || a->type() != "list(type)") std::abort();
      }
      if (!arg.number_attr().empty()) {
        const auto* a = FindAttr(op, arg.number_attr());
        if (a == nullptr || a->type() != "int" || !a->has_minimum()) {
          std::abort();
        }
      }
      if (arg.type() == opkit::DT_INVALID && arg.type_attr().empty() &&
          arg.type_list_attr().empty()) {
        std::abort();
      }
    }
  };
  check_args(op.input_arg());
  check_args(op.output_arg());
  for (const auto& a : op.attr()) {
    if (a.name().empty() || a.type().empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string op_name = "Fuzz";
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= input.size()) {
    size_t nl = input.find('\n', start);
    if (nl == std::string_view::npos) nl = input.size();
    lines.push_back(input.substr(start, nl - start));
    start = nl + 1;
  }
  for (std::string_view line : lines) {
    if (line.substr(0, 2) == "N:") op_name = std::string(line.substr(2));
  }

  opkit::OpDefBuilder b(op_name);
  std::string doc;
  for (std::string_view line : lines) {
    if (line.empty()) continue;
    const std::string_view tag = line.substr(0, 2);
    const std::string rest =
        Unescape(line.size() >= 2 ? line.substr(2) : std::string_view());
    if (tag == "A:") {
      b.Attr(rest);
    } else if (tag == "I:") {
      b.Input(rest);
    } else if (tag == "O:") {
      b.Output(rest);
    } else if (tag == "C:") {
      b.ControlOutput(rest);
    } else if (tag == "D:") {
      doc += rest;
      doc += "\n";
    } else if (tag == "F:") {
      for (char c : rest) {
        switch (c) {
          case 'c': b.SetIsCommutative(); break;
          case 'a': b.SetIsAggregate(); break;
          case 's': b.SetIsStateful(); break;
          case 'o': b.SetDoNotOptimize(); break;
          case 'u': b.SetAllowsUninitializedInput(); break;
          case 'd': b.SetIsDistributedCommunication(); break;
          default: break;
        }
      }
    } else if (tag == "R:") {
      b.Deprecated(1, rest);
    } else if (tag == "T:") {
      b.SetTypeConstructor(opkit::full_type::Unary(opkit::TFT_ARRAY, rest));
    } else if (tag == "N:") {
      // Handled above.
    } else {
      b.Attr(Unescape(line));
    }
  }
  if (!doc.empty()) b.Doc(doc);

  opkit::OpRegistrationData reg;
  opkit::Status s = b.Finalize(&reg);
  if (s.ok()) {
    CheckAccepted(reg.op_def);
  } else if (s.message().empty()) {
    std::abort();  // Every failure must say what was wrong.
  }
  return 0;
}

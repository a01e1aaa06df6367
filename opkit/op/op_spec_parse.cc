// The Attr(), Input(), Output() and ControlOutput() specs of an op:
// TensorFlow's grammar (see op_def_builder.h) parsed into the OpDef, with
// TensorFlow's error texts. See Note [Spec parsing] in
// internal/op_spec_parsers.h.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/internal/op_spec_parsers.h"
#include "opkit/op/internal/op_spec_scanner.h"
#include "opkit/op/op_def_util.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {
namespace {

std::string AttrError(std::string_view orig, const std::string& op_name) {
  return StrCat(" from Attr(\"", orig, "\") for Op ", op_name);
}

// Appends one message (ending with where it came from) and abandons the spec.
#define OPKIT_SPEC_VERIFY(expr, context, ...)                     \
  do {                                                            \
    if (!(expr)) {                                                \
      errors->push_back(StrCat(__VA_ARGS__, context));            \
      return;                                                     \
    }                                                             \
  } while (false)

#define VERIFY_ATTR(expr, ...) \
  OPKIT_SPEC_VERIFY(expr, AttrError(orig, op_def->name()), __VA_ARGS__)

}  // namespace

void FinalizeAttr(std::string_view spec, OpDef* op_def,
                  std::vector<std::string>* errors) {
  OpDef::AttrDef* attr = op_def->add_attr();
  const std::string_view orig = spec;

  std::string_view name;
  VERIFY_ATTR(ConsumeNameColon(&spec, IsLetter, IsLetterDigitUnderscore, &name),
              "Trouble parsing '<name>:'");
  attr->set_name(std::string(name));

  const bool is_list = ConsumeOpenParen(&spec, "list");
  std::string type;
  std::string_view type_string;
  if (ConsumePrefix(&spec, "string")) {
    type = "string";
  } else if (ConsumePrefix(&spec, "int")) {
    type = "int";
  } else if (ConsumePrefix(&spec, "float")) {
    type = "float";
  } else if (ConsumePrefix(&spec, "bool")) {
    type = "bool";
  } else if (ConsumePrefix(&spec, "type")) {
    type = "type";
  } else if (ConsumePrefix(&spec, "shape")) {
    type = "shape";
  } else if (ConsumePrefix(&spec, "tensor")) {
    type = "tensor";
  } else if (ConsumePrefix(&spec, "func")) {
    type = "func";
  } else if (ConsumeNamedTypeSet(&spec, &type_string)) {
    type = "type";
    AppendNamedTypeSet(type_string, attr->mutable_allowed_values());
  } else if (ConsumePrefix(&spec, "{")) {
    AttrValue* allowed = attr->mutable_allowed_values();
    SkipSpaces(&spec);
    if (!spec.empty() && (spec[0] == '"' || spec[0] == '\'')) {
      // A set of strings: {'SAME', "VALID"}.
      type = "string";
      while (true) {
        std::string_view escaped;
        VERIFY_ATTR(ConsumeQuotedString('"', &spec, &escaped) ||
                        ConsumeQuotedString('\'', &spec, &escaped),
                    "Trouble parsing allowed string at '", spec, "'");
        std::string unescaped;
        std::string error;
        VERIFY_ATTR(absl::CUnescape(absl::string_view(escaped.data(), escaped.size()),
                                    &unescaped, &error),
                    "Trouble unescaping \"", escaped, "\", got error: ", error);
        allowed->mutable_list()->add_s(std::move(unescaped));
        if (ConsumePrefix(&spec, ",")) {
          SkipSpaces(&spec);
          if (ConsumePrefix(&spec, "}")) break;  // A trailing ", }" is fine.
        } else {
          VERIFY_ATTR(ConsumePrefix(&spec, "}"),
                      "Expected , or } after strings in list, not: '", spec,
                      "'");
          break;
        }
      }
    } else {
      // A set of types, possibly with named sets: {bool, numbertype}.
      type = "type";
      while (true) {
        VERIFY_ATTR(ConsumeAttrType(&spec, &type_string),
                    "Trouble parsing type string at '", spec, "'");
        if (!AppendNamedTypeSet(type_string, allowed)) {
          DataType dt;
          VERIFY_ATTR(DataTypeFromString(type_string, &dt),
                      "Unrecognized type string '", type_string, "'");
          allowed->mutable_list()->add_type(dt);
        }
        if (ConsumePrefix(&spec, ",")) {
          SkipSpaces(&spec);
          if (ConsumePrefix(&spec, "}")) break;  // A trailing ", }" is fine.
        } else {
          VERIFY_ATTR(ConsumePrefix(&spec, "}"),
                      "Expected , or } after types in list, not: '", spec,
                      "'");
          break;
        }
      }
    }
  } else {
    VERIFY_ATTR(false, "Trouble parsing type string at '", spec, "'");
  }
  SkipSpaces(&spec);

  if (is_list) {
    VERIFY_ATTR(ConsumePrefix(&spec, ")"),
                "Expected ) to close 'list(', not: '", spec, "'");
    SkipSpaces(&spec);
    attr->set_type(StrCat("list(", type, ")"));
  } else {
    attr->set_type(type);
  }

  if ((is_list || type == "int") && ConsumePrefix(&spec, ">=")) {
    int64_t min_limit = 0;
    VERIFY_ATTR(ConsumeAttrNumber(&spec, &min_limit),
                "Could not parse integer lower limit after '>=', found '",
                spec, "' instead");
    attr->set_has_minimum(true);
    attr->set_minimum(min_limit);
  }

  if (ConsumePrefix(&spec, "=")) {
    SkipSpaces(&spec);
    const std::string text = EscapeNewlinesInQuotes(spec);
    Status s = ParseAttrValue(attr->type(), text, attr->mutable_default_value());
    if (!s.ok()) {
      // TensorFlow's text, then the reader's own explanation.
      errors->push_back(StrCat("Could not parse default value '", spec, "'",
                               AttrError(orig, op_def->name()), " (",
                               s.message(), ")"));
      return;
    }
    // TensorFlow leaves this check to registration; doing it here names the
    // spec at fault.
    s = ValidateAttrValue(attr->default_value(), *attr);
    VERIFY_ATTR(s.ok(), "Default value '", spec, "' is not allowed: ",
                s.message());
  } else {
    VERIFY_ATTR(spec.empty(), "Extra '", spec, "' unparsed at the end");
  }
}

#undef VERIFY_ATTR

namespace {

std::string InOutError(bool is_output, std::string_view orig,
                       const std::string& op_name) {
  return StrCat(" from ", is_output ? "Output" : "Input", "(\"", orig,
                "\") for Op ", op_name);
}

#define VERIFY_ARG(expr, ...)                                             \
  OPKIT_SPEC_VERIFY(expr, InOutError(is_output, orig, op_def->name()), \
                    __VA_ARGS__)

}  // namespace

void FinalizeInputOrOutput(std::string_view spec, bool is_output,
                           OpDef* op_def, std::vector<std::string>* errors) {
  OpDef::ArgDef* arg =
      is_output ? op_def->add_output_arg() : op_def->add_input_arg();
  const std::string_view orig = spec;

  std::string_view name;
  VERIFY_ARG(ConsumeNameColon(&spec, IsLower, IsLowerDigitUnderscore, &name),
             "Trouble parsing 'name:'");
  arg->set_name(std::string(name));

  if (ConsumeOpenParen(&spec, "Ref")) arg->set_is_ref(true);

  // "<type or attr>" or "<number attr> * <type or attr>".
  std::string_view first;
  std::string_view type_or_attr;
  VERIFY_ARG(ConsumeWord(&spec, IsLetter, IsLetterDigitUnderscore, &first),
             "Trouble parsing either a type or an attr name at '", spec, "'");
  SkipSpaces(&spec);
  {
    std::string_view rest = spec;
    std::string_view second;
    if (ConsumePrefix(&rest, "*")) {
      SkipSpaces(&rest);
      if (ConsumeWord(&rest, IsLetter, IsLetterDigitUnderscore, &second)) {
        SkipSpaces(&rest);
        spec = rest;
        arg->set_number_attr(std::string(first));
      }
    }
    type_or_attr = second.empty() ? first : second;
  }
  DataType dt;
  if (DataTypeFromString(type_or_attr, &dt)) {
    arg->set_type(dt);
  } else {
    const OpDef::AttrDef* attr = FindAttrMutable(type_or_attr, op_def);
    VERIFY_ARG(attr != nullptr, "Reference to unknown attr '", type_or_attr,
               "'");
    if (attr->type() == "type") {
      arg->set_type_attr(std::string(type_or_attr));
    } else {
      VERIFY_ARG(attr->type() == "list(type)", "Reference to attr '",
                 type_or_attr, "' with type ", attr->type(),
                 " that isn't type or list(type)");
      arg->set_type_list_attr(std::string(type_or_attr));
    }
  }

  if (arg->is_ref()) {
    std::string_view rest = spec;
    const bool closed = ConsumePrefix(&rest, ")");
    VERIFY_ARG(closed, "Did not find closing ')' for 'Ref(', instead found: '",
               spec, "'");
    SkipSpaces(&rest);
    spec = rest;
  }

  VERIFY_ARG(spec.empty(), "Extra '", spec, "' unparsed at the end");

  // An int attr that is the length of an arg, and a list(type) attr that
  // types one, hold at least one element unless the spec said otherwise.
  if (!arg->number_attr().empty()) {
    OpDef::AttrDef* attr = FindAttrMutable(arg->number_attr(), op_def);
    VERIFY_ARG(attr != nullptr, "Reference to unknown attr '",
               arg->number_attr(), "'");
    VERIFY_ARG(attr->type() == "int", "Reference to attr '",
               arg->number_attr(), "' with type ", attr->type(),
               " as the length of a list; it must be int");
    if (!attr->has_minimum()) {
      attr->set_has_minimum(true);
      attr->set_minimum(1);
    }
  } else if (!arg->type_list_attr().empty()) {
    OpDef::AttrDef* attr = FindAttrMutable(arg->type_list_attr(), op_def);
    if (attr != nullptr && attr->type() == "list(type)" &&
        !attr->has_minimum()) {
      attr->set_has_minimum(true);
      attr->set_minimum(1);
    }
  }

  // An op that takes or makes a resource handle by literal type touches a
  // resource manager, so it must not be folded or deduplicated. (Args typed
  // by an attr that happens to be resource are not covered, as in
  // TensorFlow.)
  if (arg->type() == DT_RESOURCE) op_def->set_is_stateful(true);
}

#undef VERIFY_ARG

void FinalizeControlOutput(std::string_view spec, OpDef* op_def,
                           std::vector<std::string>* errors) {
  std::string_view rest = spec;
  std::string_view name;
  const bool ok =
      ConsumeWord(&rest, IsLetter, IsLetterDigitUnderscore, &name) &&
      rest.empty();
  op_def->add_control_output(std::string(name));
  if (!ok) {
    errors->push_back(StrCat("Trouble parsing 'name:' from ControlOutput(\"",
                             spec, "\") for Op ", op_def->name()));
  }
}

#undef OPKIT_SPEC_VERIFY

}  // namespace internal
}  // namespace opkit

// OpDefBuilder: parsing of TensorFlow's op spec grammar.
//
// Note [Spec parsing]: the parsers below follow TensorFlow's OpDefBuilder
// token by token (which characters a name may hold, where blanks are skipped,
// what is left in the quoted remainder of an error message), because users
// and the conformance data compare error texts and OpDefs with TensorFlow's.
// Every parser works on a std::string_view that it only shrinks from the
// front, so no input can index out of range; a failed parse pushes one
// message and abandons that spec (the half-filled entry stays in the OpDef,
// as in TensorFlow, so that later references to it produce the same texts).
#include "opkit/op/op_def_builder.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/tensor/types.h"

namespace opkit {

OpRegistrationData::OpRegistrationData(const OpDef& def,
                                       const OpShapeInferenceFn& fn,
                                       bool is_function)
    : op_def(def), shape_inference_fn(fn), is_function_op(is_function) {}

namespace {

// ---------------------------------------------------------------------------
// Character classes and small scanners. Blanks are C's isspace set, spelled
// out so that the locale cannot change what a spec means.

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return IsLower(c) || IsUpper(c); }
bool IsLetterDigitUnderscore(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_';
}
bool IsLowerDigitUnderscore(char c) {
  return IsLower(c) || IsDigit(c) || c == '_';
}
bool IsLowerDigit(char c) { return IsLower(c) || IsDigit(c); }

void SkipSpaces(std::string_view* sp) {
  size_t i = 0;
  while (i < sp->size() && IsSpace((*sp)[i])) ++i;
  sp->remove_prefix(i);
}

void StripTrailingSpaces(std::string* s) {
  size_t n = s->size();
  while (n > 0 && IsSpace((*s)[n - 1])) --n;
  s->resize(n);
}

bool ConsumePrefix(std::string_view* sp, std::string_view prefix) {
  if (sp->substr(0, prefix.size()) != prefix) return false;
  sp->remove_prefix(prefix.size());
  return true;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Consumes one character of `first` then any number of `rest` into *out.
// Consumes nothing and returns false when the first character does not fit.
template <typename First, typename Rest>
bool ConsumeWord(std::string_view* sp, First first, Rest rest,
                 std::string_view* out) {
  if (sp->empty() || !first((*sp)[0])) return false;
  size_t i = 1;
  while (i < sp->size() && rest((*sp)[i])) ++i;
  *out = sp->substr(0, i);
  sp->remove_prefix(i);
  return true;
}

// "<word> <blanks> : <blanks>"; on failure *sp is unchanged.
template <typename First, typename Rest>
bool ConsumeNameColon(std::string_view* sp, First first, Rest rest,
                      std::string_view* out) {
  std::string_view s = *sp;
  std::string_view name;
  if (!ConsumeWord(&s, first, rest, &name)) return false;
  SkipSpaces(&s);
  if (!ConsumePrefix(&s, ":")) return false;
  SkipSpaces(&s);
  if (out != nullptr) *out = name;
  *sp = s;
  return true;
}

// "<keyword> <blanks> ( <blanks>", as in "list(" and "Ref(".
bool ConsumeOpenParen(std::string_view* sp, std::string_view keyword) {
  std::string_view s = *sp;
  if (!ConsumePrefix(&s, keyword)) return false;
  SkipSpaces(&s);
  if (!ConsumePrefix(&s, "(")) return false;
  SkipSpaces(&s);
  *sp = s;
  return true;
}

// A quoted string with backslash escapes: the text between the quotes (still
// escaped) goes to *out, and blanks after the closing quote are skipped.
bool ConsumeQuotedString(char quote, std::string_view* sp,
                         std::string_view* out) {
  std::string_view s = *sp;
  if (s.empty() || s[0] != quote) return false;
  size_t i = 1;
  while (i < s.size() && s[i] != quote) {
    i += (s[i] == '\\') ? 2 : 1;
  }
  if (i >= s.size()) return false;  // No closing quote.
  *out = s.substr(1, i - 1);
  s.remove_prefix(i + 1);
  SkipSpaces(&s);
  *sp = s;
  return true;
}

// A type name inside "{...}": lower-case letters and digits, then blanks.
bool ConsumeAttrType(std::string_view* sp, std::string_view* out) {
  std::string_view s = *sp;
  if (!ConsumeWord(&s, IsLowerDigit, IsLowerDigit, out)) return false;
  SkipSpaces(&s);
  *sp = s;
  return true;
}

// "[blanks] [-] digits [blanks]" that fits in an int64.
bool ConsumeAttrNumber(std::string_view* sp, int64_t* out) {
  std::string_view s = *sp;
  SkipSpaces(&s);
  bool negative = ConsumePrefix(&s, "-");
  if (s.empty() || !IsDigit(s[0])) return false;
  // Accumulate as a negative number so that INT64_MIN fits.
  int64_t value = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  while (!s.empty() && IsDigit(s[0])) {
    const int digit = s[0] - '0';
    if (value < (kMin + digit) / 10) return false;
    value = value * 10 - digit;
    s.remove_prefix(1);
  }
  if (!negative) {
    if (value == kMin) return false;
    value = -value;
  }
  SkipSpaces(&s);
  *out = value;
  *sp = s;
  return true;
}

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes C escapes (\n \t \\ \' \" \? \a \b \f \r \v, octal \ooo, hex \xhh,
// \uXXXX, \UXXXXXXXX), with absl::CUnescape's error texts.
bool CUnescape(std::string_view in, std::string* out, std::string* error) {
  out->clear();
  size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    if (c != '\\') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in.size()) {
      *error = "String cannot end with \\";
      return false;
    }
    const char e = in[i + 1];
    i += 2;
    switch (e) {
      case 'a': out->push_back('\a'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'v': out->push_back('\v'); break;
      case '\\': out->push_back('\\'); break;
      case '?': out->push_back('?'); break;
      case '\'': out->push_back('\''); break;
      case '"': out->push_back('"'); break;
      case '0': case '1': case '2': case '3':
      case '4': case '5': case '6': case '7': {
        const size_t start = i - 1;
        unsigned value = static_cast<unsigned>(e - '0');
        while (i < in.size() && i - start < 3 && in[i] >= '0' && in[i] <= '7') {
          value = value * 8 + static_cast<unsigned>(in[i] - '0');
          ++i;
        }
        if (value > 0xff) {
          *error = StrCat("Value of \\", in.substr(start, i - start),
                          " exceeds 0xff");
          return false;
        }
        out->push_back(static_cast<char>(value));
        break;
      }
      case 'x': case 'X': {
        if (i >= in.size() || HexValue(in[i]) < 0) {
          *error = "\\x cannot be followed by a non-hex digit";
          return false;
        }
        const size_t start = i;
        unsigned value = 0;
        while (i < in.size() && HexValue(in[i]) >= 0) {
          value = (value << 4) + static_cast<unsigned>(HexValue(in[i]));
          ++i;
          if (value > 0xff) {
            *error = StrCat("Value of \\x", in.substr(start, i - start),
                            " exceeds 0xff");
            return false;
          }
        }
        out->push_back(static_cast<char>(value));
        break;
      }
      case 'u': case 'U': {
        const size_t digits = (e == 'u') ? 4 : 8;
        uint32_t cp = 0;
        for (size_t k = 0; k < digits; ++k) {
          if (i + k >= in.size() || HexValue(in[i + k]) < 0) {
            *error = StrCat("\\", std::string(1, e), " must be followed by ",
                            digits, " hex digits: \\",
                            in.substr(i, std::min(digits, in.size() - i)));
            return false;
          }
          cp = (cp << 4) + static_cast<uint32_t>(HexValue(in[i + k]));
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          *error = StrCat("Value of \\", in.substr(i - 2, digits + 2),
                          " is not a valid Unicode code point");
          return false;
        }
        i += digits;
        AppendUtf8(cp, out);
        break;
      }
      default:
        *error = StrCat("Unknown escape sequence: \\", std::string(1, e));
        return false;
    }
  }
  return true;
}

// Appends the members of a named type set to `allowed`; false if
// `type_string` names no set.
bool AppendNamedTypeSet(std::string_view type_string, AttrValue* allowed) {
  const DataTypeVector* types = nullptr;
  if (type_string == "numbertype" || type_string == "numerictype") {
    types = &NumberTypes();
  } else if (type_string == "quantizedtype") {
    types = &QuantizedTypes();
  } else if (type_string == "realnumbertype" ||
             type_string == "realnumerictype") {
    types = &RealNumberTypes();
  } else {
    return false;
  }
  for (DataType dt : *types) allowed->mutable_list()->add_type(dt);
  return true;
}

// Named type sets at the top level of an attr type. TensorFlow misspells
// "realnumerictype" here (so only its braced form works there); opkit
// accepts both spellings in both places.
bool ConsumeNamedTypeSet(std::string_view* sp, std::string_view* out) {
  for (std::string_view name : {"numbertype", "numerictype", "quantizedtype",
                                "realnumbertype", "realnumerictype"}) {
    if (ConsumePrefix(sp, name)) {
      *out = name;
      return true;
    }
  }
  return false;
}

// TensorFlow's own text-proto reader keeps a raw newline inside a quoted
// string (PrintV2 declares "end: string = '<newline>'"), while protobuf's
// tokenizer rejects it; escaping those newlines gives both readers the same
// value.
std::string EscapeNewlinesInQuotes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == 0) {
      if (c == '\'' || c == '"') quote = c;
      out.push_back(c);
    } else if (c == '\\' && i + 1 < text.size()) {
      out.push_back(c);
      out.push_back(text[++i]);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      if (c == quote) quote = 0;
      out.push_back(c);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Attr specs.

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
    if (StartsWith(spec, "\"") || StartsWith(spec, "'")) {
      // A set of strings: {'SAME', "VALID"}.
      type = "string";
      while (true) {
        std::string_view escaped;
        VERIFY_ATTR(ConsumeQuotedString('"', &spec, &escaped) ||
                        ConsumeQuotedString('\'', &spec, &escaped),
                    "Trouble parsing allowed string at '", spec, "'");
        std::string unescaped;
        std::string error;
        VERIFY_ATTR(CUnescape(escaped, &unescaped, &error),
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

// ---------------------------------------------------------------------------
// Input and output specs.

std::string InOutError(bool is_output, std::string_view orig,
                       const std::string& op_name) {
  return StrCat(" from ", is_output ? "Output" : "Input", "(\"", orig,
                "\") for Op ", op_name);
}

#define VERIFY_ARG(expr, ...)                                             \
  OPKIT_SPEC_VERIFY(expr, InOutError(is_output, orig, op_def->name()), \
                    __VA_ARGS__)

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

// ---------------------------------------------------------------------------
// Control outputs.

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

// ---------------------------------------------------------------------------
// Doc.

size_t LeadingSpaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

bool IsDocNameColon(std::string_view s) {
  return ConsumeNameColon(&s, IsLetter, IsLetterDigitUnderscore, nullptr);
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

void FinalizeDoc(const std::string& text, OpDef* op_def,
                 std::vector<std::string>* errors) {
  std::vector<std::string> lines = SplitLines(text);
  for (std::string& line : lines) StripTrailingSpaces(&line);

  // The first non-blank line is the summary.
  size_t l = 0;
  while (l < lines.size() && lines[l].empty()) ++l;
  if (l < lines.size()) {
    op_def->set_summary(lines[l]);
    ++l;
  }
  while (l < lines.size() && lines[l].empty()) ++l;

  // Then everything up to the first "name:" line is the description.
  const size_t start_l = l;
  while (l < lines.size() && !IsDocNameColon(lines[l])) ++l;
  size_t end_l = l;
  while (start_l < end_l && lines[end_l - 1].empty()) --end_l;
  std::string desc;
  for (size_t i = start_l; i < end_l; ++i) {
    if (i > start_l) desc += "\n";
    desc += lines[i];
  }
  if (!desc.empty()) op_def->set_description(desc);

  // Then "name: text" paragraphs; continuation lines lose their common
  // indentation.
  while (l < lines.size()) {
    std::vector<std::string_view> paragraph;
    std::string_view first = lines[l];
    std::string_view name;
    ConsumeNameColon(&first, IsLetter, IsLetterDigitUnderscore, &name);
    paragraph.push_back(first);
    ++l;
    while (l < lines.size() && !IsDocNameColon(lines[l])) {
      paragraph.emplace_back(lines[l]);
      ++l;
    }
    while (!paragraph.empty() && paragraph.back().empty()) paragraph.pop_back();
    size_t min_indent = std::string_view::npos;
    for (size_t i = 1; i < paragraph.size(); ++i) {
      if (!paragraph[i].empty()) {
        min_indent = std::min(min_indent, LeadingSpaces(paragraph[i]));
      }
    }
    std::string complete;
    for (size_t i = 0; i < paragraph.size(); ++i) {
      std::string_view line = paragraph[i];
      if (i > 0) {
        complete += "\n";
        if (!line.empty()) line.remove_prefix(min_indent);
      }
      complete += line;
    }

    bool found = false;
    for (auto& arg : *op_def->mutable_input_arg()) {
      if (!found && arg.name() == name) {
        arg.set_description(complete);
        found = true;
      }
    }
    for (auto& arg : *op_def->mutable_output_arg()) {
      if (!found && arg.name() == name) {
        arg.set_description(complete);
        found = true;
      }
    }
    for (auto& attr : *op_def->mutable_attr()) {
      if (!found && attr.name() == name) {
        attr.set_description(complete);
        found = true;
      }
    }
    if (!found) {
      errors->push_back(StrCat("No matching input/output/attr for name '",
                               name, "' from Doc() for Op ", op_def->name()));
      return;
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// OpDefBuilder.

OpDefBuilder::OpDefBuilder(std::string op_name) {
  op_reg_data_.op_def.set_name(std::move(op_name));
}

OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::ControlOutput(std::string name) {
  control_outputs_.push_back(std::move(name));
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  op_reg_data_.op_def.set_is_commutative(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  op_reg_data_.op_def.set_is_aggregate(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsStateful() {
  op_reg_data_.op_def.set_is_stateful(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetDoNotOptimize() { return SetIsStateful(); }

OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  op_reg_data_.op_def.set_allows_uninitialized_input(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  op_reg_data_.op_def.set_is_distributed_communication(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::Deprecated(int version, std::string explanation) {
  OpDef& op_def = op_reg_data_.op_def;
  if (op_def.has_deprecation()) {
    errors_.push_back(StrCat("Deprecated called twice for Op ", op_def.name()));
  } else {
    op_def.mutable_deprecation()->set_version(version);
    op_def.mutable_deprecation()->set_explanation(std::move(explanation));
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::Doc(std::string text) {
  if (!doc_.empty()) {
    errors_.push_back(
        StrCat("Extra call to Doc() for Op ", op_reg_data_.op_def.name()));
  } else {
    doc_ = std::move(text);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(OpShapeInferenceFn fn) {
  if (op_reg_data_.shape_inference_fn != nullptr) {
    errors_.push_back(
        StrCat("SetShapeFn called twice for Op ", op_reg_data_.op_def.name()));
  } else {
    op_reg_data_.shape_inference_fn = std::move(fn);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::SetTypeConstructor(OpTypeConstructor c) {
  op_reg_data_.type_ctor = std::move(c);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetOrigin(RegistrationOrigin origin) {
  op_reg_data_.origin = std::move(origin);
  return *this;
}

Status OpDefBuilder::Finalize(OpRegistrationData* op_reg_data) const {
  if (op_reg_data == nullptr) {
    return errors::InvalidArgument("OpDefBuilder::Finalize for Op ", op_name(),
                                   " needs a non-null OpRegistrationData");
  }
  std::vector<std::string> errors = errors_;
  *op_reg_data = op_reg_data_;
  OpDef* op_def = &op_reg_data->op_def;

  for (const std::string& attr : attrs_) FinalizeAttr(attr, op_def, &errors);
  for (const std::string& input : inputs_) {
    FinalizeInputOrOutput(input, /*is_output=*/false, op_def, &errors);
  }
  for (const std::string& output : outputs_) {
    FinalizeInputOrOutput(output, /*is_output=*/true, op_def, &errors);
  }
  for (const std::string& name : control_outputs_) {
    FinalizeControlOutput(name, op_def, &errors);
  }
  FinalizeDoc(doc_, op_def, &errors);

  // The type constructor expects a well-formed OpDef (e.g. an output 0), so
  // it only runs when the specs parsed.
  if (errors.empty() && op_reg_data->type_ctor != nullptr) {
    Status s = op_reg_data->type_ctor(op_def);
    if (!s.ok()) {
      errors.push_back(StrCat("Type constructor failed for Op ", op_def->name(),
                              ": ", s.message()));
    }
  }

  if (errors.empty()) return OkStatus();
  return errors::InvalidArgument(StrJoin(errors, "\n"));
}

}  // namespace opkit

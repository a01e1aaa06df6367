// ParseAttrValue (declared in attr_value_util.h): an AttrValue from text,
// either in protobuf text format (TensorFlow's syntax, what an op spec's
// default is written in) or in the shorthand a person types on the command
// line or passes from Python (`float`, `[2,?]`, `SAME`).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

// Deeper nesting than this in a default's text is refused before protobuf
// sees it, so that hostile text cannot exhaust the stack (TensorFlow refuses
// 100 levels of tensor nesting for the same reason).
constexpr int kMaxTextNesting = 100;

// Keeps the text-format parser's complaints (which it would otherwise log)
// so that they can go into the returned Status.
class CollectingErrors : public google::protobuf::io::ErrorCollector {
 public:
  // `prefix_length` is how many characters of the parsed text precede the
  // user's text, so that columns point into what the user wrote.
  explicit CollectingErrors(int prefix_length) : prefix_length_(prefix_length) {}

  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!first_.empty()) return;
    const int user_column = line == 0 ? column - prefix_length_ : column;
    first_ = user_column >= 0 ? StrCat(message, " (at column ", user_column + 1, ")")
                              : message;
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  int prefix_length_;
  std::string first_;
};

// What `type` (an attr type string) says about the field to parse into.
struct AttrKind {
  bool is_list = false;
  std::string_view field;  // "s", "i", ... as named in AttrValue.
};

bool ParseAttrKind(std::string_view type, AttrKind* kind) {
  static constexpr std::pair<std::string_view, std::string_view> kFields[] = {
      {"string", "s"},     {"int", "i"},         {"float", "f"},
      {"bool", "b"},       {"type", "type"},     {"shape", "shape"},
      {"tensor", "tensor"}, {"func", "func"},    {"placeholder", "placeholder"}};
  std::string_view base = type;
  kind->is_list = false;
  if (base.substr(0, 5) == "list(" && !base.empty() && base.back() == ')') {
    kind->is_list = true;
    base = base.substr(5, base.size() - 6);
  }
  for (const auto& [name, field] : kFields) {
    if (base == name) {
      if (kind->is_list && name == "placeholder") return false;
      kind->field = field;
      return true;
    }
  }
  return false;
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view StripSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// The index of the quote that closes the string opening at text[start]
// (backslash escapes skipped), or npos when it is not closed on its line.
size_t StringEnd(std::string_view text, size_t start) {
  const char quote = text[start];
  size_t j = start + 1;
  while (j < text.size() && text[j] != quote && text[j] != '\n') {
    j += (text[j] == '\\') ? 2 : 1;
  }
  return j < text.size() && text[j] == quote ? j : std::string_view::npos;
}

// Scans value text for its bracket structure, skipping quoted strings and,
// when `comments`, `#` comments (text format has them; shorthand, where '#'
// may be part of a word, does not). Fails if a closer does not match its
// opener, a string or bracket is left open, or nesting passes
// kMaxTextNesting. On success `*first_group_end` is the index of the closer
// matching the opener at index 0 (npos if text[0] opens nothing), and
// `*commas`, when given, the index of every ',' outside brackets and strings.
Status ScanBrackets(std::string_view text, bool comments, size_t* first_group_end,
                    std::vector<size_t>* commas = nullptr) {
  std::vector<char> open;
  *first_group_end = std::string_view::npos;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"') {
      const size_t end = StringEnd(text, i);
      if (end == std::string_view::npos) {
        return errors::InvalidArgument("unterminated string starting at column ",
                                       i + 1);
      }
      i = end;
    } else if (c == '#' && comments) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ',' && open.empty() && commas != nullptr) {
      commas->push_back(i);
    } else if (c == '[' || c == '{' || c == '<') {
      if (open.size() >= static_cast<size_t>(kMaxTextNesting)) {
        return errors::InvalidArgument("nested more than ", kMaxTextNesting,
                                       " levels deep");
      }
      open.push_back(c == '[' ? ']' : c == '{' ? '}' : '>');
    } else if (c == ']' || c == '}' || c == '>') {
      if (open.empty() || open.back() != c) {
        return errors::InvalidArgument("unbalanced '", std::string(1, c),
                                       "' at column ", i + 1);
      }
      open.pop_back();
      if (open.empty() && *first_group_end == std::string_view::npos &&
          (text[0] == '[' || text[0] == '{' || text[0] == '<')) {
        *first_group_end = i;
      }
    }
  }
  if (!open.empty()) {
    return errors::InvalidArgument("missing '", std::string(1, open.back()), "'");
  }
  return OkStatus();
}

// Whether `value` holds only the field `kind` names (for a list: only that
// field of the list).
bool HoldsOnly(const AttrValue& value, const AttrKind& kind) {
  const google::protobuf::Descriptor* desc = value.GetDescriptor();
  const google::protobuf::Reflection* refl = value.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> set;
  if (!kind.is_list) {
    refl->ListFields(value, &set);
    return set.size() == 1 && set[0] == desc->FindFieldByName(std::string(kind.field));
  }
  refl->ListFields(value, &set);
  if (set.size() != 1 || set[0]->name() != "list") return false;
  const AttrValue::ListValue& list = value.list();
  set.clear();
  list.GetReflection()->ListFields(list, &set);
  return set.empty() || (set.size() == 1 && set[0]->name() == kind.field);
}

Status BadAttrText(std::string_view type, std::string_view text,
                   std::string_view reason) {
  return errors::InvalidArgument("Could not parse '", text,
                                 "' as a value of attr type '", type, "': ",
                                 reason);
}

Status UnknownAttrType(std::string_view type, std::string_view text) {
  return errors::InvalidArgument(
      "Could not parse '", text, "' as an attr value: unknown attr type '", type,
      "'; expected one of string, int, float, bool, type, shape, tensor, "
      "func, placeholder, or list(...) of one of those but placeholder");
}

}  // namespace

// ---------------------------------------------------------------------------
// Text format.

Status ParseAttrValue(std::string_view type, std::string_view text,
                      AttrValue* out) {
  AttrKind kind;
  if (!ParseAttrKind(type, &kind)) return UnknownAttrType(type, text);
  const std::string_view value_text = StripSpace(text);
  size_t group_end = std::string_view::npos;
  Status scanned = ScanBrackets(value_text, /*comments=*/true, &group_end);
  if (!scanned.ok()) return BadAttrText(type, text, scanned.message());

  std::string to_parse;
  // Characters of `to_parse` before the user's text starts (negative when
  // the user's text had leading spaces), for error columns.
  int prefix_length = 0;
  const int leading_spaces = static_cast<int>(value_text.data() - text.data());
  if (kind.is_list) {
    // The text-format parser takes "i: 7" as the list [7]; an op spec must
    // write a list in brackets, and nothing may follow them.
    if (value_text.empty() || value_text[0] != '[') {
      return BadAttrText(type, text,
                         "a list value must be written in brackets, e.g. "
                         "'[]' or '[1, 2]'");
    }
    if (group_end != value_text.size() - 1) {
      return BadAttrText(type, text, "unexpected text after the list's closing ']'");
    }
    if (StripSpace(value_text.substr(1, value_text.size() - 2)).empty()) {
      // The text-format parser refuses "i: []"; an empty list is still a
      // list value.
      out->Clear();
      out->mutable_list();
      return OkStatus();
    }
    to_parse = StrCat("list { ", kind.field, ": ");
    prefix_length = static_cast<int>(to_parse.size()) - leading_spaces;
    to_parse.append(value_text);
    to_parse.append(" }");
  } else {
    if (value_text.empty()) return BadAttrText(type, text, "the value is empty");
    // A value that is a group must be one group, not "{...} other: 1".
    if (group_end != std::string_view::npos && group_end != value_text.size() - 1) {
      return BadAttrText(type, text, "unexpected text after the value");
    }
    to_parse = StrCat(kind.field, ": ");
    prefix_length = static_cast<int>(to_parse.size()) - leading_spaces;
    to_parse.append(value_text);
  }

  google::protobuf::TextFormat::Parser parser;
  CollectingErrors errors_seen(prefix_length);
  parser.RecordErrorsTo(&errors_seen);
  AttrValue parsed;
  if (!parser.ParseFromString(to_parse, &parsed)) {
    return BadAttrText(type, text,
                       errors_seen.first().empty() ? std::string("syntax error")
                                                   : errors_seen.first());
  }
  if (!HoldsOnly(parsed, kind)) {
    return BadAttrText(type, text,
                       StrCat("the text sets more than the '", kind.field,
                              "' field of the value"));
  }
  *out = std::move(parsed);
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Shorthand. Note [Attr shorthand]: each kind takes the spellings a
// TensorFlow user writes outside an op spec (a dtype as tf.float32 or
// float32, a shape as [2,?], a string without quotes); tensors, placeholders
// and braced shapes and funcs are text format. A failure explains the
// shorthand, which is what the person typing it needs.

namespace {

constexpr char kShapeExamples[] = "write e.g. [2,3], [1,?,3], [] or ?";

// "float", "float32", "DT_FLOAT" (any case after DT_), "tf.float32".
Status ParseTypeShorthand(std::string_view text, AttrValue* out) {
  std::string name(text);
  if (text.substr(0, 3) == "tf.") {
    name.erase(0, 3);
  } else if (text.substr(0, 3) == "DT_") {
    name.erase(0, 3);
    absl::AsciiStrToLower(&name);
  }
  DataType dtype;
  if (!DataTypeFromString(name, &dtype) || IsRefType(dtype)) {
    return errors::InvalidArgument("'", text,
                                   "' is not a data type; write e.g. float, "
                                   "int32 or DT_FLOAT");
  }
  out->set_type(dtype);
  return OkStatus();
}

// A whole decimal integer, optionally signed.
Status ParseIntShorthand(std::string_view text, AttrValue* out) {
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int64_t v = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, v);
  if (digits.empty() || (digits[0] == '-' && text[0] == '+') || ptr != end ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return errors::InvalidArgument("'", text, "' is not an integer");
  }
  if (ec == std::errc::result_out_of_range) {
    return errors::InvalidArgument("'", text, "' is not an integer in int64's range");
  }
  out->set_i(v);
  return OkStatus();
}

// What strtof reads, whole, without leaving float's range.
Status ParseFloatShorthand(std::string_view text, AttrValue* out) {
  const std::string t(text);
  errno = 0;
  char* end = nullptr;
  const float v = t.empty() ? 0 : std::strtof(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE) {
    return errors::InvalidArgument("'", text, "' is not a number in float's range");
  }
  out->set_f(v);
  return OkStatus();
}

Status ParseBoolShorthand(std::string_view text, AttrValue* out) {
  if (text == "true" || text == "True" || text == "1") {
    out->set_b(true);
  } else if (text == "false" || text == "False" || text == "0") {
    out->set_b(false);
  } else {
    return errors::InvalidArgument("'", text, "' is not a bool; write true or false");
  }
  return OkStatus();
}

// One quoted string, C escapes undone; any other text as it is.
Status ParseStringShorthand(std::string_view text, AttrValue* out) {
  if (text.empty() || (text[0] != '\'' && text[0] != '"') ||
      StringEnd(text, 0) != text.size() - 1) {
    out->set_s(std::string(text));
    return OkStatus();
  }
  std::string unescaped, error;
  // Debian's abseil has its own string_view type.
  if (!absl::CUnescape(absl::string_view(text.data() + 1, text.size() - 2), &unescaped,
                       &error)) {
    return errors::InvalidArgument(text, " is not a valid quoted string (",
                                   error, "); leave out the quotes to take the "
                                   "text as it is");
  }
  out->set_s(std::move(unescaped));
  return OkStatus();
}

// "[2,3]", "[]" (a scalar), "[1,?,3]" or "[1,-1,3]" (unknown dimensions),
// "?" or "*" (unknown rank).
Status ParseShapeShorthand(std::string_view text, AttrValue* out) {
  auto bad = [&](const std::string& why) {
    return errors::InvalidArgument("'", text, "' is not a shape: ", why, "; ",
                                   kShapeExamples);
  };
  PartialTensorShape shape;
  if (text != "?" && text != "*") {
    if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
      return bad("it is not in brackets");
    }
    const std::string_view body = StripSpace(text.substr(1, text.size() - 2));
    std::vector<int64_t> dims;
    size_t start = 0;
    while (!body.empty() && start <= body.size()) {
      const size_t comma = std::min(body.find(',', start), body.size());
      const std::string_view item = StripSpace(body.substr(start, comma - start));
      start = comma + 1;
      int64_t size = -1;
      if (item != "?" && item != "-1") {
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), size);
        if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
          return bad(StrCat("its dimension '", item, "' is not a number or ?"));
        }
        if (size < 0) return bad(StrCat("it has a negative dimension ", size));
      }
      dims.push_back(size);
    }
    Status s = PartialTensorShape::BuildPartialTensorShape(dims, &shape);
    if (!s.ok()) return bad(s.message());
  }
  shape.AsProto(out->mutable_shape());
  return OkStatus();
}

// One value of the scalar attr type `type` (`kind` says its field).
Status ParseShorthandScalar(std::string_view type, const AttrKind& kind,
                            std::string_view text, AttrValue* out) {
  const bool braced = !text.empty() && (text[0] == '{' || text[0] == '<');
  if (kind.field == "type") return ParseTypeShorthand(text, out);
  if (kind.field == "i") return ParseIntShorthand(text, out);
  if (kind.field == "f") return ParseFloatShorthand(text, out);
  if (kind.field == "b") return ParseBoolShorthand(text, out);
  if (kind.field == "s") return ParseStringShorthand(text, out);
  if (kind.field == "shape" && !braced) return ParseShapeShorthand(text, out);
  if (kind.field == "func" && !braced && !text.empty()) {
    out->mutable_func()->set_name(std::string(text));
    return OkStatus();
  }
  return ParseAttrValue(type, text, out);
}

void AppendToList(AttrValue&& one, AttrValue::ListValue* list) {
  switch (one.value_case()) {
    case AttrValue::kS: list->add_s(std::move(*one.mutable_s())); break;
    case AttrValue::kI: list->add_i(one.i()); break;
    case AttrValue::kF: list->add_f(one.f()); break;
    case AttrValue::kB: list->add_b(one.b()); break;
    case AttrValue::kType: list->add_type(one.type()); break;
    case AttrValue::kShape: list->add_shape()->Swap(one.mutable_shape()); break;
    case AttrValue::kTensor: list->add_tensor()->Swap(one.mutable_tensor()); break;
    case AttrValue::kFunc: list->add_func()->Swap(one.mutable_func()); break;
    default: break;  // ParseShorthandScalar sets one of the above.
  }
}

// "[a, b]", or "a, b" without the brackets; items as ParseShorthandScalar
// takes them.
Status ParseShorthandList(std::string_view elem_type, const AttrKind& elem,
                          std::string_view text, AttrValue* out) {
  auto not_a_list = [&](std::string_view why) {
    const char* example = elem.field == "type"    ? "float,int32"
                          : elem.field == "s"     ? "a,b"
                          : elem.field == "shape" ? "[2,3],[?]"
                          : elem.field == "b"     ? "true,false"
                                                  : "1,2";
    return errors::InvalidArgument("'", text, "' is not a list (", why,
                                   "); write e.g. [", example, "]");
  };
  size_t group_end = std::string_view::npos;
  Status scanned = ScanBrackets(text, /*comments=*/false, &group_end);
  if (!scanned.ok()) return not_a_list(scanned.message());
  std::string_view body = text;
  if (!text.empty() && text[0] == '[' && group_end == text.size() - 1) {
    body = StripSpace(text.substr(1, text.size() - 2));
  }
  std::vector<size_t> commas;
  scanned = ScanBrackets(body, /*comments=*/false, &group_end, &commas);
  if (!scanned.ok()) return not_a_list(scanned.message());
  AttrValue::ListValue* list = out->mutable_list();
  if (body.empty()) return OkStatus();
  commas.push_back(body.size());
  size_t start = 0;
  for (size_t comma : commas) {
    const std::string_view item = StripSpace(body.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) return not_a_list("an item is empty");
    AttrValue one;
    OPKIT_RETURN_IF_ERROR(ParseShorthandScalar(elem_type, elem, item, &one));
    AppendToList(std::move(one), list);
  }
  return OkStatus();
}

}  // namespace

Status ParseAttrValue(std::string_view type, std::string_view text,
                      AttrTextSyntax syntax, AttrValue* out) {
  if (syntax == AttrTextSyntax::kTextFormat) return ParseAttrValue(type, text, out);
  AttrKind kind;
  if (!ParseAttrKind(type, &kind)) return UnknownAttrType(type, text);
  const std::string_view value_text = StripSpace(text);
  AttrValue parsed;
  if (kind.is_list) {
    const AttrKind elem{false, kind.field};
    OPKIT_RETURN_IF_ERROR(
        ParseShorthandList(type.substr(5, type.size() - 6), elem, value_text, &parsed));
  } else {
    OPKIT_RETURN_IF_ERROR(ParseShorthandScalar(type, kind, value_text, &parsed));
  }
  *out = std::move(parsed);
  return OkStatus();
}

}  // namespace opkit

// The .npy format: see npy.h. Layout of a file (numpy's format.py documents
// it): the magic "\x93NUMPY", a major and a minor version byte, the header
// length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then the
// header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a final newline, then the raw elements.
#include "tools/opkit/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// numpy itself refuses headers above 10000 bytes unless told otherwise;
// allow more, but not enough for a lying length to cost memory.
constexpr size_t kMaxHeaderLen = 1 << 20;

struct DtypeInfo {
  DataType dtype;
  char kind;  // numpy's kind character: b i u f c
  int size;   // bytes per element
  const char* numpy_name;
};

constexpr DtypeInfo kDtypes[] = {
    {DT_BOOL, 'b', 1, "bool"},          {DT_INT8, 'i', 1, "int8"},
    {DT_INT16, 'i', 2, "int16"},        {DT_INT32, 'i', 4, "int32"},
    {DT_INT64, 'i', 8, "int64"},        {DT_UINT8, 'u', 1, "uint8"},
    {DT_UINT16, 'u', 2, "uint16"},      {DT_UINT32, 'u', 4, "uint32"},
    {DT_UINT64, 'u', 8, "uint64"},      {DT_HALF, 'f', 2, "float16"},
    {DT_FLOAT, 'f', 4, "float32"},      {DT_DOUBLE, 'f', 8, "float64"},
    {DT_COMPLEX64, 'c', 8, "complex64"}, {DT_COMPLEX128, 'c', 16, "complex128"},
};

const DtypeInfo* FindDtype(DataType dtype) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

const DtypeInfo* FindDtype(char kind, int size) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.kind == kind && info.size == size) return &info;
  }
  return nullptr;
}

// A printable form of (part of) a header for messages: non-printable bytes
// as \xNN, long text elided.
std::string Quote(std::string_view s) {
  std::string out = "'";
  size_t n = 0;
  for (char c : s) {
    if (++n > 80) {
      out += "...";
      break;
    }
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\' && c != '\'') {
      out += c;
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out + "'";
}

// The value of one header entry.
struct PyValue {
  enum Kind { kString, kBool, kInt, kTuple, kOther } kind = kOther;
  std::string str;
  bool boolean = false;
  int64_t integer = 0;
  std::vector<int64_t> tuple;
  std::string text;  // the source text, for messages
};

// Parses the header dict. Errors name the position and what was expected;
// the caller adds the file name.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Status Parse(std::vector<std::pair<std::string, PyValue>>* entries) {
    SkipSpace();
    if (!Consume('{')) return Expected("'{' opening the header dict");
    SkipSpace();
    while (!Consume('}')) {
      std::string key;
      if (!ParseString(&key)) return Expected("a quoted key or '}'");
      SkipSpace();
      if (!Consume(':')) return Expected("':' after key " + Quote(key));
      SkipSpace();
      PyValue value;
      OPKIT_RETURN_IF_ERROR(ParseValue(&value));
      for (const auto& e : *entries) {
        if (e.first == key) {
          return errors::InvalidArgument("key ", Quote(key),
                                         " appears twice in the header");
        }
      }
      entries->emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
        continue;
      }
      if (!Consume('}')) return Expected("',' or '}' after a value");
      break;
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      return errors::InvalidArgument("unexpected text after the header dict: ",
                                     Quote(text_.substr(pos_)));
    }
    return OkStatus();
  }

 private:
  Status Expected(const std::string& what) const {
    return errors::InvalidArgument(
        "bad header at byte ", pos_, ": expected ", what, ", found ",
        pos_ < text_.size() ? Quote(text_.substr(pos_, 20)) : "the end");
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(std::string_view w) {
    if (text_.substr(pos_, w.size()) == w) {
      size_t end = pos_ + w.size();
      if (end < text_.size() &&
          (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
        return false;
      }
      pos_ = end;
      return true;
    }
    return false;
  }
  // A Python string literal without escapes beyond \\ and \' (numpy never
  // writes others in the three keys it uses).
  bool ParseString(std::string* out) {
    if (pos_ >= text_.size()) return false;
    char quote = text_[pos_];
    if (quote != '\'' && quote != '"') return false;
    size_t p = pos_ + 1;
    std::string s;
    while (p < text_.size() && text_[p] != quote) {
      if (text_[p] == '\\') {
        if (p + 1 >= text_.size()) return false;
        ++p;
      }
      s += text_[p++];
    }
    if (p >= text_.size()) return false;
    pos_ = p + 1;
    *out = std::move(s);
    return true;
  }
  // A decimal integer, optionally followed by Python 2's 'L'.
  Status ParseInt(int64_t* out) {
    size_t start = pos_;
    bool negative = Consume('-');
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      pos_ = start;
      return Expected("an integer");
    }
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      uint64_t d = static_cast<uint64_t>(text_[pos_] - '0');
      if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - d) / 10) {
        return errors::InvalidArgument(
            "integer ", Quote(text_.substr(start, pos_ - start + 1)),
            "... in the header is too large");
      }
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return OkStatus();
  }
  // Skips a balanced bracketed value (a list or dict we do not interpret).
  Status SkipBracketed() {
    size_t start = pos_;
    std::vector<char> stack;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\'' || c == '"') {
        std::string ignored;
        if (!ParseString(&ignored)) break;
        continue;
      }
      if (c == '[' || c == '(' || c == '{') stack.push_back(c == '[' ? ']' : c == '(' ? ')' : '}');
      if (c == ']' || c == ')' || c == '}') {
        if (stack.empty() || stack.back() != c) break;
        stack.pop_back();
        if (stack.empty()) {
          ++pos_;
          return OkStatus();
        }
      }
      ++pos_;
    }
    pos_ = start;
    return Expected("a balanced value");
  }
  Status ParseValue(PyValue* v) {
    size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      if (!ParseString(&v->str)) return Expected("a closing quote");
      v->kind = PyValue::kString;
    } else if (ConsumeWord("True")) {
      v->kind = PyValue::kBool;
      v->boolean = true;
    } else if (ConsumeWord("False")) {
      v->kind = PyValue::kBool;
      v->boolean = false;
    } else if (Consume('(')) {
      v->kind = PyValue::kTuple;
      SkipSpace();
      while (!Consume(')')) {
        int64_t d = 0;
        OPKIT_RETURN_IF_ERROR(ParseInt(&d));
        v->tuple.push_back(d);
        SkipSpace();
        if (Consume(',')) {
          SkipSpace();
          continue;
        }
        if (!Consume(')')) return Expected("',' or ')' in the shape tuple");
        break;
      }
    } else if (pos_ < text_.size() && (text_[pos_] == '[' || text_[pos_] == '{')) {
      OPKIT_RETURN_IF_ERROR(SkipBracketed());
      v->kind = PyValue::kOther;
    } else if (pos_ < text_.size() &&
               (text_[pos_] == '-' || std::isdigit(static_cast<unsigned char>(text_[pos_])))) {
      OPKIT_RETURN_IF_ERROR(ParseInt(&v->integer));
      v->kind = PyValue::kInt;
    } else {
      return Expected("a value (a string, True, False or a tuple)");
    }
    v->text = std::string(text_.substr(start, pos_ - start));
    return OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Status Bad(std::string_view what, const std::string& msg) {
  return errors::InvalidArgument("'", what, "' is not a valid .npy file: ", msg);
}

uint32_t ReadLE(const unsigned char* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::string NpyDescr(DataType dtype) {
  const DtypeInfo* info = FindDtype(dtype);
  if (info == nullptr) return "";
  char order = info->size == 1 ? '|' : '<';
  return StrCat(order, info->kind, info->size);
}

std::string NumpyDtypeName(DataType dtype) {
  const DtypeInfo* info = FindDtype(dtype);
  return info != nullptr ? info->numpy_name : DataTypeString(dtype);
}

StatusOr<Tensor> ParseNpy(std::string_view bytes, std::string_view what) {
  if (bytes.size() < kMagicLen + 2 ||
      std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    return Bad(what, StrCat("it does not start with the magic string "
                            "\"\\x93NUMPY\" (",
                            bytes.size(), " bytes; save arrays with numpy.save)"));
  }
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = u[6];
  const int minor = u[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Bad(what, StrCat("format version ", major, ".", minor,
                            " is not supported (1.0, 2.0 and 3.0 are)"));
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicLen + 2 + len_bytes;
  if (bytes.size() < prefix) {
    return Bad(what, StrCat("truncated: the file ends (", bytes.size(),
                            " bytes) inside the header length field"));
  }
  const size_t header_len = ReadLE(u + kMagicLen + 2, static_cast<int>(len_bytes));
  if (header_len > kMaxHeaderLen) {
    return Bad(what, StrCat("header length ", header_len, " exceeds the limit of ",
                            kMaxHeaderLen, " bytes"));
  }
  if (bytes.size() - prefix < header_len) {
    return Bad(what, StrCat("truncated: the header says it is ", header_len,
                            " bytes long but only ", bytes.size() - prefix,
                            " bytes follow"));
  }
  std::string_view header = bytes.substr(prefix, header_len);
  if (major < 3) {
    // Latin-1; numpy only ever writes ASCII there. A NUL is never valid.
    if (header.find('\0') != std::string_view::npos) {
      return Bad(what, "the header contains a NUL byte");
    }
  }
  std::vector<std::pair<std::string, PyValue>> entries;
  Status parsed = HeaderParser(header).Parse(&entries);
  if (!parsed.ok()) {
    return Bad(what, StrCat(parsed.message(), " (header: ", Quote(header), ")"));
  }
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (const auto& [key, value] : entries) {
    if (key == "descr") {
      descr = &value;
    } else if (key == "fortran_order") {
      fortran = &value;
    } else if (key == "shape") {
      shape = &value;
    } else {
      return Bad(what, StrCat("unexpected header key ", Quote(key),
                              " (only 'descr', 'fortran_order' and 'shape' are allowed)"));
    }
  }
  if (descr == nullptr || fortran == nullptr || shape == nullptr) {
    return Bad(what, StrCat("the header lacks the key '",
                            descr == nullptr     ? "descr"
                            : fortran == nullptr ? "fortran_order"
                                                 : "shape",
                            "' (header: ", Quote(header), ")"));
  }
  if (descr->kind != PyValue::kString) {
    return Bad(what, StrCat("structured dtype ", Quote(descr->text),
                            " is not supported; save a plain numeric array"));
  }
  if (fortran->kind != PyValue::kBool) {
    return Bad(what, StrCat("'fortran_order' must be True or False, not ",
                            Quote(fortran->text)));
  }
  if (fortran->boolean) {
    return Bad(what, "Fortran-order arrays are not supported; save "
                     "numpy.ascontiguousarray(a) instead");
  }
  if (shape->kind != PyValue::kTuple) {
    return Bad(what, StrCat("'shape' must be a tuple of integers, not ",
                            Quote(shape->text)));
  }

  // descr: byte order, kind, size ("<f4", "|b1", ">i8").
  const std::string& d = descr->str;
  if (d.size() < 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '=')) {
    if (d.find('O') != std::string::npos) {
      return Bad(what, StrCat("object dtype ", Quote(d),
                              " is not supported; save a numeric array"));
    }
    return Bad(what, StrCat("dtype ", Quote(d), " is not supported"));
  }
  const char order = d[0];
  const char kind = d[1];
  int size = 0;
  for (size_t i = 2; i < d.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(d[i])) || size > 1000) {
      size = -1;
      break;
    }
    size = size * 10 + (d[i] - '0');
  }
  if (kind == 'O') {
    return Bad(what, StrCat("object dtype ", Quote(d),
                            " is not supported; save a numeric array"));
  }
  const DtypeInfo* info = size > 0 ? FindDtype(kind, size) : nullptr;
  if (info == nullptr) {
    return Bad(what, StrCat("dtype ", Quote(d),
                            " is not supported (supported: bool, int8/16/32/64, "
                            "uint8/16/32/64, float16/32/64, complex64/128)"));
  }
  const bool swap = order == '>' && info->size > 1;

  // Shape and byte count, checked for overflow.
  std::vector<int64_t> dims = shape->tuple;
  if (dims.size() > static_cast<size_t>(TensorShape::kMaxDimensions)) {
    return Bad(what, StrCat("shape has ", dims.size(), " dimensions; at most ",
                            TensorShape::kMaxDimensions, " are supported"));
  }
  uint64_t num_elements = 1;
  for (int64_t dim : dims) {
    if (dim < 0) {
      return Bad(what, StrCat("shape ", Quote(shape->text),
                              " has a negative dimension"));
    }
    if (dim != 0 && num_elements > static_cast<uint64_t>(
                                       std::numeric_limits<int64_t>::max()) /
                                       static_cast<uint64_t>(dim)) {
      return Bad(what, StrCat("shape ", Quote(shape->text),
                              " has more elements than fit in int64"));
    }
    num_elements *= static_cast<uint64_t>(dim);
  }
  if (num_elements > std::numeric_limits<uint64_t>::max() / 16) {
    return Bad(what, StrCat("shape ", Quote(shape->text), " is too large"));
  }
  const uint64_t data_bytes = num_elements * static_cast<uint64_t>(info->size);
  const size_t data_offset = prefix + header_len;
  const uint64_t available = bytes.size() - data_offset;
  if (available < data_bytes) {
    return Bad(what, StrCat("truncated: shape ", Quote(shape->text), " of ",
                            info->numpy_name, " needs ", data_bytes,
                            " bytes of data but only ", available, " follow the header"));
  }
  if (available > data_bytes) {
    return Bad(what, StrCat(available - data_bytes,
                            " unexpected bytes after the data (shape ",
                            Quote(shape->text), " of ", info->numpy_name,
                            " needs ", data_bytes, " bytes)"));
  }

  TensorShape tensor_shape;
  OPKIT_RETURN_IF_ERROR(TensorShape::BuildTensorShape(dims, &tensor_shape));
  Tensor tensor;
  OPKIT_RETURN_IF_ERROR(Tensor::Allocate(info->dtype, tensor_shape, &tensor));
  if (data_bytes > 0) {
    auto* out = static_cast<unsigned char*>(tensor.data());
    std::memcpy(out, bytes.data() + data_offset, data_bytes);
    if (swap) {
      // Complex numbers swap each of their two parts.
      const int part = info->kind == 'c' ? info->size / 2 : info->size;
      for (uint64_t i = 0; i < data_bytes; i += part) {
        std::reverse(out + i, out + i + part);
      }
    }
    if (info->dtype == DT_BOOL) {
      // Anything but 0 or 1 in a bool is undefined behaviour in C++.
      for (uint64_t i = 0; i < data_bytes; ++i) {
        if (out[i] > 1) {
          return Bad(what, StrCat("bool element ", i, " has the byte value ",
                                  static_cast<int>(out[i]), " (must be 0 or 1)"));
        }
      }
    }
  }
  return tensor;
}

StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  std::string bytes;
  Status s = ReadFileToString(path, &bytes);
  if (!s.ok()) {
    return Status(s.code(), StrCat("cannot read .npy file '", path, "': ", s.message()));
  }
  return ParseNpy(bytes, path);
}

StatusOr<std::string> SerializeNpy(const Tensor& tensor) {
  const std::string descr = NpyDescr(tensor.dtype());
  if (descr.empty()) {
    return errors::InvalidArgument(
        "a tensor of dtype ", DataTypeString(tensor.dtype()),
        " cannot be written as .npy (supported: bool, int8/16/32/64, "
        "uint8/16/32/64, float16/32/64, complex64/128)");
  }
  std::string shape = "(";
  for (int i = 0; i < tensor.dims(); ++i) {
    shape += StrCat(tensor.dim_size(i));
    if (tensor.dims() == 1 || i + 1 < tensor.dims()) shape += ",";
    if (i + 1 < tensor.dims()) shape += " ";
  }
  shape += ")";
  std::string header = StrCat("{'descr': '", descr,
                              "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces so that the data starts at a multiple of 64, ending the
  // header with a newline, as numpy does.
  const size_t unpadded = kMagicLen + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff) {
    return errors::InvalidArgument("tensor of ", tensor.dims(),
                                   " dimensions has a header too large for .npy 1.0");
  }
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  std::string_view data = tensor.tensor_data();
  out.append(data.data(), data.size());
  return out;
}

Status WriteNpyFile(const Tensor& tensor, const std::string& path) {
  StatusOr<std::string> bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return bytes.status();
  Status s = WriteStringToFile(path, *bytes);
  if (!s.ok()) {
    return Status(s.code(), StrCat("cannot write '", path, "': ", s.message()));
  }
  return OkStatus();
}

}  // namespace cli
}  // namespace opkit

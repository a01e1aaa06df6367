// OpGenOverrideMap: reading the binding-generator overrides (hide, rename,
// attr defaults) from text.
#include "opkit/op/op_gen_overrides.h"

// See Note [Overrides proto] in the header.

#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace {

using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::TextFormat;

using OverrideTable = std::unordered_map<std::string, std::unique_ptr<OpGenOverride>>;

// Keeps the parser's first complaint (which it would otherwise log) with
// its place in the text.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!seen_) {
      seen_ = true;
      line_ = line;
      column_ = column;
      message_ = message;
    }
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}

  bool seen() const { return seen_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool seen_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

// "source:line:column: " with 1-based numbers, from the parser's 0-based
// ones.
std::string Where(std::string_view source, int line, int column) {
  return StrCat(source, ":", line + 1, ":", column + 1, ": ");
}

std::string Where(std::string_view source, const TextFormat::ParseLocation& loc) {
  if (loc.line < 0) return StrCat(source, ": ");
  return Where(source, loc.line, loc.column);
}

const FieldDescriptor* Field(const google::protobuf::Descriptor* d, const char* name) {
  const FieldDescriptor* f = d->FindFieldByName(name);
  OPKIT_CHECK(f != nullptr) << "op_gen_overrides.proto lacks field " << name;
  return f;
}

// Checks one op entry's renames of one kind (attr_rename, ...).
Status CheckRenames(const google::protobuf::RepeatedPtrField<OpGenOverride::Rename>& renames,
                    const char* field_name, const TextFormat::ParseInfoTree* op_tree,
                    std::string_view source, const std::string& op_name) {
  const FieldDescriptor* field = Field(OpGenOverride::descriptor(), field_name);
  for (int i = 0; i < renames.size(); ++i) {
    if (renames.Get(i).from().empty() || renames.Get(i).to().empty()) {
      return errors::InvalidArgument(
          Where(source, op_tree->GetLocation(field, i)), field_name, " of op '", op_name,
          "' needs both 'from' and 'to' names; got from: \"", renames.Get(i).from(),
          "\" to: \"", renames.Get(i).to(), "\"");
    }
  }
  return OkStatus();
}

// Parses `text` and adds its entries to `*table`; on error `*table` may
// hold some of them (callers parse into a scratch table).
Status ParseOverrides(std::string_view text, std::string_view source, OverrideTable* table) {
  OpGenOverrides all;
  TextFormat::Parser parser;
  FirstError errors_seen;
  TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors_seen);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(std::string(text), &all)) {
    if (!errors_seen.seen()) {
      return errors::InvalidArgument(source, ": could not parse OpGenOverrides text");
    }
    return errors::InvalidArgument(
        Where(source, errors_seen.line(), errors_seen.column()), errors_seen.message(),
        " (expected a text-format OpGenOverrides: op { name: \"Op\" ... })");
  }

  const FieldDescriptor* op_field = Field(OpGenOverrides::descriptor(), "op");
  const FieldDescriptor* default_field = Field(OpGenOverride::descriptor(), "attr_default");
  std::unordered_map<std::string, TextFormat::ParseLocation> first_seen;
  for (int i = 0; i < all.op_size(); ++i) {
    OpGenOverride& one = *all.mutable_op(i);
    const TextFormat::ParseLocation loc = tree.GetLocation(op_field, i);
    const TextFormat::ParseInfoTree* op_tree = tree.GetTreeForNested(op_field, i);
    if (one.name().empty()) {
      return errors::InvalidArgument(Where(source, loc),
                                     "op entry without a name; give the registered "
                                     "op name as name: \"...\"");
    }
    auto [it, inserted] = first_seen.emplace(one.name(), loc);
    if (!inserted) {
      return errors::InvalidArgument(Where(source, loc), "op '", one.name(),
                                     "' is listed twice (first at line ",
                                     it->second.line + 1,
                                     "); merge the two entries into one");
    }
    if (op_tree == nullptr) {
      // An entry written as "op {}" has no nested locations; it also has no
      // name, so it was refused above.
      continue;
    }
    for (int j = 0; j < one.attr_default_size(); ++j) {
      const OpGenOverride::AttrDefault& d = one.attr_default(j);
      if (d.name().empty() || !d.has_value()) {
        return errors::InvalidArgument(
            Where(source, op_tree->GetLocation(default_field, j)),
            "attr_default of op '", one.name(),
            "' needs a name and a value, e.g. attr_default { name: \"T\" value { "
            "type: DT_FLOAT } }");
      }
    }
    OPKIT_RETURN_IF_ERROR(
        CheckRenames(one.attr_rename(), "attr_rename", op_tree, source, one.name()));
    OPKIT_RETURN_IF_ERROR(
        CheckRenames(one.input_rename(), "input_rename", op_tree, source, one.name()));
    OPKIT_RETURN_IF_ERROR(
        CheckRenames(one.output_rename(), "output_rename", op_tree, source, one.name()));
  }
  for (OpGenOverride& one : *all.mutable_op()) {
    std::string name = one.name();
    (*table)[std::move(name)] = std::make_unique<OpGenOverride>(std::move(one));
  }
  return OkStatus();
}

// Replaces every occurrence of `from` in `*s` by `to`. `from` is not empty.
void ReplaceAll(const std::string& from, const std::string& to, std::string* s) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t found = s->find(from, pos);
    if (found == std::string::npos) break;
    out.append(*s, pos, found - pos);
    out += to;
    pos = found + from.size();
  }
  if (pos == 0) return;  // Nothing replaced.
  out.append(*s, pos, std::string::npos);
  *s = std::move(out);
}

// Docs refer to names in backticks: `a`.
void RenameInDocs(const std::string& from, const std::string& to, OpDef* op_def) {
  const std::string from_quoted = StrCat("`", from, "`");
  const std::string to_quoted = StrCat("`", to, "`");
  for (OpDef::ArgDef& arg : *op_def->mutable_input_arg()) {
    ReplaceAll(from_quoted, to_quoted, arg.mutable_description());
  }
  for (OpDef::ArgDef& arg : *op_def->mutable_output_arg()) {
    ReplaceAll(from_quoted, to_quoted, arg.mutable_description());
  }
  for (OpDef::AttrDef& attr : *op_def->mutable_attr()) {
    ReplaceAll(from_quoted, to_quoted, attr.mutable_description());
  }
  ReplaceAll(from_quoted, to_quoted, op_def->mutable_summary());
  ReplaceAll(from_quoted, to_quoted, op_def->mutable_description());
}

// Renames the first arg called `from`; false if there is none.
bool RenameArg(const OpGenOverride::Rename& rename,
               google::protobuf::RepeatedPtrField<OpDef::ArgDef>* args) {
  for (OpDef::ArgDef& arg : *args) {
    if (arg.name() == rename.from()) {
      arg.set_name(rename.to());
      return true;
    }
  }
  return false;
}

// Points every arg that refers to attr `from` at `to`, so that the renamed
// OpDef stays self-consistent (ValidateOpDef still passes).
void RenameAttrReferences(const std::string& from, const std::string& to,
                          google::protobuf::RepeatedPtrField<OpDef::ArgDef>* args) {
  for (OpDef::ArgDef& arg : *args) {
    if (arg.type_attr() == from) arg.set_type_attr(to);
    if (arg.number_attr() == from) arg.set_number_attr(to);
    if (arg.type_list_attr() == from) arg.set_type_list_attr(to);
  }
}

}  // namespace

Status OpGenOverrideMap::LoadFileList(std::string_view filenames) {
  OverrideTable scratch;
  size_t start = 0;
  while (start <= filenames.size()) {
    size_t comma = filenames.find(',', start);
    if (comma == std::string_view::npos) comma = filenames.size();
    const std::string_view name = filenames.substr(start, comma - start);
    if (!name.empty()) {
      std::string contents;
      OPKIT_RETURN_IF_ERROR(errors::AppendToMessage(
          ReadFileToString(std::string(name), &contents),
          " (while loading op overrides from '", name, "')"));
      OPKIT_RETURN_IF_ERROR(ParseOverrides(contents, name, &scratch));
    }
    start = comma + 1;
  }
  for (auto& [name, entry] : scratch) map_[name] = std::move(entry);
  return OkStatus();
}

Status OpGenOverrideMap::LoadFile(std::string_view filename) {
  // A file name with a comma would be split by LoadFileList.
  if (filename.empty()) return OkStatus();
  std::string contents;
  OPKIT_RETURN_IF_ERROR(errors::AppendToMessage(
      ReadFileToString(std::string(filename), &contents),
      " (while loading op overrides from '", filename, "')"));
  return LoadText(contents, filename);
}

Status OpGenOverrideMap::LoadText(std::string_view text, std::string_view source) {
  OverrideTable scratch;
  OPKIT_RETURN_IF_ERROR(ParseOverrides(text, source, &scratch));
  for (auto& [name, entry] : scratch) map_[name] = std::move(entry);
  return OkStatus();
}

const OpGenOverride* OpGenOverrideMap::Find(std::string_view op_name) const {
  const auto it = map_.find(std::string(op_name));
  return it == map_.end() ? nullptr : it->second.get();
}

const OpGenOverride* OpGenOverrideMap::ApplyOverride(OpDef* op_def) const {
  const OpGenOverride* found = Find(op_def->name());
  if (found == nullptr) return nullptr;
  const OpGenOverride& o = *found;
  if (o.skip()) return found;

  if (!o.rename_to().empty()) {
    op_def->set_name(o.rename_to());
    RenameInDocs(o.name(), o.rename_to(), op_def);
  }
  // Defaults first: they name attrs as they were before attr_rename.
  for (const OpGenOverride::AttrDefault& d : o.attr_default()) {
    bool applied = false;
    for (OpDef::AttrDef& attr : *op_def->mutable_attr()) {
      if (attr.name() == d.name()) {
        *attr.mutable_default_value() = d.value();
        applied = true;
        break;
      }
    }
    if (!applied) {
      OPKIT_LOG(WARNING) << "Op overrides for " << o.name() << ": no attr '" << d.name()
                         << "' to give a new default";
    }
  }
  for (const OpGenOverride::Rename& r : o.attr_rename()) {
    bool applied = false;
    for (OpDef::AttrDef& attr : *op_def->mutable_attr()) {
      if (attr.name() == r.from()) {
        attr.set_name(r.to());
        applied = true;
        break;
      }
    }
    if (applied) {
      RenameAttrReferences(r.from(), r.to(), op_def->mutable_input_arg());
      RenameAttrReferences(r.from(), r.to(), op_def->mutable_output_arg());
      RenameInDocs(r.from(), r.to(), op_def);
    } else {
      OPKIT_LOG(WARNING) << "Op overrides for " << o.name() << ": no attr '" << r.from()
                         << "' to rename";
    }
  }
  for (const OpGenOverride::Rename& r : o.input_rename()) {
    if (RenameArg(r, op_def->mutable_input_arg())) {
      RenameInDocs(r.from(), r.to(), op_def);
    } else {
      OPKIT_LOG(WARNING) << "Op overrides for " << o.name() << ": no input '" << r.from()
                         << "' to rename";
    }
  }
  for (const OpGenOverride::Rename& r : o.output_rename()) {
    if (RenameArg(r, op_def->mutable_output_arg())) {
      RenameInDocs(r.from(), r.to(), op_def);
    } else {
      OPKIT_LOG(WARNING) << "Op overrides for " << o.name() << ": no output '" << r.from()
                         << "' to rename";
    }
  }
  return found;
}

}  // namespace opkit


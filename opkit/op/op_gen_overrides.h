// OpGenOverrideMap: per-op overrides for binding generators, read from
// text-format OpGenOverrides files (see proto/opkit/op_gen_overrides.proto),
// and applied to an OpDef before a generator turns it into an API.
//
//   OpGenOverrideMap overrides;
//   OPKIT_RETURN_IF_ERROR(overrides.LoadFileList("base.pbtxt,extra.pbtxt"));
//   OpDef op_def = ...;
//   const OpGenOverride* o = overrides.ApplyOverride(&op_def);
//   if (o != nullptr && o->skip()) continue;          // not in the API
//   bool internal = o != nullptr && o->hide();
//   // op_def now has the API names and the new-graph defaults.
//
// A file looks like:
//   op { name: "MatMul" rename_to: "MatrixMultiply" alias: "Mm"
//        attr_default { name: "transpose_a" value { b: true } }
//        input_rename { from: "a" to: "x" } }
//
// Thread-compatible: load first, then ApplyOverride may be called from many
// threads at once.
#ifndef OPKIT_OP_OP_GEN_OVERRIDES_H_
#define OPKIT_OP_OP_GEN_OVERRIDES_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/op_def.pb.h"
#include "opkit/op_gen_overrides.pb.h"

namespace opkit {

class OPKIT_EXPORT OpGenOverrideMap {
 public:
  OpGenOverrideMap() = default;
  OpGenOverrideMap(const OpGenOverrideMap&) = delete;
  OpGenOverrideMap& operator=(const OpGenOverrideMap&) = delete;
  OpGenOverrideMap(OpGenOverrideMap&&) = default;
  OpGenOverrideMap& operator=(OpGenOverrideMap&&) = default;

  // Loads each file of a comma-separated list in order (empty entries are
  // skipped); an op overridden in a later file replaces the earlier entry.
  // All or nothing: on error nothing from any of the files is kept.
  Status LoadFileList(std::string_view filenames);

  // Loads one file; an empty name loads nothing (as TensorFlow does). An
  // error names the file, and the line and column for bad text.
  Status LoadFile(std::string_view filename);

  // Loads text-format OpGenOverrides. `source` names the text in errors.
  // InvalidArgument, changing nothing, for text that does not parse, an op
  // entry without a name, an op listed twice, an attr_default without a name
  // or value, or a rename with an empty `from` or `to`; the message gives
  // the source and line ("overrides.pbtxt:12:3: ...").
  Status LoadText(std::string_view text, std::string_view source = "<text>");

  // The override for `op_name` (the registered name), or nullptr.
  const OpGenOverride* Find(std::string_view op_name) const;

  // How many ops have overrides.
  size_t size() const { return map_.size(); }

  // Applies the override for `op_def->name()` to `*op_def` and returns it
  // (nullptr, leaving `*op_def` alone, when there is none). With `skip` set
  // nothing is changed: the caller leaves the op out. Otherwise, in this
  // order: the op takes the name `rename_to`; attr defaults are replaced
  // (attrs named as before renaming); attrs, inputs and outputs are renamed,
  // an attr rename also updating the args that refer to the attr. Every
  // rename also replaces the old name in backticks in the docs. `hide` and
  // `alias` are for the caller to act on. A named attr, input or output
  // that the OpDef lacks is skipped with a logged warning.
  const OpGenOverride* ApplyOverride(OpDef* op_def) const;

 private:
  std::unordered_map<std::string, std::unique_ptr<OpGenOverride>> map_;
};

}  // namespace opkit

#endif  // OPKIT_OP_OP_GEN_OVERRIDES_H_

// OpRegistry, OpListOpRegistry and LoadOpListFromTextFile. See
// op_registry.h; the pending list behind REGISTER_OP is in op.cc.
#include "opkit/op/op_registry.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"
#include "opkit/op/op.h"
#include "opkit/op/op_def_util.h"

namespace opkit {
namespace {

// An op name as it appears in a message: quoted by the caller, control bytes
// escaped, and cut short so that a huge name cannot flood the log.
std::string PrintableName(std::string_view name) {
  constexpr size_t kMaxShown = 200;
  std::string out;
  const size_t shown = std::min(name.size(), kMaxShown);
  out.reserve(shown + 16);
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (shown < name.size()) {
    out += StrCat("... (", name.size(), " bytes)");
  }
  return out;
}

const std::string& Hostname() {
  static const std::string* const host = [] {
    char buf[256] = {};
    if (gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') {
      return new std::string("localhost");
    }
    return new std::string(buf);
  }();
  return *host;
}

// Case-insensitive edit distance between `a` and `b`, or limit + 1 when it
// is larger than `limit`.
size_t BoundedEditDistance(std::string_view a, std::string_view b,
                           size_t limit) {
  if (a.size() > b.size()) std::swap(a, b);
  if (b.size() - a.size() > limit) return limit + 1;
  std::vector<size_t> prev(a.size() + 1), cur(a.size() + 1);
  for (size_t i = 0; i <= a.size(); ++i) prev[i] = i;
  for (size_t j = 1; j <= b.size(); ++j) {
    cur[0] = j;
    size_t row_min = cur[0];
    const int bj = std::tolower(static_cast<unsigned char>(b[j - 1]));
    for (size_t i = 1; i <= a.size(); ++i) {
      const int ai = std::tolower(static_cast<unsigned char>(a[i - 1]));
      const size_t substitute = prev[i - 1] + (ai == bj ? 0 : 1);
      cur[i] = std::min({prev[i] + 1, cur[i - 1] + 1, substitute});
      row_min = std::min(row_min, cur[i]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return prev[a.size()] <= limit ? prev[a.size()] : limit + 1;
}

// Up to three registered names close to `name` (by case-insensitive edit
// distance), closest first. `names` yields every registered name.
template <typename Map>
std::vector<std::string> CloseNames(const std::string& name, const Map& ops) {
  constexpr size_t kMaxNameLength = 256;
  constexpr size_t kMaxSuggestions = 3;
  if (name.empty() || name.size() > kMaxNameLength) return {};
  const size_t limit = name.size() <= 3 ? 1 : name.size() <= 8 ? 2 : 3;
  std::vector<std::pair<size_t, std::string_view>> scored;
  for (const auto& item : ops) {
    const size_t d = BoundedEditDistance(name, item.first, limit);
    if (d <= limit) scored.emplace_back(d, item.first);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < kMaxSuggestions; ++i) {
    out.emplace_back(scored[i].second);
  }
  return out;
}

// TensorFlow's NotFound text, then what to do in opkit, then close names.
Status OpNotFound(const std::string& op_type_name,
                  const std::vector<std::string>& close_names,
                  const std::string& extra) {
  const std::string shown = PrintableName(op_type_name);
  std::string message = StrCat(
      "Op type not registered '", shown, "' in binary running on ", Hostname(),
      ". Make sure the Op and Kernel are registered in the binary running in "
      "this process. If '",
      shown,
      "' is defined in an op library, load that library first "
      "(LoadOpLibrary(path) in C++, opkit.load_op_library(path) in Python).");
  if (!close_names.empty()) {
    message += " Did you mean ";
    for (size_t i = 0; i < close_names.size(); ++i) {
      if (i > 0) message += i + 1 == close_names.size() ? " or " : ", ";
      message += StrCat("'", close_names[i], "'");
    }
    message += "?";
  }
  message += extra;
  VLOG(1) << message;
  return errors::NotFound(message);
}

// Adds which registration failed to an error from a factory or a check.
Status WithRegistrationContext(const Status& s, const OpRegistrationData& data) {
  return errors::AppendToMessage(
      s, "\n\tin the registration of op '", PrintableName(data.op_def.name()),
      "' at ", data.origin.ToString());
}

Status DuplicateOp(const OpRegistrationData& existing,
                   const OpRegistrationData& added) {
  return errors::AlreadyExists(
      "Op with name '", PrintableName(added.op_def.name()),
      "' is already registered from ", existing.origin.ToString(),
      " with a different OpDef than the one registered from ",
      added.origin.ToString(), ".\n\texisting: ",
      SummarizeOpDef(existing.op_def), "\n\tnew:      ",
      SummarizeOpDef(added.op_def),
      "\n\tRename one of the two ops, or load only one of the libraries that "
      "define it.");
}

// Runs a user-supplied callable; an exception becomes an Internal error
// rather than escaping through the registry.
template <typename Fn>
Status CallUserCode(const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return errors::Internal(what, " threw an exception: ", e.what());
  } catch (...) {
    return errors::Internal(what, " threw an exception of unknown type");
  }
}

}  // namespace

// OpRegistryInterface ---------------------------------------------------------

OpRegistryInterface::~OpRegistryInterface() = default;

Status OpRegistryInterface::LookUpOpDef(const std::string& op_type_name,
                                        const OpDef** op_def) const {
  *op_def = nullptr;
  const OpRegistrationData* data = nullptr;
  OPKIT_RETURN_IF_ERROR(LookUp(op_type_name, &data));
  *op_def = &data->op_def;
  return OkStatus();
}

// OpRegistry ------------------------------------------------------------------

struct OpRegistry::State {
  // One registered op.
  struct Entry {
    // unique_ptr keeps the address handed out by LookUp() stable while the
    // map rehashes.
    std::unique_ptr<const OpRegistrationData> data;
    // The batch that inserted it, for RemoveBatch().
    uint64_t batch = 0;
  };

  mutable mutex mu;
  // Owned registrations by op name. Keyed by std::string so that find() with
  // the caller's std::string allocates nothing.
  std::unordered_map<std::string, Entry> ops OPKIT_GUARDED_BY(mu);
  OpRegistry::Watcher watcher OPKIT_GUARDED_BY(mu);
  uint64_t next_batch OPKIT_GUARDED_BY(mu) = 1;
};

struct OpRegistry::Candidate {
  OpRegistrationData data;
  // The factory's result; OK for data given directly.
  Status status;
};

OpRegistry::OpRegistry() : state_(std::make_unique<State>()) {}
OpRegistry::~OpRegistry() = default;

OpRegistry* OpRegistry::Global() {
  // Note [Pending op registrations] in op.h. One batch per registration, so
  // that one bad op linked into the program does not take the others down.
  static OpRegistry* const global = [] {
    auto* registry = new OpRegistry;
    registry->is_global_ = true;
    PendingOpRegistrations pending = TakePendingOpRegistrations();
    for (PendingOpRegistration& registration : pending) {
      PendingOpRegistrations one;
      one.push_back(std::move(registration));
      Status s = CommitOpRegistrations(std::move(one), registry, "");
      if (!s.ok()) {
        LOG(ERROR) << "Skipped an op registration of the program: " << s;
      }
    }
    return registry;
  }();
  return global;
}

Status OpRegistry::Register(const OpRegistrationDataFactory& factory) {
  return RegisterBatch(std::vector<OpRegistrationDataFactory>{factory});
}

Status OpRegistry::Register(OpRegistrationData data) {
  std::vector<Candidate> candidates(1);
  candidates[0].data = std::move(data);
  return RegisterCandidates(std::move(candidates));
}

Status OpRegistry::RegisterBatch(std::vector<OpRegistrationData> batch) {
  std::vector<Candidate> candidates(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    candidates[i].data = std::move(batch[i]);
  }
  return RegisterCandidates(std::move(candidates));
}

Status OpRegistry::RegisterBatch(
    const std::vector<OpRegistrationDataFactory>& factories) {
  return RegisterBatch(factories, nullptr);
}

Status OpRegistry::RegisterBatch(
    const std::vector<OpRegistrationDataFactory>& factories,
    CommittedOpBatch* committed) {
  std::vector<Candidate> candidates(factories.size());
  for (size_t i = 0; i < factories.size(); ++i) {
    Candidate& c = candidates[i];
    if (!factories[i]) {
      c.status = errors::InvalidArgument(
          "Op registration #", i, " of the batch has an empty factory");
      continue;
    }
    c.status = CallUserCode("An op registration factory",
                            [&] { return factories[i](&c.data); });
  }
  return RegisterCandidates(std::move(candidates), committed);
}

Status OpRegistry::RegisterCandidates(std::vector<Candidate> candidates,
                                      CommittedOpBatch* committed) {
  // Checks that need no registry state run before taking the lock.
  for (Candidate& c : candidates) {
    if (c.status.ok()) c.status = ValidateOpDef(c.data.op_def);
    if (!c.status.ok()) c.status = WithRegistrationContext(c.status, c.data);
  }

  // Messages about identical re-declarations, logged once the batch landed.
  std::vector<std::string> redeclarations;
  {
    mutex_lock lock(state_->mu);
    // Names this batch adds, for duplicates inside the batch.
    std::unordered_map<std::string_view, const OpRegistrationData*> added;
    std::vector<Candidate*> to_insert;
    std::vector<Candidate*> redeclared;
    for (Candidate& c : candidates) {
      bool insert = c.status.ok();
      if (insert) {
        const std::string& name = c.data.op_def.name();
        const OpRegistrationData* existing = nullptr;
        if (auto it = state_->ops.find(name); it != state_->ops.end()) {
          existing = it->second.data.get();
        } else if (auto it2 = added.find(name); it2 != added.end()) {
          existing = it2->second;
        }
        if (existing != nullptr) {
          insert = false;
          if (OpDefEqual(existing->op_def, c.data.op_def)) {
            redeclarations.push_back(StrCat(
                "Op '", PrintableName(name), "' registered again from ",
                c.data.origin.ToString(),
                " with an identical OpDef; keeping the registration from ",
                existing->origin.ToString()));
            redeclared.push_back(&c);
          } else {
            c.status = WithRegistrationContext(DuplicateOp(*existing, c.data),
                                               c.data);
          }
        }
      }
      Status result = c.status;
      if (state_->watcher) {
        const Watcher* watcher = &state_->watcher;
        result = CallUserCode("The op registry watcher", [&] {
          return (*watcher)(c.status, c.data.op_def);
        });
      }
      // Nothing has been inserted yet, so returning leaves the registry as
      // it was. A failed registration the watcher forgave is dropped.
      if (!result.ok()) return result;
      if (insert && c.status.ok()) {
        added.emplace(c.data.op_def.name(), &c.data);
        to_insert.push_back(&c);
      }
    }
    const uint64_t batch = state_->next_batch++;
    state_->ops.reserve(state_->ops.size() + to_insert.size());
    for (Candidate* c : to_insert) {
      if (committed != nullptr) committed->registered.push_back(c->data.op_def);
      std::string name = c->data.op_def.name();
      State::Entry entry;
      entry.data = std::make_unique<const OpRegistrationData>(std::move(c->data));
      entry.batch = batch;
      state_->ops.emplace(std::move(name), std::move(entry));
    }
    if (!to_insert.empty()) {
      generation_.fetch_add(1, std::memory_order_acq_rel);
    }
    if (committed != nullptr) {
      for (Candidate* c : redeclared) {
        committed->redeclared.push_back(std::move(c->data));
      }
      if (!to_insert.empty()) {
        committed->handle =
            RegistrationHandle([this, batch] { return RemoveBatch(batch); });
      }
    }
  }
  for (const std::string& message : redeclarations) LOG(INFO) << message;
  return OkStatus();
}

Status OpRegistry::Deregister(const std::vector<std::string>& op_names) {
  mutex_lock lock(state_->mu);
  std::vector<std::string> missing;
  for (const std::string& name : op_names) {
    if (state_->ops.find(name) == state_->ops.end()) {
      missing.push_back(StrCat("'", PrintableName(name), "'"));
    }
  }
  if (!missing.empty()) {
    return errors::NotFound("Cannot deregister ops that are not registered: ",
                            StrJoin(missing, ", "),
                            "; nothing was removed. Check the names with "
                            "OpRegistry::GetRegisteredOps().");
  }
  size_t removed = 0;
  for (const std::string& name : op_names) removed += state_->ops.erase(name);
  if (removed > 0) generation_.fetch_add(1, std::memory_order_acq_rel);
  return OkStatus();
}

Status OpRegistry::RemoveBatch(uint64_t batch) {
  mutex_lock lock(state_->mu);
  size_t removed = 0;
  for (auto it = state_->ops.begin(); it != state_->ops.end();) {
    if (it->second.batch == batch) {
      it = state_->ops.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  if (removed > 0) generation_.fetch_add(1, std::memory_order_acq_rel);
  return OkStatus();
}

Status OpRegistry::DeregisterLibrary(const std::string& library,
                                     std::vector<std::string>* removed) {
  if (library.empty()) {
    return errors::InvalidArgument(
        "DeregisterLibrary needs a library path; ops linked into the program "
        "(empty library) can only be removed by name with Deregister()");
  }
  std::vector<std::string> names;
  {
    mutex_lock lock(state_->mu);
    for (auto it = state_->ops.begin(); it != state_->ops.end();) {
      if (it->second.data->origin.library == library) {
        names.push_back(it->first);
        it = state_->ops.erase(it);
      } else {
        ++it;
      }
    }
    if (!names.empty()) generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  if (removed != nullptr) {
    std::sort(names.begin(), names.end());
    *removed = std::move(names);
  }
  return OkStatus();
}

const OpRegistrationData* OpRegistry::LookUp(
    const std::string& op_type_name) const {
  shared_lock lock(state_->mu);
  auto it = state_->ops.find(op_type_name);
  return it == state_->ops.end() ? nullptr : it->second.data.get();
}

Status OpRegistry::LookUp(const std::string& op_type_name,
                          const OpRegistrationData** op_reg_data) const {
  *op_reg_data = LookUp(op_type_name);
  if (*op_reg_data != nullptr) return OkStatus();
  return NotFound(op_type_name);
}

Status OpRegistry::NotFound(const std::string& op_type_name) const {
  std::vector<std::string> close_names;
  {
    shared_lock lock(state_->mu);
    close_names = CloseNames(op_type_name, state_->ops);
  }
  std::string extra;
  if (is_global_) {
    const size_t pending = NumPendingOpRegistrations();
    if (pending > 0) {
      extra = StrCat(
          " Note: ", pending,
          " op registration(s) are pending and not committed to the global "
          "registry (made after its first use, e.g. by a library opened with "
          "dlopen()); commit them with CommitPendingOpRegistrations().");
    }
  }
  return OpNotFound(op_type_name, close_names, extra);
}

void OpRegistry::GetRegisteredOps(std::vector<OpDef>* op_defs) const {
  if (op_defs == nullptr) return;
  OpList list;
  Export(true, &list);
  op_defs->reserve(op_defs->size() + list.op_size());
  for (OpDef& def : *list.mutable_op()) op_defs->push_back(std::move(def));
}

void OpRegistry::GetOpRegistrationData(
    std::vector<OpRegistrationData>* op_data) const {
  if (op_data == nullptr) return;
  shared_lock lock(state_->mu);
  std::vector<const OpRegistrationData*> sorted;
  sorted.reserve(state_->ops.size());
  for (const auto& item : state_->ops) sorted.push_back(item.second.data.get());
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->op_def.name() < b->op_def.name();
  });
  op_data->reserve(op_data->size() + sorted.size());
  for (const OpRegistrationData* data : sorted) op_data->push_back(*data);
}

void OpRegistry::Export(bool include_internal, OpList* ops) const {
  if (ops == nullptr) return;
  auto* out = ops->mutable_op();
  out->Clear();
  shared_lock lock(state_->mu);
  std::vector<std::pair<std::string_view, const OpDef*>> sorted;
  sorted.reserve(state_->ops.size());
  for (const auto& item : state_->ops) {
    if (include_internal || item.first.empty() || item.first[0] != '_') {
      sorted.emplace_back(item.first, &item.second.data->op_def);
    }
  }
  std::sort(sorted.begin(), sorted.end());
  out->Reserve(static_cast<int>(sorted.size()));
  for (const auto& item : sorted) *out->Add() = *item.second;
}

std::string OpRegistry::DebugString(bool include_internal) const {
  OpList list;
  Export(include_internal, &list);
  std::string out;
  for (const OpDef& def : list.op()) {
    out += SummarizeOpDef(def);
    out += "\n";
  }
  return out;
}

Status OpRegistry::SetWatcher(const Watcher& watcher) {
  mutex_lock lock(state_->mu);
  if (state_->watcher && watcher) {
    return errors::AlreadyExists(
        "Cannot over-write a valid watcher with another. Remove the installed "
        "one first with SetWatcher(nullptr).");
  }
  state_->watcher = watcher;
  return OkStatus();
}

size_t OpRegistry::size() const {
  shared_lock lock(state_->mu);
  return state_->ops.size();
}

// OpListOpRegistry ------------------------------------------------------------

struct OpListOpRegistry::Index {
  std::unordered_map<std::string, std::unique_ptr<const OpRegistrationData>>
      ops;
};

OpListOpRegistry::OpListOpRegistry() : index_(std::make_unique<Index>()) {}
OpListOpRegistry::~OpListOpRegistry() = default;

OpListOpRegistry::OpListOpRegistry(const OpList* op_list)
    : OpListOpRegistry() {
  if (op_list == nullptr) return;
  index_->ops.reserve(op_list->op_size());
  for (const OpDef& def : op_list->op()) {
    auto data = std::make_unique<OpRegistrationData>(def);
    if (!index_->ops.emplace(def.name(), std::move(data)).second) {
      LOG(WARNING) << "OpList holds op '" << PrintableName(def.name())
                   << "' more than once; keeping the first";
    }
  }
}

StatusOr<std::unique_ptr<OpListOpRegistry>> OpListOpRegistry::Create(
    const OpList& op_list) {
  std::unique_ptr<OpListOpRegistry> registry(new OpListOpRegistry);
  registry->index_->ops.reserve(op_list.op_size());
  std::unordered_map<std::string_view, int> first_index;
  for (int i = 0; i < op_list.op_size(); ++i) {
    const OpDef& def = op_list.op(i);
    Status s = ValidateOpDef(def);
    if (!s.ok()) {
      return errors::AppendToMessage(s, "\n\tin entry #", i,
                                     " of the OpList (op '",
                                     PrintableName(def.name()), "')");
    }
    auto [it, inserted] = first_index.emplace(def.name(), i);
    if (!inserted) {
      return errors::AlreadyExists(
          "Op with name '", PrintableName(def.name()),
          "' appears twice in the OpList (entries #", it->second, " and #", i,
          "); remove one of them.");
    }
    registry->index_->ops.emplace(def.name(),
                             std::make_unique<OpRegistrationData>(def));
  }
  return registry;
}

const OpRegistrationData* OpListOpRegistry::LookUp(
    const std::string& op_type_name) const {
  auto it = index_->ops.find(op_type_name);
  return it == index_->ops.end() ? nullptr : it->second.get();
}

Status OpListOpRegistry::LookUp(const std::string& op_type_name,
                                const OpRegistrationData** op_reg_data) const {
  *op_reg_data = LookUp(op_type_name);
  if (*op_reg_data != nullptr) return OkStatus();
  return OpNotFound(op_type_name, CloseNames(op_type_name, index_->ops), "");
}

size_t OpListOpRegistry::size() const { return index_->ops.size(); }

// LoadOpListFromTextFile ------------------------------------------------------

namespace {

class CollectErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (errors_.size() < kMaxErrors) {
      // The parser counts from 0; editors count from 1.
      errors_.push_back(StrCat(line + 1, ":", column + 1, ": ", message));
    }
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  static constexpr size_t kMaxErrors = 10;
  std::vector<std::string> errors_;
};

}  // namespace

Status LoadOpListFromTextFile(const std::string& path, OpList* op_list) {
  if (op_list == nullptr) {
    return errors::InvalidArgument(
        "LoadOpListFromTextFile needs an OpList to fill; got null");
  }
  std::string text;
  OPKIT_RETURN_IF_ERROR(ReadFileToString(path, &text));
  google::protobuf::TextFormat::Parser parser;
  CollectErrors collector;
  parser.RecordErrorsTo(&collector);
  OpList parsed;
  if (!parser.ParseFromString(text, &parsed)) {
    return errors::InvalidArgument(
        "Could not parse '", path,
        "' as an OpList in protobuf text format: ",
        collector.errors().empty() ? std::string("unknown error")
                                   : StrJoin(collector.errors(), "; "),
        ". The file should hold `op { name: ... }` entries, as TensorFlow's "
        "ops.pbtxt does.");
  }
  *op_list = std::move(parsed);
  return OkStatus();
}

}  // namespace opkit

// Benchmarks of op registration and lookup over TensorFlow's 1430 public core
// ops (tests/testdata/tensorflow/registrations.jsonl).
//
//   ./op_registry_bench
//
// The data comes from the repository's tests/testdata/ ($OPKIT_TESTDATA_DIR
// overrides it). Linked with benchmark::benchmark_main (no main here).
//
// What is measured:
//   BM_FinalizeConformanceSet         OpDefBuilder::Finalize of every record.
//   BM_BuildAndRegisterConformanceSet Finalize + RegisterBatch into a fresh
//                                     registry (ValidateOpDef included).
//   BM_CommitPendingConformanceSet    the REGISTER_OP path: append every
//                                     builder to the pending list, then
//                                     CommitPendingOpRegistrations().
//   BM_LookUpHit*, BM_LookUpMiss*     lookups in a registry holding the set.
//   BM_Export                         Export(true) of the whole set.
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "opkit/core/errors.h"
#include "opkit/core/status.h"
#include "opkit/op/full_type_util.h"
#include "opkit/op/op.h"
#include "opkit/op/op_registry.h"
#include "opkit/full_type.pb.h"

namespace opkit {
namespace {

// One REGISTER_OP chain of registrations.jsonl.
struct Record {
  std::string op;
  std::vector<std::string> attrs, inputs, outputs, flags;
  bool deprecated = false;
  int deprecation_version = 0;
  std::string deprecation_explanation;
  std::string type_ctor_kind, type_ctor_type_id, type_ctor_var;
  std::string source;
  int line = 0;
};

std::string TestDataDir() {
  if (const char* dir = std::getenv("OPKIT_TESTDATA_DIR"); dir && *dir) {
    return dir;
  }
  // The repository's tests/testdata/, as bench/CMakeLists.txt configured it.
  return OPKIT_DEFAULT_TESTDATA_DIR;
}

std::vector<std::string> Strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

Status LoadRecords(std::vector<Record>* records) {
  const std::string path =
      TestDataDir() + "/tensorflow/registrations.jsonl";
  std::ifstream in(path);
  if (!in) {
    return errors::NotFound("Cannot open '", path,
                            "'; set OPKIT_TESTDATA_DIR to the repository's tests/testdata");
  }
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr,
                                             /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("op")) {
      return errors::InvalidArgument("Line ", line_number, " of '", path,
                                     "' is not a registration record");
    }
    Record r;
    r.op = j.value("op", "");
    r.attrs = Strings(j, "attrs");
    r.inputs = Strings(j, "inputs");
    r.outputs = Strings(j, "outputs");
    r.flags = Strings(j, "flags");
    r.source = j.value("source", "");
    r.line = j.value("line", 0);
    if (auto dep = j.find("deprecation"); dep != j.end() && dep->is_object()) {
      r.deprecated = true;
      r.deprecation_version = dep->value("version", 0);
      r.deprecation_explanation = dep->value("explanation", "");
    }
    if (auto tc = j.find("type_constructor");
        tc != j.end() && tc->is_object()) {
      r.type_ctor_kind = tc->value("kind", "");
      r.type_ctor_type_id = tc->value("type_id", "");
      r.type_ctor_var = tc->value("var", "");
    }
    records->push_back(std::move(r));
  }
  return OkStatus();
}

// The records, loaded once; empty (with the reason in *status) on error.
const std::vector<Record>& Records(Status* status) {
  static Status* load_status = new Status();
  static const std::vector<Record>* records = [] {
    auto* out = new std::vector<Record>;
    *load_status = LoadRecords(out);
    return out;
  }();
  *status = *load_status;
  return *records;
}

OpDefBuilder BuilderFor(const Record& r) {
  OpDefBuilder b(r.op);
  for (const auto& a : r.attrs) b.Attr(a);
  for (const auto& i : r.inputs) b.Input(i);
  for (const auto& o : r.outputs) b.Output(o);
  for (const auto& f : r.flags) {
    if (f == "SetIsCommutative") b.SetIsCommutative();
    if (f == "SetIsAggregate") b.SetIsAggregate();
    if (f == "SetIsStateful") b.SetIsStateful();
    if (f == "SetDoNotOptimize") b.SetDoNotOptimize();
    if (f == "SetAllowsUninitializedInput") b.SetAllowsUninitializedInput();
    if (f == "SetIsDistributedCommunication") b.SetIsDistributedCommunication();
  }
  if (r.deprecated) b.Deprecated(r.deprecation_version, r.deprecation_explanation);
  FullTypeId type_id;
  if (r.type_ctor_kind == "Unary" &&
      FullTypeId_Parse(r.type_ctor_type_id, &type_id)) {
    b.SetTypeConstructor(full_type::Unary(type_id, r.type_ctor_var));
  }
  b.SetOrigin(RegistrationOrigin{r.source, r.line, std::string()});
  return b;
}

// Skips the benchmark (returning false) when the data is missing.
bool LoadOrSkip(benchmark::State& state, const std::vector<Record>** out) {
  Status s;
  *out = &Records(&s);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return false;
  }
  return true;
}

void BM_FinalizeConformanceSet(benchmark::State& state) {
  const std::vector<Record>* records;
  if (!LoadOrSkip(state, &records)) return;
  std::vector<OpDefBuilder> builders;
  for (const Record& r : *records) builders.push_back(BuilderFor(r));
  for (auto _ : state) {
    for (const OpDefBuilder& b : builders) {
      OpRegistrationData data;
      Status s = b.Finalize(&data);
      if (!s.ok()) {
        state.SkipWithError(s.ToString().c_str());
        return;
      }
      benchmark::DoNotOptimize(data);
    }
  }
  state.SetItemsProcessed(state.iterations() * builders.size());
}
BENCHMARK(BM_FinalizeConformanceSet)->Unit(benchmark::kMillisecond);

void BM_BuildAndRegisterConformanceSet(benchmark::State& state) {
  const std::vector<Record>* records;
  if (!LoadOrSkip(state, &records)) return;
  std::vector<OpRegistrationDataFactory> factories;
  for (const Record& r : *records) {
    factories.push_back([b = BuilderFor(r)](OpRegistrationData* data) {
      return b.Finalize(data);
    });
  }
  for (auto _ : state) {
    OpRegistry registry;
    Status s = registry.RegisterBatch(factories);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(registry.size());
  }
  state.SetItemsProcessed(state.iterations() * factories.size());
}
BENCHMARK(BM_BuildAndRegisterConformanceSet)->Unit(benchmark::kMillisecond);

void BM_CommitPendingConformanceSet(benchmark::State& state) {
  const std::vector<Record>* records;
  if (!LoadOrSkip(state, &records)) return;
  for (auto _ : state) {
    for (const Record& r : *records) {
      AddPendingOpRegistration(BuilderFor(r),
                               RegistrationOrigin{r.source, r.line, ""});
    }
    OpRegistry registry;
    Status s = CommitPendingOpRegistrations(&registry, "libbench.so");
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(registry.size());
  }
  state.SetItemsProcessed(state.iterations() * records->size());
}
BENCHMARK(BM_CommitPendingConformanceSet)->Unit(benchmark::kMillisecond);

// A registry holding the conformance set, shared by the lookup benchmarks.
const OpRegistry* FullRegistry(benchmark::State& state) {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    Status s;
    std::vector<OpRegistrationDataFactory> factories;
    for (const Record& rec : Records(&s)) {
      factories.push_back([b = BuilderFor(rec)](OpRegistrationData* data) {
        return b.Finalize(data);
      });
    }
    if (s.ok()) s = r->RegisterBatch(factories);
    if (!s.ok() || r->size() == 0) {
      delete r;
      return static_cast<OpRegistry*>(nullptr);
    }
    return r;
  }();
  if (registry == nullptr) state.SkipWithError("could not build the registry");
  return registry;
}

void BM_LookUpHit(benchmark::State& state) {
  const OpRegistry* registry = FullRegistry(state);
  if (registry == nullptr) return;
  const std::string name = "MatMul";
  const OpRegistrationData* data = nullptr;
  for (auto _ : state) {
    Status s = registry->LookUp(name, &data);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(data);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LookUpHit)->Threads(1)->Threads(2)->UseRealTime();

void BM_LookUpHitAllNames(benchmark::State& state) {
  const OpRegistry* registry = FullRegistry(state);
  if (registry == nullptr) return;
  std::vector<OpDef> defs;
  registry->GetRegisteredOps(&defs);
  std::vector<std::string> names;
  for (const OpDef& d : defs) names.push_back(d.name());
  size_t i = 0;
  for (auto _ : state) {
    const OpRegistrationData* data = registry->LookUp(names[i]);
    benchmark::DoNotOptimize(data);
    if (++i == names.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LookUpHitAllNames);

void BM_LookUpMiss(benchmark::State& state) {
  const OpRegistry* registry = FullRegistry(state);
  if (registry == nullptr) return;
  const std::string name = "NoSuchOpAnywhere";
  for (auto _ : state) {
    const OpRegistrationData* data = registry->LookUp(name);
    benchmark::DoNotOptimize(data);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LookUpMiss);

// The Status form on a miss builds TensorFlow's message and looks for close
// names ("Did you mean"), so it is the slow path by design.
void BM_LookUpMissWithStatus(benchmark::State& state) {
  const OpRegistry* registry = FullRegistry(state);
  if (registry == nullptr) return;
  const std::string name = "MatMull";
  const OpRegistrationData* data = nullptr;
  for (auto _ : state) {
    Status s = registry->LookUp(name, &data);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LookUpMissWithStatus)->Unit(benchmark::kMicrosecond);

void BM_Export(benchmark::State& state) {
  const OpRegistry* registry = FullRegistry(state);
  if (registry == nullptr) return;
  for (auto _ : state) {
    OpList list;
    registry->Export(true, &list);
    benchmark::DoNotOptimize(list);
  }
}
BENCHMARK(BM_Export)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace opkit

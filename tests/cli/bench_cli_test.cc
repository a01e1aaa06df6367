// `opkit bench`, run as a user runs it: the latency and op-type tables, the
// JSON fields, the Chrome trace (parsed back), --load (before the command:
// the model needs the library; after it: the built-in kernels compared with
// the library's), and the errors.
// testdata/conv_dense.pbtxt (Conv2D, BiasAdd, Relu, Reshape, MatMul, Mean)
// is the model; graphs for the error cases are written by the tests.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "opkit/core/machine_resources.h"
#include "opkit/core/env.h"
#include "opkit/testing/status_matchers.h"
#include "tests/cli/cli_runner.h"

namespace opkit {
namespace {

using ::opkit::testing::CliResult;
using ::opkit::testing::IsOk;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using json = nlohmann::json;

const std::string kModel = std::string(OPKIT_CLI_TESTDATA) + "/conv_dense.pbtxt";

// The nodes of conv_dense.pbtxt that run in a step (x is fed, not run).
const std::set<std::string> kRunNodes = {"w",    "conv", "b",    "bias", "relu", "flat_shape",
                                         "flat", "w2",   "y",    "axes", "pool"};

class BenchCliTest : public ::opkit::testing::CliRunnerTest {
 protected:
  // Writes `text` to a file of the test's folder; returns its path.
  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = Path(name);
    EXPECT_THAT(WriteStringToFile(path, text), IsOk());
    return path;
  }
};

TEST_F(BenchCliTest, PrintsLatencyAndTables) {
  CliResult r = Run({"bench", kModel, "--input-shape", "x=2,8,8,3", "--runs", "5", "--warmup",
                     "1", "--top", "3", "--no-optimize"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // no progress bar: stderr is no terminal
  EXPECT_THAT(r.out, HasSubstr("input: x float [2,8,8,3]"));
  EXPECT_THAT(r.out, HasSubstr("fetch: y:0, pool:0"));  // the two sinks
  // Both default to one per CPU, printed resolved.
  const std::string cpus = std::to_string(NumSchedulableCpus());
  EXPECT_THAT(r.out, HasSubstr("threads: " + cpus + " intra-op, " + cpus + " inter-op"));
  EXPECT_THAT(r.out, HasSubstr("warm-up: 1 run ("));
  // In us when a run takes under a millisecond (as here, unless the machine
  // is very busy), in ms otherwise.
  EXPECT_THAT(r.out, ContainsRegex("latency over 5 runs \\((us|ms)\\): min "));
  EXPECT_THAT(r.out, AllOf(HasSubstr(", median "),
                           HasSubstr(", mean "), HasSubstr(", p90 "), HasSubstr(", max ")));
  EXPECT_THAT(r.out, HasSubstr("time per op type"));
  EXPECT_THAT(r.out, ContainsRegex("op type  nodes  (us|ms) +share  (us|ms) per node"));
  // One row per op type, with its node count.
  for (const char* row : {"\n  Conv2D   1  ", "\n  BiasAdd  1  ", "\n  Relu     1  ",
                          "\n  MatMul   1  ", "\n  Mean     1  ", "\n  Reshape  1  ",
                          "\n  Const    5  "}) {
    EXPECT_THAT(r.out, HasSubstr(row)) << r.out;
  }
  EXPECT_THAT(r.out, HasSubstr("slowest 3 nodes (mean per run):"));
  const std::string slowest = r.out.substr(r.out.find("slowest 3 nodes"));
  EXPECT_EQ(std::count(slowest.begin(), slowest.end(), '\n'), 5) << slowest;
}

// By default the graph optimizer runs first, as in `opkit run`: the
// convolution, its bias and its Relu are timed as one _FusedConv2D.
TEST_F(BenchCliTest, TimesTheOptimizedGraphByDefault) {
  CliResult r = Run({"bench", kModel, "--input-shape", "x=2,8,8,3", "--runs", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = ParseJson(r.out);
  std::map<std::string, int> nodes;
  for (const json& op : j["op_types"]) nodes[op["op"]] = op["nodes"];
  EXPECT_EQ(nodes["_FusedConv2D"], 1) << r.out;
  EXPECT_EQ(nodes.count("BiasAdd"), 0u) << r.out;
  EXPECT_EQ(nodes.count("Relu"), 0u) << r.out;
}

TEST_F(BenchCliTest, JsonHasEveryNumber) {
  CliResult r = Run({"bench", kModel, "--input-shape", "x=[2,8,8,3]", "--runs", "4", "--top",
                     "2", "--threads", "2", "--json", "--no-optimize"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = ParseJson(r.out);
  EXPECT_EQ(j["model"], kModel);
  EXPECT_EQ(j["nodes"], 12);
  ASSERT_EQ(j["inputs"].size(), 1u);
  EXPECT_EQ(j["inputs"][0]["name"], "x");
  EXPECT_EQ(j["inputs"][0]["dtype"], "float");
  EXPECT_EQ(j["inputs"][0]["shape"], json::array({2, 8, 8, 3}));
  EXPECT_EQ(j["fetches"], json::array({"y:0", "pool:0"}));
  EXPECT_EQ(j["threads"]["intra_op"], 2);
  EXPECT_EQ(j["threads"]["inter_op"], NumSchedulableCpus());  // the default
  EXPECT_EQ(j["warmup_ms"].size(), 2u);  // the default
  EXPECT_EQ(j["runs"], 4);
  ASSERT_EQ(j["run_ms"].size(), 4u);
  const json& l = j["latency_ms"];
  const double min = l["min"], median = l["median"], mean = l["mean"], p90 = l["p90"],
               max = l["max"];
  EXPECT_GT(min, 0);
  EXPECT_LE(min, median);
  EXPECT_LE(median, p90);
  EXPECT_LE(p90, max);
  EXPECT_LE(min, mean);
  EXPECT_LE(mean, max);
  double sum = 0;
  for (double ms : j["run_ms"]) {
    EXPECT_GE(ms, min);
    EXPECT_LE(ms, max);
    sum += ms;
  }
  EXPECT_NEAR(sum / 4, mean, 1e-9);

  std::map<std::string, int> nodes;
  double share = 0, total_ms = 0;
  for (const json& op : j["op_types"]) {
    nodes[op["op"]] = op["nodes"];
    share += op["share"].get<double>();
    total_ms += op["total_ms"].get<double>();
    EXPECT_NEAR(op["ms_per_node"].get<double>() * op["nodes"].get<double>(),
                op["total_ms"].get<double>(), 1e-9);
  }
  EXPECT_EQ(nodes, (std::map<std::string, int>{{"BiasAdd", 1},
                                               {"Const", 5},
                                               {"Conv2D", 1},
                                               {"MatMul", 1},
                                               {"Mean", 1},
                                               {"Relu", 1},
                                               {"Reshape", 1}}));
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_NEAR(total_ms, j["node_time_ms"].get<double>(), 1e-9);
  ASSERT_EQ(j["slowest_nodes"].size(), 2u);
  EXPECT_GE(j["slowest_nodes"][0]["ms"].get<double>(), j["slowest_nodes"][1]["ms"].get<double>());
  for (const json& n : j["slowest_nodes"]) {
    EXPECT_TRUE(kRunNodes.count(n["node"].get<std::string>())) << n;
    EXPECT_TRUE(n.contains("op") && n.contains("share")) << n;
  }
}

TEST_F(BenchCliTest, TraceHasOneEventPerNodePerRun) {
  const std::string trace = Path("trace.json");
  CliResult r = Run({"bench", kModel, "--input-shape", "x=1,8,8,3", "--runs", "3",
                     "--inter-op-threads", "2", "--trace", trace, "--no-optimize"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("trace: " + trace));
  json j = ParseJson(ReadAll(trace));
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::map<int, std::multiset<std::string>> by_run;
  std::set<int> tids, named_tids;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") named_tids.insert(e["tid"].get<int>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X") << e;
    EXPECT_EQ(e["pid"], 1);
    EXPECT_GE(e["ts"].get<double>(), 0);
    EXPECT_GE(e["dur"].get<double>(), 0);
    EXPECT_EQ(e["name"], e["args"]["name"]);
    EXPECT_EQ(e["cat"], e["args"]["op"]);
    tids.insert(e["tid"].get<int>());
    by_run[e["args"]["run"].get<int>()].insert(e["args"]["name"].get<std::string>());
    if (e["args"]["name"] == "conv") {
      EXPECT_EQ(e["args"]["op"], "Conv2D");
    }
  }
  ASSERT_EQ(by_run.size(), 3u);
  for (const auto& [run, names] : by_run) {
    EXPECT_EQ(names, std::multiset<std::string>(kRunNodes.begin(), kRunNodes.end())) << run;
  }
  EXPECT_FALSE(tids.empty());
  EXPECT_EQ(tids, named_tids);  // every thread that ran a node has a name
}

TEST_F(BenchCliTest, FetchPicksWhatRunsAndWhichInputsAreNeeded) {
  // w2 needs no input: x's unknown batch dimension does not matter.
  CliResult r = Run({"bench", kModel, "--fetch", "w2", "--runs", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = ParseJson(r.out);
  EXPECT_EQ(j["inputs"], json::array());
  EXPECT_EQ(j["fetches"], json::array({"w2:0"}));
  ASSERT_EQ(j["op_types"].size(), 1u);
  EXPECT_EQ(j["op_types"][0]["op"], "Const");
}

TEST_F(BenchCliTest, TfjsModelFetchesItsSignatureOutputs) {
  const std::string model = std::string(OPKIT_CLI_TESTDATA) + "/tfjs_matmul_relu";
  CliResult r = Run({"bench", model, "--input-shape", "x=4,2", "--runs", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = ParseJson(r.out);
  EXPECT_EQ(j["fetches"], json::array({"y:0"}));
  EXPECT_EQ(j["inputs"][0]["shape"], json::array({4, 2}));
  std::set<std::string> ops;
  for (const json& op : j["op_types"]) ops.insert(op["op"].get<std::string>());
  EXPECT_EQ(ops, (std::set<std::string>{"Const", "MatMul", "Relu"}));
}

TEST_F(BenchCliTest, UsesKernelsOfALoadedLibrary) {
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_ZERO_OUT_LIB);
  const std::string graph = WriteFile("zero_out.pbtxt", R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "shape" value { shape { dim { size: 16 } } } }
    }
    node { name: "z" op: "ZeroOut" input: "x" }
  )pb");
  CliResult r = Run({"--load", OPKIT_ZERO_OUT_LIB, "bench", graph, "--runs", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = ParseJson(r.out);
  EXPECT_EQ(j["inputs"][0]["dtype"], "int32");
  ASSERT_EQ(j["op_types"].size(), 1u);
  EXPECT_EQ(j["op_types"][0]["op"], "ZeroOut");
  // Without the library the op is unknown.
  ExpectError(Run({"bench", graph}), "ZeroOut");
}

TEST_F(BenchCliTest, Errors) {
  ExpectError(Run({"bench", Path("missing.pb")}), "cannot read GraphDef");
  // An unknown dimension names the input and says what to pass.
  ExpectError(Run({"bench", kModel}),
              "input 'x' has shape [?,8,8,3], with an unknown dimension; pass --input-shape "
              "x=1,8,8,3");
  ExpectError(Run({"bench", kModel, "--runs", "0"}),
              "--runs value 0 is out of range; use a value in [1,");
  ExpectError(Run({"bench", kModel, "--runs", "many"}), "--runs value 'many' is not an integer");
  ExpectError(Run({"bench", kModel, "--warmup", "-1"}), "--warmup value -1 is out of range");
  ExpectUsage(Run({"bench", kModel, "--input-shape", "x"}), "not of the form NAME=SHAPE");
  ExpectUsage(Run({"bench"}), "missing argument MODEL");
  ExpectError(Run({"bench", kModel, "--input-shape", "x=1,9,8,3"}),
              "does not fit input 'x' of shape [?,8,8,3]");
  ExpectError(Run({"bench", kModel, "--input-shape", "x=?,8,8,3"}),
              "leaves a dimension unknown; give every dimension, e.g. x=1,8,8,3");
  ExpectError(Run({"bench", kModel, "--input-shape", "y=1,8,8,3"}),
              "'y', which is not a Placeholder of the graph; its Placeholders are: x");
  ExpectError(Run({"bench", kModel, "--input-shape", "x=1,8,8,3", "--fetch", "nope"}),
              "--fetch nope:0 names no node");
  ExpectError(Run({"bench", kModel, "--input-shape", "x=1000000,8000,8,3"}),
              "does not fit");
  ExpectError(Run({"bench", kModel, "--input-shape", "x=10000000,8,8,3"}),
              "at most 4 GiB");
  ExpectError(Run({"bench", kModel, "--input-shape", "x=1,8,8,3", "--trace",
                   Path("no/such/folder/trace.json")}),
              "cannot write the --trace file");

  const std::string strings = WriteFile("strings.pbtxt", R"pb(
    node {
      name: "s"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "shape" value { shape { dim { size: 2 } } } }
    }
    node {
      name: "id"
      op: "Identity"
      input: "s"
      attr { key: "T" value { type: DT_STRING } }
    }
  )pb");
  ExpectError(Run({"bench", strings}), "input 's' has dtype string");
  const std::string no_sink = WriteFile("no_sink.pbtxt", R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
  )pb");
  ExpectError(Run({"bench", no_sink}), "give --fetch NAME");
  const std::string unknown_rank = WriteFile("unknown_rank.pbtxt", R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "r"
      op: "Relu"
      input: "x"
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb");
  ExpectError(Run({"bench", unknown_rank}), "input 'x' has shape ?, with an unknown rank");
  // A kernel error stops the benchmark at the run it happens in, and leaves
  // no trace file behind.
  const std::string fails = WriteFile("fails.pbtxt", R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 2 } } } }
    }
    node {
      name: "five"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                           int_val: 5 } } }
    }
    node {
      name: "r"
      op: "Reshape"
      input: "x"
      input: "five"
      attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "Tshape" value { type: DT_INT32 } }
    }
  )pb");
  ExpectError(Run({"bench", fails, "--trace", Path("fails.json")}),
              "warm-up run 1 of 2 failed: ");
  EXPECT_FALSE(FileExists(Path("fails.json")));
  ExpectError(Run({"bench", fails, "--warmup", "0", "--runs", "3"}), "run 1 of 3 failed: ");
  CliResult r = Run({"bench", unknown_rank, "--input-shape", "x=3", "--runs", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --- bench MODEL --load LIB: built-in, loaded, unloaded ---------------------------

const std::string kMatMulRelu = std::string(OPKIT_CLI_TESTDATA) + "/matmul_relu.pbtxt";

TEST_F(BenchCliTest, LoadComparesTheLibrarysKernelsWithTheBuiltInOnes) {
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_PRIORITY_MATMUL_LIB);
  // priority_matmul's MatMul (a loop, priority 1) wins while loaded; on
  // these small values it computes the same products. --no-optimize keeps
  // MatMul apart from the Relu after it.
  const std::vector<std::string> args = {"bench", kMatMulRelu, "--input-shape", "x=4,2",
                                         "--runs", "3", "--warmup", "1", "--no-optimize",
                                         "--load", OPKIT_PRIORITY_MATMUL_LIB};
  CliResult r = Run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("library kernels run: MatMul (1 node)\n"));
  EXPECT_THAT(r.out, ContainsRegex("phase +runs +median (us|ms) +p90 (us|ms) +speed-up +"
                                   "max abs diff +outputs \\(tolerance 0.0001\\)"));
  EXPECT_THAT(r.out, ContainsRegex("\n  built-in +3 +[0-9.]+ +[0-9.]+ +1.00x +- +reference\n"));
  EXPECT_THAT(r.out,
              ContainsRegex("\n  loaded +3 +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.e-]+ +match\n"));
  EXPECT_THAT(r.out, ContainsRegex("\n  unloaded +3 +[0-9.]+ +[0-9.]+ +[0-9.]+x +0 +match\n"));
  EXPECT_THAT(r.out, ContainsRegex("op type +nodes +built-in +loaded +unloaded\n"));
  EXPECT_THAT(r.out, ContainsRegex("\n  MatMul +1 +[0-9.]+ +[0-9.]+ +[0-9.]+\n"));

  // --trace records the loaded phase: one event per node per timed run.
  std::vector<std::string> traced = args;
  traced.insert(traced.end(), {"--trace", Path("t.json")});
  r = Run(traced);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\ntrace (loaded phase): " + Path("t.json")));
  int matmul_events = 0;
  const json trace = ParseJson(ReadAll(Path("t.json")));
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "matmul") ++matmul_events;
  }
  EXPECT_EQ(matmul_events, 3);

  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  r = Run(json_args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = ParseJson(r.out);
  ASSERT_EQ(j["libraries"].size(), 1u);
  EXPECT_THAT(j["libraries"][0].get<std::string>(), HasSubstr("priority_matmul"));
  EXPECT_EQ(j["library_kernels"], json::parse(R"([{"op": "MatMul", "nodes": 1}])"));
  EXPECT_EQ(j["tolerance"], 1e-4);
  EXPECT_EQ(j["outputs_match"], true);
  ASSERT_EQ(j["phases"].size(), 3u);
  const std::vector<std::string> names = {"built-in", "loaded", "unloaded"};
  for (size_t i = 0; i < 3; ++i) {
    const json& p = j["phases"][i];
    EXPECT_EQ(p["phase"], names[i]);
    EXPECT_EQ(p["runs"], 3);
    EXPECT_EQ(p["run_ms"].size(), 3u);
    EXPECT_EQ(p["warmup_ms"].size(), 1u);
    EXPECT_LE(p["latency_ms"]["median"].get<double>(), p["latency_ms"]["p90"].get<double>());
    EXPECT_GT(p["speedup"].get<double>(), 0);
    EXPECT_EQ(p.contains("max_abs_diff"), i > 0);
    if (i > 0) {
      EXPECT_EQ(p["outputs_match"], true);
    }
  }
  EXPECT_LE(j["phases"][1]["max_abs_diff"].get<double>(), 1e-6);
  // The built-in kernel again: the very same numbers.
  EXPECT_EQ(j["phases"][2]["max_abs_diff"], 0.0);
}

TEST_F(BenchCliTest, LoadReportsOutputsThatDiffer) {
  // cli_test_wrong_relu's Relu adds 1: the loaded phase is off by exactly 1,
  // the unloaded one is right again; the report is printed, then the error.
  const std::vector<std::string> args = {"bench", kMatMulRelu, "--input-shape", "x=4,2",
                                         "--runs", "2", "--no-optimize", "--load",
                                         OPKIT_CLI_TEST_WRONG_RELU_LIB};
  CliResult r = Run(args);
  ExpectError(r,
              "the outputs of the loaded phase differ from the built-in ones: y:0 element 0 is ");
  EXPECT_THAT(r.err, HasSubstr("(--tolerance sets the tolerance)"));
  EXPECT_THAT(r.out, HasSubstr("library kernels run: Relu (1 node)\n"));
  EXPECT_THAT(r.out, ContainsRegex("\n  loaded +2 +[0-9.]+ +[0-9.]+ +[0-9.]+x +1 +DIFFER\n"));
  EXPECT_THAT(r.out, ContainsRegex("\n  unloaded +2 +[0-9.]+ +[0-9.]+ +[0-9.]+x +0 +match\n"));

  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  r = Run(json_args);
  EXPECT_EQ(r.exit_code, 1);
  json j = ParseJson(r.out);
  EXPECT_EQ(j["outputs_match"], false);
  EXPECT_NEAR(j["phases"][1]["max_abs_diff"].get<double>(), 1.0, 1e-6);
  EXPECT_EQ(j["phases"][1]["outputs_match"], false);
  EXPECT_THAT(j["phases"][1]["mismatch"].get<std::string>(), HasSubstr("y:0 element 0 is "));
  EXPECT_EQ(j["phases"][2]["outputs_match"], true);

  // A tolerance of 1 lets an error of 1 (relative to 1 + |value|) pass.
  std::vector<std::string> tolerant = args;
  tolerant.insert(tolerant.end(), {"--tolerance", "1"});
  r = Run(tolerant);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\n  loaded +2 +[0-9.]+ +[0-9.]+ +[0-9.]+x +1 +match\n"));

  // Optimised, conv_dense's Conv2D, BiasAdd and Relu become one
  // _FusedConv2D: the library's Relu runs nowhere, and the outputs agree.
  r = Run({"bench", kModel, "--input-shape", "x=1,8,8,3", "--runs", "2", "--load",
           OPKIT_CLI_TEST_WRONG_RELU_LIB});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("library kernels run: none (no node of the graph selects them)"));
}

TEST_F(BenchCliTest, LoadErrors) {
  ExpectError(Run({"bench", kMatMulRelu, "--input-shape", "x=4,2", "--load",
                   Path("missing.so")}),
              "missing.so");
  ExpectError(Run({"bench", kMatMulRelu, "--input-shape", "x=4,2", "--load",
                   OPKIT_CLI_TEST_WRONG_RELU_LIB, "--tolerance", "abc"}),
              "--tolerance value 'abc' is not a number >= 0; use e.g. --tolerance 1e-4");
  ExpectError(Run({"bench", kMatMulRelu, "--input-shape", "x=4,2", "--load",
                   OPKIT_CLI_TEST_WRONG_RELU_LIB, "--tolerance", "-1"}),
              "--tolerance value '-1' is not a number >= 0");
  // Loaded before the command, the library would be in the built-in phase.
  ExpectError(Run({"--load", OPKIT_CLI_TEST_WRONG_RELU_LIB, "bench", kMatMulRelu,
                   "--input-shape", "x=4,2", "--load", OPKIT_CLI_TEST_WRONG_RELU_LIB}),
              "the library is already loaded (by opkit --load before the command");
  ExpectError(Run({"bench", kMatMulRelu, "--input-shape", "x=4,2", "--load",
                   OPKIT_CLI_TEST_WRONG_RELU_LIB, "--load", OPKIT_CLI_TEST_WRONG_RELU_LIB}),
              "the library is already loaded");
  ExpectUsage(Run({"bench", kMatMulRelu, "--input-shape", "x=4,2", "--tolerance", "1e-3"}),
              "--tolerance applies to --load's comparison; give --load LIB too");
}

TEST_F(BenchCliTest, Help) {
  CliResult r = Run({"bench", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, AllOf(HasSubstr("usage: opkit bench MODEL"), HasSubstr("--input-shape"),
                           HasSubstr("--trace FILE"), HasSubstr("--inter-op-threads N"),
                           HasSubstr("--load LIB"), HasSubstr("--tolerance X")));
  r = Run({"--help"});
  EXPECT_THAT(r.out, HasSubstr("  bench "));
}

}  // namespace
}  // namespace opkit

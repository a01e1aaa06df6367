// The `opkit` command line, run as a user runs it: each test spawns the real
// binary (OPKIT_CLI_PATH) with arguments and checks its stdout, stderr and
// exit status. Op libraries come from examples/ (zero_out, priority_matmul);
// graphs, op lists and .npy files from testdata/ (the .npy files are written
// by numpy: testdata/make_fixtures.py).
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"
#include "nlohmann/json.hpp"
#include "opkit/core/env.h"
#include "opkit/graph.pb.h"
#include "opkit/graph/graph.h"
#include "opkit/op_def.pb.h"
#include "opkit/testing/status_matchers.h"
#include "tests/cli/skip_without_library.h"

extern char** environ;

namespace opkit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string Data(const std::string& name) {
  return std::string(OPKIT_CLI_TESTDATA) + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::string s;
  ReadFileToString(path, &s).IgnoreError();
  return s;
}

size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/opkit_cli_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << "cannot remove " << dir_;
  }

  // Runs `opkit args...` with stdout and stderr captured in files.
  Result Run(const std::vector<std::string>& args) {
    Result r;
    const std::string out_path = dir_ + "/stdout";
    const std::string err_path = dir_ + "/stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> argv_strings = {OPKIT_CLI_PATH};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, OPKIT_CLI_PATH, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "posix_spawn failed: " << std::strerror(rc);
      return r;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
      r.exit_code = WEXITSTATUS(status);
    } else {
      r.exit_code = 1000 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    r.out = ReadAll(out_path);
    r.err = ReadAll(err_path);
    return r;
  }

  // Expects a user error: exit 1 and one line "opkit: error: ..." on stderr
  // containing `message`.
  void ExpectError(const Result& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_THAT(r.err, StartsWith("opkit: error: "));
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_EQ(CountLines(r.err), 1u) << r.err;
  }
  // Expects bad usage: exit 2, the message and a usage line on stderr.
  void ExpectUsage(const Result& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_THAT(r.err, HasSubstr("usage: opkit"));
    EXPECT_EQ(r.out, "");
  }
  json ParseJson(const Result& r) {
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }

  std::string dir_;
};

// --- help and usage ---------------------------------------------------------

TEST_F(CliTest, MainHelpListsEveryCommand) {
  for (const char* flag : {"--help", "-h", "help"}) {
    Result r = Run({flag});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* cmd :
         {"ops", "op", "kernels", "explain", "load", "run", "shapes", "gradients", "compat"}) {
      EXPECT_THAT(r.out, HasSubstr(std::string("  ") + cmd + " ")) << cmd;
    }
    EXPECT_EQ(r.err, "");
  }
}

TEST_F(CliTest, EveryCommandHasHelp) {
  for (const char* cmd :
       {"ops", "op", "kernels", "explain", "load", "run", "shapes", "gradients", "compat"}) {
    SCOPED_TRACE(cmd);
    Result r = Run({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_THAT(r.out, HasSubstr(std::string("usage: opkit ") + cmd));
    EXPECT_THAT(r.out, HasSubstr("--load LIB"));
    Result h = Run({"help", cmd});
    EXPECT_EQ(h.exit_code, 0);
    EXPECT_EQ(h.out, r.out);
  }
  EXPECT_THAT(Run({"ops", "--help"}).out, HasSubstr("glob"));
  EXPECT_THAT(Run({"explain", "-h"}).out, HasSubstr("T=DT_FLOAT"));
}

TEST_F(CliTest, BadUsageIsExitTwo) {
  ExpectUsage(Run({}), "missing COMMAND");
  ExpectUsage(Run({"opz"}), "did you mean 'ops'?");
  ExpectUsage(Run({"help", "nosuch"}), "unknown command 'nosuch'");
  ExpectUsage(Run({"--bogus", "ops"}), "unknown option '--bogus'");
  ExpectUsage(Run({"--load"}), "'--load' needs a value");
  ExpectUsage(Run({"ops", "--bogus"}), "unknown option '--bogus'");
  ExpectUsage(Run({"ops", "a", "b"}), "unexpected argument 'b'");
  ExpectUsage(Run({"ops", "-v"}), "unknown option '-v'");
  ExpectUsage(Run({"run", "g.pbtxt", "--fetch", "y", "--repaet", "3"}),
              "unknown option '--repaet'; did you mean '--repeat'?");
  ExpectUsage(Run({"ops", "--json=yes"}), "takes no value");
  ExpectUsage(Run({"op"}), "missing argument NAME");
  ExpectUsage(Run({"op", "MatMul", "--signature", "--signature"}), "only once");
  ExpectUsage(Run({"explain", "MatMul", "--device"}), "needs a value");
  ExpectUsage(Run({"explain", "MatMul", "--attr", "T"}), "--attr value 'T' is not of the form NAME=VALUE");
  ExpectUsage(Run({"run", Data("matmul_relu.pbtxt")}), "--fetch NAME or --target NAME");
  ExpectUsage(Run({"run", Data("matmul_relu.pbtxt"), "--fetch", "y", "--feed", "x"}),
              "--feed value 'x'");
  ExpectUsage(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x[5]"}),
              "--feed-shape value 'x[5]'");
  ExpectUsage(Run({"compat", Data("ops_v1.pbtxt")}), "missing argument OLD.pbtxt");
  ExpectUsage(Run({"load"}), "missing argument LIB");
  Result r = Run({"ops", "--bogus"});
  EXPECT_THAT(r.err, HasSubstr("usage: opkit ops [PATTERN]"));
  EXPECT_THAT(r.err, HasSubstr("opkit ops --help"));
}

TEST_F(CliTest, Version) {
  Result r = Run({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("opkit "));
}

// --- ops and op ---------------------------------------------------------------

TEST_F(CliTest, OpsWithGlobAndSubstring) {
  Result r = Run({"ops", "Mat*"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MatMul "));
  EXPECT_THAT(r.out, Not(HasSubstr("BatchMatMul")));
  EXPECT_THAT(r.out, Not(HasSubstr("Relu")));

  r = Run({"ops", "matmul"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("MatMul"));
  EXPECT_THAT(r.out, HasSubstr("BatchMatMul"));

  r = Run({"ops"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, AllOf(HasSubstr("Relu"), HasSubstr("Const"), HasSubstr("MatMul")));

  ExpectError(Run({"ops", "Zzz*"}), "no registered op matches 'Zzz*' (as a glob)");
}

TEST_F(CliTest, OpsJson) {
  json j = ParseJson(Run({"ops", "MatMul", "--json"}));
  ASSERT_TRUE(j.is_array());
  bool found = false;
  for (const json& op : j) {
    if (op["name"] == "MatMul") {
      found = true;
      EXPECT_THAT(op["signature"].get<std::string>(), StartsWith("MatMul(a: T, b: T)"));
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(CliTest, OpShowsTheOpDef) {
  Result r = Run({"op", "MatMul"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("name: \"MatMul\""));
  EXPECT_THAT(r.out, HasSubstr("name: \"transpose_a\""));
  // The text parses back as an OpList.
  std::string text = r.out;
  OpList list;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &list));
  ASSERT_EQ(list.op_size(), 1);
  EXPECT_EQ(list.op(0).name(), "MatMul");

  r = Run({"op", "MatMul", "--signature"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("MatMul(a: T, b: T) -> product: T; attrs: transpose_a: bool = "
                                "false, transpose_b: bool = false"));
  EXPECT_THAT(r.out, HasSubstr("; T in {"));
  EXPECT_THAT(r.out, HasSubstr("float"));

  json j = ParseJson(Run({"op", "MatMul", "--json"}));
  EXPECT_EQ(j["name"], "MatMul");
  EXPECT_EQ(j["input_arg"][0]["name"], "a");
}

TEST_F(CliTest, UnknownOpSuggestsAName) {
  Result r = Run({"op", "MatMull"});
  ExpectError(r, "'MatMull'");
  EXPECT_THAT(r.err, HasSubstr("Did you mean 'MatMul'"));
  EXPECT_EQ(r.out, "");
  ExpectError(Run({"kernels", "Reluu"}), "Did you mean 'Relu'");
  ExpectError(Run({"explain", "MatMull", "--attr", "T=float"}), "Did you mean 'MatMul'");
}

// --- kernels and explain --------------------------------------------------------

TEST_F(CliTest, KernelsOfAnOp) {
  Result r = Run({"kernels", "MatMul"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MatMulOp<float>"));
  EXPECT_THAT(r.out, HasSubstr("T in {float}"));
  EXPECT_THAT(r.out, HasSubstr("priority 0"));
  EXPECT_THAT(r.out, HasSubstr("matmul_op.cc:"));
  EXPECT_THAT(r.out, Not(HasSubstr("Relu")));

  json j = ParseJson(Run({"kernels", "MatMul", "--json"}));
  ASSERT_TRUE(j.is_array());
  ASSERT_FALSE(j.empty());
  for (const json& k : j) {
    EXPECT_EQ(k["op"], "MatMul");
    EXPECT_EQ(k["device"], "CPU");
    EXPECT_TRUE(k["priority"].is_number());
    EXPECT_THAT(k["origin"]["file"].get<std::string>(), HasSubstr("matmul_op.cc"));
    EXPECT_GT(k["origin"]["line"].get<int>(), 0);
  }

  r = Run({"kernels"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, AllOf(HasSubstr("MatMulOp<float>"), HasSubstr("Relu")));
}

TEST_F(CliTest, ExplainSelectsAKernel) {
  for (const char* t : {"T=float", "T=DT_FLOAT", "T=float32"}) {
    Result r = Run({"explain", "MatMul", "--device", "CPU", "--attr", t});
    EXPECT_EQ(r.exit_code, 0) << t << r.err;
    EXPECT_THAT(r.out, HasSubstr("[selected] 'MatMulOp<float>'"));
    EXPECT_THAT(r.out, HasSubstr("[rejected]"));
  }
  Result r = Run({"explain", "MatMul", "--attr", "T=float", "--attr", "transpose_a=true",
                  "--attr", "_kernel=eigen"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("label 'eigen'"));

  json j = ParseJson(Run({"explain", "MatMul", "--attr", "T=float", "--json"}));
  ASSERT_TRUE(j["selected"].is_number());
  const json& winner = j["candidates"][j["selected"].get<int>()];
  EXPECT_EQ(winner["class"], "MatMulOp<float>");
  EXPECT_EQ(winner["selected"], true);
  EXPECT_TRUE(j["error"].is_null());
}

TEST_F(CliTest, ExplainWithoutAWinnerIsExitOne) {
  Result r = Run({"explain", "MatMul", "--attr", "T=string"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("does not allow T=string"));
  EXPECT_THAT(r.out, HasSubstr("attr 'T' is DT_STRING, not in [DT_FLOAT]"));
  EXPECT_THAT(r.out, Not(HasSubstr("[selected]")));
  EXPECT_THAT(r.err, HasSubstr("opkit: error: no CPU kernel of 'MatMul' would be selected"));
  EXPECT_EQ(CountLines(r.err), 1u);

  r = Run({"explain", "MatMul", "--device", "GPU", "--attr", "T=float"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no GPU kernel"));

  json j = ParseJson(Run({"explain", "MatMul", "--attr", "T=string", "--json"}));
  EXPECT_TRUE(j["selected"].is_null());
  EXPECT_TRUE(j["error"].is_string());
}

TEST_F(CliTest, ExplainRejectsBadAttrs) {
  ExpectError(Run({"explain", "MatMul", "--attr", "foo=1"}),
              "--attr foo=1: op 'MatMul' has no attr 'foo'; its attrs are: ");
  ExpectError(Run({"explain", "MatMul", "--attr", "a=1"}), "has no attr 'a'");
  ExpectError(Run({"explain", "MatMul", "--attr", "T=flot"}), "'flot' is not a data type");
  ExpectError(Run({"explain", "MatMul", "--attr", "transpose_a=maybe"}),
              "--attr transpose_a=maybe: 'maybe' is not a bool");
  ExpectError(Run({"explain", "ConcatV2", "--attr", "N=three"}), "'three' is not an integer");
  ExpectError(Run({"explain", "ConcatV2", "--attr", "N=99999999999999999999"}),
              "is not an integer");
  ExpectError(Run({"explain", "ConcatV2", "--attr", "N=1"}), "--attr N=1");
  ExpectError(Run({"explain", "Placeholder", "--attr", "shape=[2,x]"}), "is not a shape");
  Result r = Run({"explain", "Placeholder", "--attr", "dtype=float", "--attr", "shape=[2,3]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Run({"explain", "ConcatV2", "--attr", "N=3", "--attr", "T=float"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliTest, ExplainParsesListAndTensorAttrs) {
  Result r = Run({"explain", "IdentityN", "--attr", "T=[float,int32]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[selected] 'IdentityNOp'"));
  ExpectError(Run({"explain", "IdentityN", "--attr", "T=[float,"}),
              "'[float,' is not a list");
  ExpectError(Run({"explain", "IdentityN", "--attr", "T=[float,nope]"}),
              "'nope' is not a data type");
  r = Run({"explain", "Const", "--attr", "dtype=float", "--attr",
           "value={ dtype: DT_FLOAT float_val: 1 }"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectError(Run({"explain", "Const", "--attr", "value=garbage"}),
              "--attr value=garbage: Could not parse 'garbage'");
  ExpectError(Run({"explain", "FusedBatchNormV3", "--attr", "epsilon=1e99"}), "float's range");
  ExpectError(Run({"explain", "FusedBatchNormV3", "--attr", "epsilon=small"}),
              "'small' is not a number");
}

TEST_F(CliTest, ExplainReadsTensorFlowSpellings) {
  // --attr values go through ParseAttrValue's shorthand: tf.float32,
  // quoted strings, lists with spaces.
  Result r = Run({"explain", "Conv2D", "--attr", "T=tf.float32", "--attr", "padding='SAME'",
                  "--attr", "strides=[1, 1, 1, 1]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[selected] 'Conv2DOp<float>'"));
  ExpectError(Run({"explain", "Conv2D", "--attr", "padding=SOME"}),
              "--attr padding=SOME: Value for attr 'padding' of \"SOME\" is not in the list");
  ExpectError(Run({"explain", "MatMul", "--attr", "T=DT_FLOAT_REF"}),
              "'DT_FLOAT_REF' is not a data type");
  ExpectError(Run({"explain", "Const", "--attr", "dtype=float", "--attr", "value={"}),
              "--attr value={: Could not parse '{'");
}

TEST_F(CliTest, WordsAfterTheCommandAreItsArguments) {
  // A command name after the command is a positional argument, not a
  // second command; after --, a word starting with '-' is one too.
  Result r = Run({"ops", "op"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NoOp "));
  ExpectError(Run({"ops", "--", "-x"}), "no registered op matches '-x'");
  ExpectUsage(Run({"op", "MatMul", "kernels"}), "unexpected argument 'kernels'");
  ExpectUsage(Run({"help", "ops", "extra"}), "unexpected argument 'extra'");
  // Repeatable options take one value each time (shown with the examples'
  // libraries).
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_ZERO_OUT_LIB);
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_PRIORITY_MATMUL_LIB);
  r = Run({"kernels", "--load", OPKIT_ZERO_OUT_LIB, "--load", OPKIT_PRIORITY_MATMUL_LIB,
           "MatMul"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MyMatMulOp"));
}

TEST_F(CliTest, NumericOptionsAreCheckedWhenParsed) {
  const std::vector<std::string> base = {"run", Data("matmul_relu.pbtxt"), "--feed",
                                         "x=" + Data("x_3x2_float32.npy"), "--fetch", "y"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--repeat", "+2"});
  Result r = Run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("over 2 runs"));
  args = base;
  args.insert(args.end(), {"--timeout", "99999999999999999999"});
  ExpectError(Run(args), "--timeout value '99999999999999999999' is not an integer");
  args = base;
  args.insert(args.end(), {"--threads=2000"});
  ExpectError(Run(args), "--threads value 2000 is out of range; use a value in [0, 1024]");
  args = base;
  args.insert(args.end(), {"--repeat", "2", "--repeat", "3"});
  ExpectUsage(Run(args), "option '--repeat' may be given only once");
}

TEST_F(CliTest, ExplainRefusesATypeTheOpDoesNotAllow) {
  // Reshape's kernel has no constraint on Tshape, so one would be selected,
  // but the OpDef allows only int32 and int64.
  Result r = Run({"explain", "Reshape", "--attr", "T=float", "--attr", "Tshape=int8"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("[selected]"));
  EXPECT_THAT(r.err, HasSubstr("not valid for op 'Reshape'"));
  r = Run({"explain", "Reshape", "--attr", "T=float", "--attr", "Tshape=int64"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --- load -------------------------------------------------------------------------

TEST_F(CliTest, LoadShowsWhatALibraryRegisters) {
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_ZERO_OUT_LIB);
  Result r = Run({"load", OPKIT_ZERO_OUT_LIB});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("zero_out"));
  EXPECT_THAT(r.out, HasSubstr("ZeroOut(to_zero: int32) -> zeroed: int32"));
  EXPECT_THAT(r.out, HasSubstr("selected (no other kernel for these attrs)"));

  json j = ParseJson(Run({"load", OPKIT_ZERO_OUT_LIB, "--json"}));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_FALSE(j[0]["ops"].empty());
  EXPECT_EQ(j[0]["kernels"][0]["verdict"], "new");
  EXPECT_TRUE(j[0]["kept_dependencies"].empty());
}

TEST_F(CliTest, LoadListsTheLibrariesItKeeps) {
  // tests/library's libtest_uses_runtime links a plain shared library.
  Result r = Run({"load", OPKIT_USES_RUNTIME_LIB});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kept loaded after an unload: "));
  EXPECT_THAT(r.out, HasSubstr("libtest_runtime_helper.so"));
  json j = ParseJson(Run({"load", OPKIT_USES_RUNTIME_LIB, "--json"}));
  ASSERT_EQ(j[0]["kept_dependencies"].size(), 1u);
  EXPECT_THAT(j[0]["kept_dependencies"][0].get<std::string>(),
              ::testing::EndsWith("/libtest_runtime_helper.so"));
}

TEST_F(CliTest, LoadReportsOverriddenBuiltInKernels) {
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_PRIORITY_MATMUL_LIB);
  Result r = Run({"load", OPKIT_PRIORITY_MATMUL_LIB});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("overrides MatMulOp<float>"));
  json j = ParseJson(Run({"load", OPKIT_PRIORITY_MATMUL_LIB, "--json"}));
  EXPECT_EQ(j[0]["kernels"][0]["verdict"], "overrides");
  EXPECT_EQ(j[0]["kernels"][0]["displaced"][0]["class"], "MatMulOp<float>");

  // And explain then selects it.
  r = Run({"--load", OPKIT_PRIORITY_MATMUL_LIB, "explain", "MatMul", "--attr", "T=float"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[selected] 'MyMatMulOp'"));
  EXPECT_THAT(r.out, HasSubstr("below the winner's 1"));
}

TEST_F(CliTest, LoadFailureIsExitOne) {
  ExpectError(Run({"load", dir_ + "/missing.so"}), "missing.so");
  ExpectError(Run({"--load", dir_ + "/missing.so", "ops"}), "missing.so");
  std::string not_a_lib = Data("ops_v1.pbtxt");
  ExpectError(Run({"load", not_a_lib}), "ops_v1.pbtxt");
}

TEST_F(CliTest, GlobalAndCommandLoadOption) {
  OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_ZERO_OUT_LIB);
  Result r = Run({"--load", OPKIT_ZERO_OUT_LIB, "ops", "Zero*"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("ZeroOut "), HasSubstr("ZeroOutFloatInt")));
  EXPECT_THAT(r.out, Not(HasSubstr("MatMul")));

  r = Run({"kernels", "--load", OPKIT_ZERO_OUT_LIB, "ZeroOut"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ZeroOut"));
  EXPECT_THAT(r.out, HasSubstr("zero_out"));

  r = Run({"explain", "--load=" OPKIT_ZERO_OUT_LIB, "ZeroOutFloatInt", "--attr", "T=float"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[selected]"));

  // Without the library the op is unknown.
  ExpectError(Run({"op", "ZeroOut"}), "'ZeroOut'");
}

// --- run ----------------------------------------------------------------------------

TEST_F(CliTest, RunTextGraphPrintsTensors) {
  Result r = Run({"run", Data("matmul_relu.pbtxt"), "--feed", "x=" + Data("x_3x2_float32.npy"),
                  "--fetch", "y", "--fetch", "matmul:0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("y: float32 [3,2]\n"));
  EXPECT_THAT(r.out, HasSubstr("[[ 1.  0.]\n [ 2. 0.5]\n [ 1. 1.5]]"));
  EXPECT_THAT(r.out, HasSubstr("matmul:0: float32 [3,2]\n[[ 1. -1.]"));
  EXPECT_EQ(r.err, "");
}

TEST_F(CliTest, NamespacedOpsOfALoadedLibraryShowAndRun) {
  // tests/compat's library of "Addons>Gelu" and "Examples>MinMax".
  Result op = Run({"op", "Addons>Gelu", "--load", OPKIT_NAMESPACED_OPS_LIB});
  EXPECT_EQ(op.exit_code, 0) << op.err;
  EXPECT_THAT(op.out, HasSubstr("Addons>Gelu"));
  const std::string graph = dir_ + "/namespaced.pbtxt";
  OPKIT_ASSERT_OK(WriteStringToFile(graph, R"pb(
    node { name: "x" op: "Const"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT
               tensor_shape { dim { size: 2 } } float_val: -1 float_val: 1 } } } }
    node { name: "gelu" op: "Addons>Gelu" input: "x"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "range" op: "Examples>MinMax" input: "gelu"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb"));
  Result r = Run({"run", graph, "--fetch", "range:1", "--load", OPKIT_NAMESPACED_OPS_LIB});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("range:1: float32 []"));
  EXPECT_THAT(r.out, HasSubstr("0.841"));
}

TEST_F(CliTest, RunBinaryGraphWithOut) {
  GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadAll(Data("matmul_relu.pbtxt")),
                                                            &graph));
  const std::string pb = dir_ + "/graph.pb";
  OPKIT_ASSERT_OK(WriteStringToFile(pb, graph.SerializeAsString()));
  const std::string out = dir_ + "/out";
  Result r = Run({"run", pb, "--feed", "x:0=" + Data("x_2x2_float32.npy"), "--fetch", "y:0",
                  "--fetch", "matmul", "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("y_0.npy (float32 [2,2])"));
  std::string bytes = ReadAll(out + "/y_0.npy");
  ASSERT_FALSE(bytes.empty());
  EXPECT_THAT(bytes, StartsWith(std::string("\x93NUMPY\x01\x00", 8)));
  EXPECT_THAT(bytes, HasSubstr("'descr': '<f4'"));
  EXPECT_THAT(bytes, HasSubstr("'shape': (2, 2)"));
  // x @ w = [[5, 0], [11, -1]]; relu gives [[5, 0], [11, 0]].
  ASSERT_GE(bytes.size(), 16u);
  float values[4];
  std::memcpy(values, bytes.data() + bytes.size() - 16, 16);
  EXPECT_EQ(values[0], 5.0f);
  EXPECT_EQ(values[1], 0.0f);
  EXPECT_EQ(values[2], 11.0f);
  EXPECT_EQ(values[3], 0.0f);
  EXPECT_FALSE(ReadAll(out + "/matmul.npy").empty());

  json j = ParseJson(Run({"run", pb, "--feed", "x=" + Data("x_2x2_float32.npy"), "--fetch", "y",
                          "--out", out, "--json"}));
  EXPECT_EQ(j["fetches"][0]["file"], out + "/y.npy");
}

// --- gradients ------------------------------------------------------------------

TEST_F(CliTest, GradientsAddTheBackwardPassThatRunComputes) {
  // y = relu(x @ w): dy/dx = relu'(x @ w) @ w^T, with x @ w = [[1,-1],[2,.5],[1,1.5]]
  // (RunTextGraphPrintsTensors) and w = [[1,-1],[2,.5]].
  const std::string out = dir_ + "/with_grads.pbtxt";
  Result r = Run({"gradients", Data("matmul_relu.pbtxt"), "--y", "y", "--x", "x", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_THAT(r.out, ::testing::StartsWith("x -> gradients/"));
  const std::string grad = r.out.substr(5, r.out.size() - 6);
  json j = ParseJson(Run({"run", out, "--feed", "x=" + Data("x_3x2_float32.npy"), "--fetch", grad,
                          "--json"}));
  EXPECT_EQ(j["fetches"][0]["shape"], json::array({3, 2}));
  EXPECT_EQ(j["fetches"][0]["values"], json::array({1.0, 2.0, 0.0, 2.5, 0.0, 2.5}));
  // Binary output, JSON names; w is a Const, still differentiable.
  const std::string pb = dir_ + "/with_grads.pb";
  json names = ParseJson(Run({"gradients", Data("matmul_relu.pbtxt"), "--y", "y", "--x", "w",
                              "--x", "x", "--output", pb, "--json"}));
  EXPECT_TRUE(names["w"].is_string());
  EXPECT_TRUE(names["x"].is_string());
  GraphDef g;
  OPKIT_EXPECT_OK(ReadGraphDefFromFile(pb, &g));
  EXPECT_GT(g.node_size(), 4);
}

TEST_F(CliTest, GradientsErrors) {
  const std::string graph = Data("matmul_relu.pbtxt");
  ExpectUsage(Run({"gradients", graph, "--y", "y"}), "at least one --y and one --x");
  ExpectUsage(Run({"gradients", graph, "--y", "y", "--x", "x", "--grad-y", "a", "--grad-y", "b"}),
              "one --grad-y per --y");
  ExpectUsage(Run({"gradients", graph, "--y", "y", "--x", "x", "--unconnected", "some"}),
              "none or zero");
  ExpectError(Run({"gradients", graph, "--y", "nosuch", "--x", "x"}), "nosuch");
  ExpectError(Run({"gradients", dir_ + "/missing.pbtxt", "--y", "y", "--x", "x"}),
              "cannot read GraphDef");
  // An x nothing depends on: none, or zeros when asked.
  const std::string lone = dir_ + "/lone.pbtxt";
  OPKIT_ASSERT_OK(WriteStringToFile(lone, ReadAll(graph) + R"pb(
    node { name: "z" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } })pb"));
  Result none = Run({"gradients", lone, "--y", "y", "--x", "z"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "z -> none\n");
  Result zero = Run({"gradients", lone, "--y", "y", "--x", "z", "--unconnected", "zero"});
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
  EXPECT_THAT(zero.out, ::testing::StartsWith("z -> gradients/"));
}

TEST_F(CliTest, RunJsonRepeatAndProfile) {
  const std::vector<std::string> base = {"run", Data("matmul_relu.pbtxt"), "--feed",
                                         "x=" + Data("x_3x2_float32.npy"), "--fetch", "y"};
  std::vector<std::string> args = base;
  args.push_back("--json");
  json j = ParseJson(Run(args));
  EXPECT_EQ(j["fetches"][0]["name"], "y");
  EXPECT_EQ(j["fetches"][0]["dtype"], "float");
  EXPECT_EQ(j["fetches"][0]["shape"], json::array({3, 2}));
  EXPECT_EQ(j["fetches"][0]["values"], json::array({1.0, 0.0, 2.0, 0.5, 1.0, 1.5}));
  EXPECT_EQ(j["runs"], 1);

  args = base;
  args.insert(args.end(), {"--repeat", "5", "--profile", "--progress"});
  Result r = Run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("time per run: mean "));
  EXPECT_THAT(r.out, HasSubstr("over 5 runs"));
  EXPECT_THAT(r.out, HasSubstr("profile (5 runs, sorted by total time)"));
  EXPECT_THAT(r.out, AllOf(HasSubstr("matmul"), HasSubstr("MatMul"), HasSubstr("Relu")));
  EXPECT_THAT(r.err, HasSubstr("5/5"));  // the progress bar

  args = base;
  args.insert(args.end(), {"--repeat", "3", "--profile", "--json", "--threads", "2"});
  r = Run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // no progress bar with --json
  j = ParseJson(r);
  EXPECT_EQ(j["runs"], 3);
  EXPECT_TRUE(j["time_ms"]["mean"].is_number());
  ASSERT_TRUE(j["profile"].is_array());
  bool found = false;
  for (const json& p : j["profile"]) {
    if (p["node"] == "matmul") {
      found = true;
      EXPECT_EQ(p["op"], "MatMul");
      EXPECT_EQ(p["count"], 3);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(CliTest, RunOptimizesUnlessToldNot) {
  const std::vector<std::string> base = {
      "run",   Data("matmul_bias_relu.pbtxt"), "--feed", "x=" + Data("x_3x2_float32.npy"),
      "--fetch", "y", "--profile", "--json"};
  // relu(x @ w + b) for x = [[1, 0], [0, 1], [-1, 1]], w = [[1, -1], [2, 0.5]],
  // b = [-1, 0.25], computed with numpy.
  const json want = json::array({0.0, 0.0, 1.0, 0.75, 0.0, 1.75});
  for (bool optimize : {true, false}) {
    SCOPED_TRACE(optimize ? "optimized" : "--no-optimize");
    std::vector<std::string> args = base;
    if (!optimize) args.push_back("--no-optimize");
    json j = ParseJson(Run(args));
    EXPECT_EQ(j["fetches"][0]["values"], want);
    std::map<std::string, std::string> ops;  // node -> op that ran
    for (const json& p : j["profile"]) ops[p["node"]] = p["op"];
    if (optimize) {
      EXPECT_EQ(ops["y"], "_FusedMatMul");
      EXPECT_EQ(ops.count("matmul"), 0u);
    } else {
      EXPECT_EQ(ops["y"], "Relu");
      EXPECT_EQ(ops["matmul"], "MatMul");
    }
  }
}

// A version 1.0 .npy file of float32 values, written by hand.
void WriteFloatNpy(const std::string& path, const std::string& shape,
                   const std::vector<float>& values) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  OPKIT_ASSERT_OK(WriteStringToFile(path, bytes));
}

TEST_F(CliTest, RunElidesLargeTensorsAndRunsTargets) {
  std::vector<float> values(4000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const std::string big = dir_ + "/big.npy";
  WriteFloatNpy(big, "(2000, 2)", values);
  Result r = Run({"run", Data("matmul_relu.pbtxt"), "--feed", "x=" + big, "--fetch", "y"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("y: float32 [2000,2]\n[[    2.    0.5]\n"));
  EXPECT_THAT(r.out, HasSubstr("\n ...\n"));
  EXPECT_THAT(r.out, HasSubstr("[11996.     0.]]"));
  EXPECT_LT(CountLines(r.out), 10u);

  // Targets only: nothing fetched, nothing printed.
  r = Run({"run", Data("matmul_relu.pbtxt"), "--feed", "x=" + big, "--target", "y"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");

  // A feed of the wrong shape is the kernel's error, reported with its node.
  const std::string wide = dir_ + "/wide.npy";
  WriteFloatNpy(wide, "(1, 3)", {1, 2, 3});
  ExpectError(Run({"run", Data("matmul_relu.pbtxt"), "--feed", "x=" + wide, "--fetch", "y"}),
              "matmul");
}

TEST_F(CliTest, RunErrors) {
  const std::string graph = Data("matmul_relu.pbtxt");
  const std::string feed = "x=" + Data("x_3x2_float32.npy");
  // A truncated .npy feed.
  std::string bytes = ReadAll(Data("x_3x2_float32.npy"));
  const std::string cut = dir_ + "/cut.npy";
  OPKIT_ASSERT_OK(WriteStringToFile(cut, bytes.substr(0, bytes.size() - 3)));
  ExpectError(Run({"run", graph, "--feed", "x=" + cut, "--fetch", "y"}), "truncated");
  ExpectError(Run({"run", graph, "--feed", "x=" + cut, "--fetch", "y"}), "--feed x=");
  // A file that is not .npy at all, Fortran order, an object array.
  ExpectError(Run({"run", graph, "--feed", "x=" + graph, "--fetch", "y"}),
              "is not a valid .npy file");
  ExpectError(Run({"run", graph, "--feed", "x=" + Data("fortran.npy"), "--fetch", "y"}),
              "Fortran-order");
  ExpectError(Run({"run", graph, "--feed", "x=" + Data("object.npy"), "--fetch", "y"}),
              "object dtype");
  ExpectError(Run({"run", graph, "--feed", "x=" + dir_ + "/none.npy", "--fetch", "y"}),
              "none.npy");
  // Wrong dtype, unknown fetch, bad numbers, missing graph.
  ExpectError(Run({"run", graph, "--feed", "x=" + Data("x_int32.npy"), "--fetch", "y"}), "x");
  ExpectError(Run({"run", graph, "--feed", feed, "--fetch", "nope"}), "nope");
  ExpectError(Run({"run", graph, "--feed", feed, "--fetch", "y", "--repeat", "0"}),
              "--repeat value 0 is out of range");
  ExpectError(Run({"run", graph, "--feed", feed, "--fetch", "y", "--repeat", "many"}),
              "--repeat value 'many' is not an integer");
  ExpectError(Run({"run", graph, "--feed", feed, "--fetch", "y", "--threads", "-1"}),
              "--threads value -1");
  ExpectError(Run({"run", dir_ + "/missing.pbtxt", "--fetch", "y"}), "missing.pbtxt");
  ExpectError(Run({"run", Data("ops_v1.pbtxt"), "--fetch", "y"}), "ops_v1.pbtxt");
  // --out naming a file.
  ExpectError(Run({"run", graph, "--feed", feed, "--fetch", "y", "--out", graph}),
              "is not a directory");
}

TEST_F(CliTest, RunWhileLoopAndTimeout) {
  const std::string graph = Data("count_loop.pbtxt");
  Result r = Run({"run", graph, "--feed", "limit=" + Data("limit_5.npy"), "--fetch", "exit"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("exit: int32 []\n5\n"));
  // 2^31 - 1 iterations would take minutes: --timeout stops the run.
  ExpectError(Run({"run", graph, "--feed", "limit=" + Data("limit_max.npy"), "--fetch", "exit",
                   "--timeout", "50"}),
              "timeout of 50 ms");
  ExpectError(Run({"run", graph, "--feed", "limit=" + Data("limit_5.npy"), "--fetch", "exit",
                   "--timeout", "soon"}),
              "--timeout value 'soon' is not an integer");
  // Shapes flow around the loop: the Merge's back edge is unknown.
  r = Run({"shapes", graph});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("merge (Merge): ?, []\n"));
  EXPECT_THAT(r.out, HasSubstr("exit (Exit): ?\n"));
}

// --- shapes -------------------------------------------------------------------------

TEST_F(CliTest, Shapes) {
  Result r = Run({"shapes", Data("matmul_relu.pbtxt")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("x (Placeholder): [?,2]\n"));
  EXPECT_THAT(r.out, HasSubstr("w (Const): [2,2]\n"));
  EXPECT_THAT(r.out, HasSubstr("y (Relu): [?,2]\n"));

  r = Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=[5,2]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("matmul (MatMul): [5,2]\n"));
  EXPECT_THAT(r.out, HasSubstr("y (Relu): [5,2]\n"));

  r = Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=?"});
  EXPECT_EQ(r.exit_code, 0) << r.err;

  json j = ParseJson(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=[?,2]", "--json"}));
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[0]["node"], "x");
  EXPECT_TRUE(j[0]["shapes"][0][0].is_null());
  EXPECT_EQ(j[0]["shapes"][0][1], 2);

  ExpectError(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=[a,2]"}),
              "--feed-shape shape '[a,2]'");
  ExpectError(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=[-3]"}),
              "negative dimension");
  ExpectError(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=5"}),
              "not in brackets");
  ExpectError(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=[5,3]"}),
              "shape inference failed");
  // The failing node is not listed as one without outputs.
  r = Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "x=[5,3]"});
  EXPECT_THAT(r.out, Not(HasSubstr("no outputs")));
  ExpectError(Run({"shapes", Data("matmul_relu.pbtxt"), "--feed-shape", "nope=[1]"}), "nope");
}

// --- compat -------------------------------------------------------------------------

TEST_F(CliTest, CompatCompatible) {
  Result r = Run({"compat", Data("ops_v1.pbtxt"), Data("ops_v2_compatible.pbtxt")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("info: op 'Rotate' was added"));
  EXPECT_THAT(r.out, HasSubstr("compatible: 2 old ops, 3 new ops, 0 violation(s)"));
  json j = ParseJson(Run({"compat", Data("ops_v1.pbtxt"), Data("ops_v2_compatible.pbtxt"), "--json"}));
  EXPECT_EQ(j["compatible"], true);
  EXPECT_EQ(j["added"], json::array({"Rotate"}));
  EXPECT_EQ(j["changed"], json::array({"Scale"}));
}

TEST_F(CliTest, CompatIncompatible) {
  Result r = Run({"compat", Data("ops_v1.pbtxt"), Data("ops_v2_incompatible.pbtxt")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("violation: op 'Shift' was removed"));
  EXPECT_THAT(r.out, HasSubstr("stricter set of allowed values"));
  EXPECT_THAT(r.out, HasSubstr("Attr 'factor' has changed"));
  EXPECT_THAT(r.err, HasSubstr("3 violation(s)"));
  EXPECT_EQ(CountLines(r.err), 1u);

  r = Run({"compat", Data("ops_v1.pbtxt"), Data("ops_v2_incompatible.pbtxt"), "--json"});
  EXPECT_EQ(r.exit_code, 1);
  json j = ParseJson(r);
  EXPECT_EQ(j["compatible"], false);
  ASSERT_EQ(j["violations"].size(), 3u);
  std::vector<std::string> kinds;
  for (const json& v : j["violations"]) kinds.push_back(v["kind"]);
  EXPECT_THAT(kinds, ::testing::UnorderedElementsAre("incompatible", "default_changed", "removed"));

  ExpectError(Run({"compat", Data("matmul_relu.pbtxt"), Data("ops_v1.pbtxt")}),
              "as an OpList");
  ExpectError(Run({"compat", dir_ + "/old.pbtxt", Data("ops_v1.pbtxt")}), "old.pbtxt");
}

// testdata/tfjs_matmul_relu is matmul_relu.pbtxt as a TF.js graph model
// (w uint8-quantised; see make_fixtures.py), so it gives the same values.
TEST_F(CliTest, RunTfjsModelFetchesItsSignatureOutputs) {
  for (const std::string& model : {Data("tfjs_matmul_relu"), Data("tfjs_matmul_relu/model.json")}) {
    Result r = Run({"run", model, "--feed", "x=" + Data("x_3x2_float32.npy")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("y:0: float32 [3,2]\n"));
    // x @ w = [[1, -1], [2, 0.5], [1, 1.5]]; relu as for matmul_relu.pbtxt.
    EXPECT_THAT(r.out, HasSubstr("[[ 1.  0.]\n [ 2. 0.5]\n [ 1. 1.5]]"));
    EXPECT_EQ(r.err, "");
  }
  json j = ParseJson(Run({"run", Data("tfjs_matmul_relu"), "--feed",
                          "x=" + Data("x_3x2_float32.npy"), "--fetch", "matmul", "--json"}));
  EXPECT_EQ(j["fetches"][0]["name"], "matmul");
  EXPECT_EQ(j["fetches"][0]["values"], json::array({1.0, -1.0, 2.0, 0.5, 1.0, 1.5}));

  Result r = Run({"shapes", Data("tfjs_matmul_relu"), "--feed-shape", "x=[5,2]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("w (Const): [2,2]\n"));
  EXPECT_THAT(r.out, HasSubstr("y (Relu): [5,2]\n"));
}

TEST_F(CliTest, RunTfjsModelErrors) {
  // A model.json whose shard is missing: one line naming the shard.
  std::string text = ReadAll(Data("tfjs_matmul_relu/model.json"));
  ASSERT_FALSE(text.empty());
  OPKIT_ASSERT_OK(WriteStringToFile(dir_ + "/model.json", text));
  ExpectError(Run({"run", dir_, "--feed", "x=" + Data("x_3x2_float32.npy"), "--fetch", "y"}),
              "cannot read weight shard 'group1-shard1of1.bin'");
  // Without --fetch the model must load to give its outputs; else usage.
  ExpectUsage(Run({"run", dir_, "--feed", "x=" + Data("x_3x2_float32.npy")}),
              "--fetch NAME or --target NAME");
  // Bad JSON: the parser's position.
  OPKIT_ASSERT_OK(WriteStringToFile(dir_ + "/model.json", "{\"modelTopology\": ["));
  ExpectError(Run({"shapes", dir_ + "/model.json"}), "not valid JSON (at byte");
}

}  // namespace
}  // namespace opkit

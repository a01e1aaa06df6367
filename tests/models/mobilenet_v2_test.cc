// MobileNetV2 (bench/models) end to end: the same GraphDef and input run
// from C++ (Session), from the command line (`opkit run`) and from Python
// (opkit.load_graph, opkit.Session) give the same outputs, and so do the
// built-in kernels and the oneDNN kernels of examples/onednn_kernels loaded
// at run time (LoadOpLibrary, `opkit --load`, opkit.load_op_library).
//
// The network is the full MobileNetV2 layer for layer (every block, batch
// norms folded by the graph optimizer, residual adds), at a width of 0.5, a
// 64x64 input and 100 classes, so that each run takes milliseconds.
//
// Tolerances, on |got - want| / (1 + |want|) per element:
// - kSameKernels (1e-5) between the front ends. They run the same kernels on
//   the same optimised graph, and on 2 cores the outputs were bitwise equal;
//   what the tolerance allows is the order of float sums changing when a
//   kernel splits a reduction over another number of intra-op threads
//   (Python's Session uses one per core, the C++ run here one), a few ulps
//   per layer.
// - kOtherKernels (2e-4) between the built-in and the oneDNN kernels: the
//   two sum each convolution's products in different orders and blockings,
//   which over the network's 52 convolutions (17 depthwise) moved the
//   logits by 2e-5 (the probabilities by 1e-6). 2e-4 leaves room for other
//   CPUs' vector widths while a kernel that is wrong for some element (a
//   border, a stride, a fused epilogue) is off by the size of a value.
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/models/mobilenet_v2.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/runtime/library.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"
#include "tools/opkit/npy.h"

extern char** environ;

namespace opkit {
namespace {

using ::opkit::cli::ReadNpyFile;
using ::opkit::cli::WriteNpyFile;
using ::opkit::testing::IsOk;

constexpr double kSameKernels = 1e-5;
constexpr double kOtherKernels = 2e-4;

// The fetched tensors: the logits before the Softmax (large enough for a
// relative comparison to mean something) and the probabilities.
const std::vector<std::string> kFetches = {"logits/BiasAdd", bench::kMobileNetV2Output};

// Where `opkit run --out` and run_graph.py put a fetched tensor.
std::string OutFile(const std::string& dir, std::string fetch) {
  std::replace(fetch.begin(), fetch.end(), '/', '_');
  std::replace(fetch.begin(), fetch.end(), ':', '_');
  return dir + "/" + fetch + ".npy";
}

// The largest |a - b| / (1 + |b|) over the elements; infinity when the
// shapes or dtypes differ.
double MaxRelativeDifference(const Tensor& a, const Tensor& b) {
  if (a.dtype() != DT_FLOAT || b.dtype() != DT_FLOAT || a.shape() != b.shape()) {
    return INFINITY;
  }
  double worst = 0;
  auto fa = a.flat<float>();
  auto fb = b.flat<float>();
  for (int64_t i = 0; i < fa.size(); ++i) {
    const double d = std::fabs(double{fa(i)} - double{fb(i)}) / (1.0 + std::fabs(double{fb(i)}));
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

void ExpectAllNear(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                   double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape()) << what << ": " << kFetches[i];
    EXPECT_LE(MaxRelativeDifference(got[i], want[i]), tolerance)
        << what << ": " << kFetches[i];
  }
}

class MobileNetV2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "opkit_mobilenet_v2_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    bench::MobileNetV2Options options;
    options.input_size = 64;
    options.alpha = 0.5f;
    options.num_classes = 100;
    ASSERT_THAT(bench::MakeMobileNetV2(options, &graph_), IsOk());
    std::string bytes;
    ASSERT_TRUE(graph_.SerializeToString(&bytes));
    ASSERT_THAT(WriteStringToFile(Path("model.pb"), bytes), IsOk());
    // An image-like input in [0, 1).
    input_ = Tensor(DT_FLOAT, TensorShape({1, options.input_size, options.input_size, 3}));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    auto flat = input_.flat<float>();
    for (int64_t i = 0; i < flat.size(); ++i) flat(i) = uniform(rng);
    ASSERT_THAT(WriteNpyFile(input_, Path("input.npy")), IsOk());
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << "cannot remove " << dir_;
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs the model in this process with the kernels registered now.
  std::vector<Tensor> RunInProcess() {
    std::vector<Tensor> outputs;
    StatusOr<std::unique_ptr<Session>> session = Session::New(SessionOptions());
    EXPECT_THAT(session.status(), IsOk());
    if (!session.ok()) return outputs;
    EXPECT_THAT((*session)->Create(graph_), IsOk());
    EXPECT_THAT((*session)->Run({{bench::kMobileNetV2Input, input_}}, kFetches, {}, &outputs),
                IsOk());
    return outputs;
  }

  // Runs `argv`, stdout and stderr into files of the test's folder, and
  // reads the fetched tensors from `out_dir`. Empty on failure (reported).
  std::vector<Tensor> RunProgram(const std::vector<std::string>& args,
                                 const std::string& out_dir) {
    std::vector<Tensor> outputs;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = Path("log");
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> strings = args;
    std::vector<char*> argv;
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "cannot start " << args[0] << ": " << std::strerror(rc);
      return outputs;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::string text;
    ReadFileToString(log, &text).IgnoreError();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ADD_FAILURE() << args[0] << " failed:\n" << text;
      return outputs;
    }
    for (const std::string& fetch : kFetches) {
      StatusOr<Tensor> t = ReadNpyFile(OutFile(out_dir, fetch));
      EXPECT_THAT(t.status(), IsOk()) << text;
      if (!t.ok()) return {};
      outputs.push_back(std::move(t).value());
    }
    return outputs;
  }

  // `opkit [--load LIB] run model.pb --feed input=input.npy --fetch ...
  // --out DIR`.
  std::vector<Tensor> RunCli(const std::string& out, const std::string& library = "") {
#ifdef OPKIT_CLI_PATH
    const std::string out_dir = Path(out);
    std::vector<std::string> args = {OPKIT_CLI_PATH};
    if (!library.empty()) args.insert(args.end(), {"--load", library});
    args.insert(args.end(), {"run", Path("model.pb"), "--feed",
                             std::string(bench::kMobileNetV2Input) + "=" + Path("input.npy"),
                             "--out", out_dir});
    for (const std::string& fetch : kFetches) args.insert(args.end(), {"--fetch", fetch});
    return RunProgram(args, out_dir);
#else
    (void)out;
    (void)library;
    return {};
#endif
  }

  // tests/models/run_graph.py under the build tree's Python package.
  std::vector<Tensor> RunPython(const std::string& out, const std::string& library = "") {
#ifdef OPKIT_PYTHON_EXECUTABLE
    const std::string out_dir = Path(out);
    if (mkdir(out_dir.c_str(), 0755) != 0) {
      ADD_FAILURE() << "cannot create " << out_dir;
      return {};
    }
    // `env` sets the package's path and keeps the library's INFO lines out.
    std::vector<std::string> args = {"/usr/bin/env",
                                     "PYTHONPATH=" OPKIT_PYTHON_PATH,
                                     "PYTHONDONTWRITEBYTECODE=1",
                                     "OPKIT_MIN_LOG_LEVEL=1",
                                     OPKIT_PYTHON_EXECUTABLE,
                                     OPKIT_RUN_GRAPH_PY,
                                     Path("model.pb"),
                                     bench::kMobileNetV2Input,
                                     Path("input.npy"),
                                     out_dir};
    args.insert(args.end(), kFetches.begin(), kFetches.end());
    if (!library.empty()) args.insert(args.end(), {"--load", library});
    return RunProgram(args, out_dir);
#else
    (void)out;
    (void)library;
    return {};
#endif
  }

  std::string dir_;
  GraphDef graph_;
  Tensor input_;
};

TEST_F(MobileNetV2Test, OutputsAreProbabilities) {
  const std::vector<Tensor> outputs = RunInProcess();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].shape(), TensorShape({1, 100}));
  ASSERT_EQ(outputs[1].shape(), TensorShape({1, 100}));
  double sum = 0;
  auto p = outputs[1].flat<float>();
  for (int64_t i = 0; i < p.size(); ++i) {
    EXPECT_GE(p(i), 0.0f);
    sum += p(i);
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // Not a degenerate network: the logits spread out.
  auto l = outputs[0].flat<float>();
  const auto [lo, hi] = std::minmax_element(l.data(), l.data() + l.size());
  EXPECT_GT(*hi - *lo, 0.1f);
}

TEST_F(MobileNetV2Test, CommandLineMatchesCpp) {
#ifndef OPKIT_CLI_PATH
  GTEST_SKIP() << "the opkit command line is not built (OPKIT_BUILD_TOOLS=OFF)";
#endif
  const std::vector<Tensor> cpp = RunInProcess();
  ExpectAllNear(RunCli("cli"), cpp, kSameKernels, "opkit run vs C++");
}

TEST_F(MobileNetV2Test, PythonMatchesCpp) {
#ifndef OPKIT_PYTHON_EXECUTABLE
  GTEST_SKIP() << "the Python package is not built (OPKIT_BUILD_PYTHON=OFF)";
#endif
  const std::vector<Tensor> cpp = RunInProcess();
  ExpectAllNear(RunPython("python"), cpp, kSameKernels, "Python vs C++");
}

TEST_F(MobileNetV2Test, OneDnnKernelsMatchBuiltIn) {
#ifndef OPKIT_ONEDNN_KERNELS_LIB
  GTEST_SKIP() << "examples/onednn_kernels is not built (oneDNN was not found, or "
                  "OPKIT_BUILD_EXAMPLES=OFF)";
#else
  const std::vector<Tensor> builtin = RunInProcess();
  StatusOr<OpLibrary> lib = LoadOpLibrary(OPKIT_ONEDNN_KERNELS_LIB);
  ASSERT_THAT(lib.status(), IsOk());
  ExpectAllNear(RunInProcess(), builtin, kOtherKernels, "C++, oneDNN vs built-in");
  ASSERT_THAT(lib->Unload(), IsOk());
  // Unloaded, the built-in kernels run again: the same numbers as before.
  ExpectAllNear(RunInProcess(), builtin, 0.0, "C++, after unloading oneDNN");
#ifdef OPKIT_CLI_PATH
  ExpectAllNear(RunCli("cli_onednn", OPKIT_ONEDNN_KERNELS_LIB), builtin, kOtherKernels,
                "opkit --load onednn_kernels run vs C++ built-in");
#endif
#ifdef OPKIT_PYTHON_EXECUTABLE
  ExpectAllNear(RunPython("python_onednn", OPKIT_ONEDNN_KERNELS_LIB), builtin, kOtherKernels,
                "Python with onednn_kernels vs C++ built-in");
#endif
#endif
}

}  // namespace
}  // namespace opkit

// Executor: chains, diamonds, v1 control flow (cond, while loops, nested
// loops), errors naming their node, async kernels and cancellation, kernel
// caching and re-selection, threads.
//
// The test-only ops here ("ExecTest*") are registered in the global
// registries (the executor selects from them); session_test.cc, in the same
// program, uses them too.
#include "opkit/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/threadpool.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/placer.h"
#include "opkit/runtime/internal/executor_impl.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {

// --- Test-only ops and kernels ------------------------------------------------

REGISTER_OP("ExecTestConst")
    .Output("output: dtype")
    .Attr("value: int")
    .Attr("dtype: {int32, float, bool} = DT_INT32");
REGISTER_OP("ExecTestAdd")
    .Input("a: T")
    .Input("b: T")
    .Output("sum: T")
    .Attr("T: {int32, float}");
REGISTER_OP("ExecTestLess")
    .Input("a: int32")
    .Input("b: int32")
    .Output("z: bool");
REGISTER_OP("ExecTestFail").Input("x: T").Output("y: T").Attr("T: type");
REGISTER_OP("ExecTestAsyncInc").Input("x: int32").Output("y: int32");
REGISTER_OP("ExecTestWaitForCancel").Input("x: int32").Output("y: int32");
REGISTER_OP("ExecTestCounted").Input("x: int32").Output("y: int32");
REGISTER_OP("ExecTestSlowAdd")
    .Input("a: int32")
    .Input("b: int32")
    .Output("sum: int32");

namespace {

class ExecTestConstOp : public OpKernel {
 public:
  explicit ExecTestConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    switch (dtype_) {
      case DT_FLOAT:
        ctx->set_output(0, Tensor(static_cast<float>(value_)));
        break;
      case DT_BOOL:
        ctx->set_output(0, Tensor(value_ != 0));
        break;
      default:
        ctx->set_output(0, Tensor(static_cast<int32>(value_)));
    }
  }
  bool IsExpensive() override { return false; }

 private:
  int64_t value_ = 0;
  DataType dtype_ = DT_INT32;
};

class ExecTestAddOp : public OpKernel {
 public:
  explicit ExecTestAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.NumElements() == 1 && b.NumElements() == 1,
                errors::InvalidArgument("ExecTestAdd takes scalars"));
    if (a.dtype() == DT_FLOAT) {
      ctx->set_output(0, Tensor(a.flat<float>()(0) + b.flat<float>()(0)));
    } else {
      ctx->set_output(0, Tensor(a.flat<int32>()(0) + b.flat<int32>()(0)));
    }
  }
};

class ExecTestLessOp : public OpKernel {
 public:
  explicit ExecTestLessOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor(ctx->input(0).flat<int32>()(0) <
                              ctx->input(1).flat<int32>()(0)));
  }
};

class ExecTestFailOp : public OpKernel {
 public:
  explicit ExecTestFailOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->CtxFailure(errors::InvalidArgument("ExecTestFail always fails"));
  }
};

// Finishes on another thread, one millisecond later.
class ExecTestAsyncIncOp : public AsyncOpKernel {
 public:
  explicit ExecTestAsyncIncOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    static ThreadPool* pool = new ThreadPool("exec_test_async", 2);
    pool->Schedule([ctx, done]() {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ctx->set_output(0, Tensor(ctx->input(0).flat<int32>()(0) + 1));
      done();
    });
  }
};

// Waits until the step is cancelled, then fails with Cancelled.
class ExecTestWaitForCancelOp : public AsyncOpKernel {
 public:
  explicit ExecTestWaitForCancelOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    OP_REQUIRES_ASYNC(ctx, cm != nullptr,
                      errors::Internal("no cancellation manager"), done);
    auto finish = [ctx, done]() {
      ctx->CtxFailure(errors::Cancelled("ExecTestWaitForCancel was cancelled"));
      done();
    };
    if (!cm->RegisterCallback(cm->get_cancellation_token(), finish)) finish();
  }
};

// Adds after sleeping 200 microseconds: measured, it stays expensive
// (Note [Inline cheap nodes]), so the executor hands it to its pool.
class ExecTestSlowAddOp : public OpKernel {
 public:
  explicit ExecTestSlowAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ctx->set_output(0, Tensor(ctx->input(0).flat<int32>()(0) +
                              ctx->input(1).flat<int32>()(0)));
  }
};

std::atomic<int> g_counted_constructions{0};
std::atomic<int> g_counted_runs{0};

class ExecTestCountedOp : public OpKernel {
 public:
  explicit ExecTestCountedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ++g_counted_constructions;
  }
  void Compute(OpKernelContext* ctx) override {
    ++g_counted_runs;
    ctx->set_output(0, ctx->input(0));
  }
};

// Replacement kernel for the re-selection test: adds 1000.
class ExecTestCountedPlusOp : public OpKernel {
 public:
  explicit ExecTestCountedPlusOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor(ctx->input(0).flat<int32>()(0) + 1000));
  }
};

OpKernel* CreateCountedPlus(OpKernelConstruction* ctx) {
  return new ExecTestCountedPlusOp(ctx);
}

REGISTER_KERNEL_BUILDER(Name("ExecTestConst").Device(DEVICE_CPU), ExecTestConstOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestAdd").Device(DEVICE_CPU), ExecTestAddOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestLess").Device(DEVICE_CPU), ExecTestLessOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestFail").Device(DEVICE_CPU), ExecTestFailOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestAsyncInc").Device(DEVICE_CPU),
                        ExecTestAsyncIncOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestWaitForCancel").Device(DEVICE_CPU),
                        ExecTestWaitForCancelOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestCounted").Device(DEVICE_CPU),
                        ExecTestCountedOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestSlowAdd").Device(DEVICE_CPU),
                        ExecTestSlowAddOp);

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// A graph, its device and an executor over it.
struct Fixture {
  std::unique_ptr<Device> device;
  std::shared_ptr<const Graph> graph;
  std::unique_ptr<Executor> executor;
};

Status Make(const std::string& text, const ExecutorSignature& sig,
            int threads, Fixture* f) {
  GraphDef def;
  OPKIT_RETURN_IF_ERROR(ParseGraphDefText(text, &def));
  OPKIT_ASSIGN_OR_RETURN(f->device, CpuDevice::Create("/device:CPU:0", 1));
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                         Graph::Create(def, nullptr));
  OPKIT_RETURN_IF_ERROR(PlaceGraph(graph.get(), {f->device.get()}));
  f->graph = std::move(graph);
  ExecutorOptions options;
  options.inter_op_threads = threads;
  OPKIT_ASSIGN_OR_RETURN(
      f->executor, Executor::Create(f->graph, {f->device.get()}, sig, options));
  return OkStatus();
}

std::string Const(const std::string& name, int value,
                  const std::string& dtype = "DT_INT32",
                  const std::string& extra_inputs = "") {
  return "node { name: '" + name + "' op: 'ExecTestConst' " + extra_inputs +
         " attr { key: 'value' value { i: " + std::to_string(value) +
         " } } attr { key: 'dtype' value { type: " + dtype + " } } }\n";
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs,
                 const std::string& attrs = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "'";
  for (const std::string& in : inputs) s += " input: '" + in + "'";
  return s + " " + attrs + " }\n";
}

const char kInt[] = "attr { key: 'T' value { type: DT_INT32 } }";

int32 Int(const Tensor& t) { return t.flat<int32>()(0); }

// A chain of n Identity nodes after a constant.
std::string Chain(int n) {
  std::string text = Const("c", 7);
  std::string prev = "c";
  for (int i = 0; i < n; ++i) {
    const std::string name = "id" + std::to_string(i);
    text += Node(name, "Identity", {prev}, kInt);
    prev = name;
  }
  return text;
}

class ExecutorThreadsTest : public ::testing::TestWithParam<int> {};

TEST_P(ExecutorThreadsTest, Chain) {
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"id99:0", "id3"};
  OPKIT_ASSERT_OK(Make(Chain(100), sig, GetParam(), &f));
  EXPECT_EQ(f.executor->num_nodes_to_run(), 101);
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(Int(out[0]), 7);
    EXPECT_EQ(Int(out[1]), 7);
  }
}

TEST_P(ExecutorThreadsTest, Diamond) {
  // a -> (b, c) -> d = b + c, with b = a + a, c = a + 1.
  std::string text = Const("a", 5) + Const("one", 1) +
                     Node("b", "ExecTestAdd", {"a", "a"}, kInt) +
                     Node("c", "ExecTestAdd", {"a", "one"}, kInt) +
                     Node("d", "ExecTestAdd", {"b", "c"}, kInt);
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"d:0", "b:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
  EXPECT_EQ(Int(out[0]), 16);
  EXPECT_EQ(Int(out[1]), 10);
}

// tf.cond as TensorFlow emits it: Switch, a pivot Identity per branch,
// branch constants under a control edge from the pivot, Merge.
std::string CondGraph() {
  return Const("x", 3) + Const("pred", 1, "DT_BOOL") +
         Node("cond/Switch", "Switch", {"x", "pred"}, kInt) +
         Node("cond/switch_t", "Identity", {"cond/Switch:1"}, kInt) +
         Node("cond/switch_f", "Identity", {"cond/Switch"}, kInt) +
         Const("cond/one", 1, "DT_INT32", "input: '^cond/switch_t'") +
         Const("cond/hundred", 100, "DT_INT32", "input: '^cond/switch_f'") +
         Node("cond/add_t", "ExecTestAdd", {"cond/switch_t", "cond/one"}, kInt) +
         Node("cond/add_f", "ExecTestAdd", {"cond/switch_f", "cond/hundred"},
              kInt) +
         Node("cond/Merge", "Merge", {"cond/add_f", "cond/add_t"},
              std::string(kInt) + " attr { key: 'N' value { i: 2 } }");
}

TEST_P(ExecutorThreadsTest, CondTakesOneBranch) {
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"pred:0"};
  sig.fetches = {"cond/Merge:0", "cond/Merge:1"};
  OPKIT_ASSERT_OK(Make(CondGraph(), sig, GetParam(), &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(true)}, &out));
  EXPECT_EQ(Int(out[0]), 4);
  EXPECT_EQ(Int(out[1]), 1);
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(false)}, &out));
  EXPECT_EQ(Int(out[0]), 103);
  EXPECT_EQ(Int(out[1]), 0);
}

TEST_P(ExecutorThreadsTest, FetchOfUntakenBranchIsAnError) {
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"pred:0"};
  sig.fetches = {"cond/add_f:0"};
  OPKIT_ASSERT_OK(Make(CondGraph(), sig, GetParam(), &f));
  std::vector<Tensor> out;
  EXPECT_THAT(f.executor->Run(ExecutorRunArgs(), {Tensor(true)}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("cond/add_f:0")));
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(false)}, &out));
  EXPECT_EQ(Int(out[0]), 103);
}

// tf.while_loop(lambda i: i < limit, lambda i: i + 1, [0]) as TensorFlow
// emits it; `limit` enters as a loop invariant (is_constant Enter).
std::string WhileGraph(const std::string& p, const std::string& start,
                       const std::string& limit, const std::string& frame) {
  const std::string enter_attrs =
      std::string(kInt) + " attr { key: 'frame_name' value { s: '" + frame +
      "' } }";
  return Node(p + "Enter", "Enter", {start}, enter_attrs) +
         Node(p + "Less/Enter", "Enter", {limit},
              enter_attrs +
                  " attr { key: 'is_constant' value { b: true } }") +
         Node(p + "Merge", "Merge", {p + "Enter", p + "NextIteration"},
              std::string(kInt) + " attr { key: 'N' value { i: 2 } }") +
         Node(p + "Less", "ExecTestLess", {p + "Merge", p + "Less/Enter"}) +
         Node(p + "LoopCond", "LoopCond", {p + "Less"}) +
         Node(p + "Switch", "Switch", {p + "Merge", p + "LoopCond"}, kInt) +
         Node(p + "Identity", "Identity", {p + "Switch:1"}, kInt) +
         Const(p + "add/y", 1, "DT_INT32", "input: '^" + p + "Identity'") +
         Node(p + "add", "ExecTestAdd", {p + "Identity", p + "add/y"}, kInt) +
         Node(p + "NextIteration", "NextIteration", {p + "add"}, kInt) +
         Node(p + "Exit", "Exit", {p + "Switch"}, kInt);
}

TEST_P(ExecutorThreadsTest, WhileLoopCountsToTen) {
  std::string text = Const("zero", 0) + Const("ten", 10) +
                     WhileGraph("while/", "zero", "ten", "while/ctx");
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"while/Exit:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
    EXPECT_EQ(Int(out[0]), 10);
  }
}

TEST_P(ExecutorThreadsTest, WhileLoopWithFedBoundsAndZeroIterations) {
  std::string text = Const("start", 0) + Const("limit", 10) +
                     WhileGraph("w/", "start", "limit", "w/ctx");
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"start:0", "limit:0"};
  sig.fetches = {"w/Exit:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(),
                                  {Tensor(int32{3}), Tensor(int32{250})}, &out));
  EXPECT_EQ(Int(out[0]), 250);
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(),
                                  {Tensor(int32{7}), Tensor(int32{2})}, &out));
  EXPECT_EQ(Int(out[0]), 7);
}

TEST_P(ExecutorThreadsTest, NestedWhileLoops) {
  // outer: for i in range(3): inner counts j from i to 5; fetch the inner
  // exit of each outer iteration summed into the outer loop variable.
  // Simpler shape: outer loop variable i goes 0 -> 3; its body runs an inner
  // loop from i to 5 and then adds 1 to i. Fetch outer exit (3) and check
  // the inner loop ran by feeding its result into the increment:
  //   i_next = inner_exit - 5 + i + 1 = i + 1.
  const std::string outer_attrs =
      std::string(kInt) + " attr { key: 'frame_name' value { s: 'outer' } }";
  std::string text = Const("zero", 0) + Const("three", 3) + Const("five", 5);
  text += Node("o/Enter", "Enter", {"zero"}, outer_attrs) +
          Node("o/Less/Enter", "Enter", {"three"},
               outer_attrs + " attr { key: 'is_constant' value { b: true } }") +
          Node("o/Five/Enter", "Enter", {"five"},
               outer_attrs + " attr { key: 'is_constant' value { b: true } }") +
          Node("o/Merge", "Merge", {"o/Enter", "o/NextIteration"},
               std::string(kInt) + " attr { key: 'N' value { i: 2 } }") +
          Node("o/Less", "ExecTestLess", {"o/Merge", "o/Less/Enter"}) +
          Node("o/LoopCond", "LoopCond", {"o/Less"}) +
          Node("o/Switch", "Switch", {"o/Merge", "o/LoopCond"}, kInt) +
          Node("o/Identity", "Identity", {"o/Switch:1"}, kInt);
  text += WhileGraph("o/i/", "o/Identity", "o/Five/Enter", "inner");
  text += Const("o/minus5", -5, "DT_INT32", "input: '^o/Identity'") +
          Const("o/one", 1, "DT_INT32", "input: '^o/Identity'") +
          Node("o/a", "ExecTestAdd", {"o/i/Exit", "o/minus5"}, kInt) +
          Node("o/b", "ExecTestAdd", {"o/Identity", "o/one"}, kInt) +
          Node("o/c", "ExecTestAdd", {"o/a", "o/b"}, kInt) +
          Node("o/NextIteration", "NextIteration", {"o/c"}, kInt) +
          Node("o/Exit", "Exit", {"o/Switch"}, kInt);
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"o/Exit:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
  EXPECT_EQ(Int(out[0]), 3);
}

TEST_P(ExecutorThreadsTest, LoopInsideUntakenBranchIsDead) {
  // A while loop fed from the untaken side of a Switch: its Exit is dead,
  // so the Merge takes the other branch.
  std::string text =
      Const("x", 2) + Const("pred", 1, "DT_BOOL") + Const("ten", 10) +
      Node("s", "Switch", {"x", "pred"}, kInt) +
      WhileGraph("w/", "s", "ten", "w/ctx") +  // runs on output_false
      Node("t", "Identity", {"s:1"}, kInt) +
      Node("m", "Merge", {"w/Exit", "t"},
           std::string(kInt) + " attr { key: 'N' value { i: 2 } }");
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"pred:0"};
  sig.fetches = {"m:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(true)}, &out));
  EXPECT_EQ(Int(out[0]), 2);
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(false)}, &out));
  EXPECT_EQ(Int(out[0]), 10);
}

TEST_P(ExecutorThreadsTest, KernelErrorNamesTheNodeAndStopsTheStep) {
  std::string text = Const("a", 1) +
                     Node("bad", "ExecTestFail", {"a"}, kInt) +
                     Node("after", "ExecTestCounted", {"bad"});
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"after:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  const int runs_before = g_counted_runs.load();
  EXPECT_THAT(f.executor->Run(ExecutorRunArgs(), {}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       ::testing::AllOf(HasSubstr("ExecTestFail always fails"),
                                        HasSubstr("{{node bad}}"))));
  // The node after the failing one never ran.
  EXPECT_EQ(g_counted_runs.load(), runs_before);
  // The executor is reusable after a failed step.
  EXPECT_FALSE(f.executor->Run(ExecutorRunArgs(), {}, &out).ok());
}

TEST_P(ExecutorThreadsTest, AsyncKernels) {
  std::string text = Const("a", 1) +
                     Node("inc1", "ExecTestAsyncInc", {"a"}) +
                     Node("inc2", "ExecTestAsyncInc", {"inc1"}) +
                     Node("inc3", "ExecTestAsyncInc", {"a"}) +
                     Node("sum", "ExecTestAdd", {"inc2", "inc3"}, kInt);
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"sum:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  for (int i = 0; i < 5; ++i) {
    std::vector<Tensor> out;
    OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
    EXPECT_EQ(Int(out[0]), 5);
  }
}

TEST_P(ExecutorThreadsTest, ErrorCancelsPendingAsyncWork) {
  // `wait` only finishes when cancelled; `bad` fails, which must cancel it.
  std::string text = Const("a", 1) + Node("wait", "ExecTestWaitForCancel", {"a"}) +
                     Node("bad", "ExecTestFail", {"a"}, kInt) +
                     Node("sum", "ExecTestAdd", {"wait", "bad"}, kInt);
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"sum:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  Status s = f.executor->Run(ExecutorRunArgs(), {}, &out);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node bad}}")));
}

TEST_P(ExecutorThreadsTest, TimeoutStopsALoopThatWouldRunForever) {
  // 2^31 iterations: without the deadline this step would run for minutes.
  std::string text = Const("zero", 0) + Const("big", 2147483647) +
                     WhileGraph("while/", "zero", "big", "while/ctx");
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"while/Exit:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  ExecutorRunArgs args;
  args.timeout_ms = 50;
  for (int step = 0; step < 2; ++step) {  // the executor stays usable
    std::vector<Tensor> out;
    EXPECT_THAT(f.executor->Run(args, {}, &out),
                StatusIs(error::DEADLINE_EXCEEDED,
                         AllOf(HasSubstr("timeout of 50 ms"),
                               HasSubstr("while loop"))));
  }
}

TEST_P(ExecutorThreadsTest, TimeoutCancelsAWaitingAsyncKernel) {
  // `wait` finishes only when cancelled: the deadline must do it.
  std::string text = Const("a", 1) + Node("wait", "ExecTestWaitForCancel", {"a"});
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"wait:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  ExecutorRunArgs args;
  args.timeout_ms = 20;
  std::vector<Tensor> out;
  EXPECT_THAT(f.executor->Run(args, {}, &out),
              StatusIs(error::DEADLINE_EXCEEDED, HasSubstr("timeout of 20 ms")));
}

TEST_P(ExecutorThreadsTest, ConcurrentSteps) {
  std::string text = Const("zero", 0) + Const("ten", 10) +
                     WhileGraph("while/", "zero", "ten", "while/ctx");
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"ten:0"};
  sig.fetches = {"while/Exit:0"};
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&f, &failures, t] {
      for (int i = 0; i < 20; ++i) {
        const int32 limit = t * 10 + i;
        std::vector<Tensor> out;
        Status s = f.executor->Run(ExecutorRunArgs(), {Tensor(limit)}, &out);
        if (!s.ok() || out.size() != 1 || Int(out[0]) != limit) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(ExecutorThreadsTest, WideGraph) {
  std::string text = Const("a", 2);
  ExecutorSignature sig;
  for (int i = 0; i < 200; ++i) {
    const std::string name = "n" + std::to_string(i);
    text += Node(name, "ExecTestAdd", {"a", "a"}, kInt);
    sig.targets.push_back(name);
  }
  sig.fetches = {"n199:0"};
  Fixture f;
  OPKIT_ASSERT_OK(Make(text, sig, GetParam(), &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
  EXPECT_EQ(Int(out[0]), 4);
}

// 0 is one thread per CPU, the default.
INSTANTIATE_TEST_SUITE_P(Threads, ExecutorThreadsTest,
                         ::testing::Values(0, 1, 2, 3));

// Parallel branches of slow (pool) and cheap (inline) nodes feeding a while
// loop: a = 3; b_i = a + i (slow, i = 0..7); c_i = b_i + b_i (cheap);
// s = sum of c_i, by a tree of slow adds = 2 * (8 * 3 + 28) = 104; the loop
// counts from 0 to s; out = loop result + s = 208.
std::string BranchesAndLoopGraph() {
  std::string text = Const("a", 3);
  std::vector<std::string> level;
  for (int i = 0; i < 8; ++i) {
    const std::string k = std::to_string(i);
    text += Const("k" + k, i);
    text += Node("b" + k, "ExecTestSlowAdd", {"a", "k" + k});
    text += Node("c" + k, "ExecTestAdd", {"b" + k, "b" + k}, kInt);
    level.push_back("c" + k);
  }
  int tree = 0;
  while (level.size() > 1) {
    std::vector<std::string> next;
    for (size_t i = 0; i < level.size(); i += 2) {
      const std::string name = "t" + std::to_string(tree++);
      text += Node(name, "ExecTestSlowAdd", {level[i], level[i + 1]});
      next.push_back(name);
    }
    level = next;
  }
  text += Const("zero", 0);
  text += WhileGraph("w/", "zero", level[0], "w/ctx");
  text += Node("out", "ExecTestAdd", {"w/Exit", level[0]}, kInt);
  return text;
}

TEST(ExecutorTest, ResultsAreTheSameForEveryThreadCount) {
  for (int threads : {1, 2, 3, 0}) {
    SCOPED_TRACE(threads);
    Fixture f;
    ExecutorSignature sig;
    sig.fetches = {"out:0", "t6:0", "b7:0", "c0:0"};
    OPKIT_ASSERT_OK(Make(BranchesAndLoopGraph(), sig, threads, &f));
    for (int step = 0; step < 4; ++step) {
      std::vector<Tensor> out;
      OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
      ASSERT_EQ(out.size(), 4u);
      EXPECT_EQ(Int(out[0]), 208);
      EXPECT_EQ(Int(out[1]), 104);
      EXPECT_EQ(Int(out[2]), 10);
      EXPECT_EQ(Int(out[3]), 6);
    }
  }
}

// Which thread ran each node of one step (-1: the calling thread).
std::map<std::string, int> ThreadOfEachNode(Executor* executor) {
  std::vector<NodeExecStats> stats;
  ExecutorRunArgs args;
  args.stats = &stats;
  std::vector<Tensor> out;
  Status s = executor->Run(args, {}, &out);
  EXPECT_THAT(s, IsOk());
  std::map<std::string, int> thread_of;
  for (const NodeExecStats& st : stats) thread_of[st.node_name] = st.thread_id;
  return thread_of;
}

TEST(ExecutorTest, CheapNodesRunOnTheCallingThread) {
  // Kernels that say they are cheap never go to the pool, however many
  // become ready at once.
  std::string text = Const("root", 1);
  ExecutorSignature sig;
  for (int i = 0; i < 50; ++i) {
    const std::string name = "c" + std::to_string(i);
    text += Const(name, i, "DT_INT32", "input: '^root'");
    sig.targets.push_back(name);
  }
  Fixture f;
  OPKIT_ASSERT_OK(Make(text, sig, 2, &f));
  for (int step = 0; step < 3; ++step) {
    const std::map<std::string, int> thread_of = ThreadOfEachNode(f.executor.get());
    EXPECT_EQ(thread_of.size(), 51u);
    for (const auto& [node, thread] : thread_of) {
      EXPECT_EQ(thread, -1) << node;
    }
  }
}

TEST(ExecutorTest, ExpensiveSurplusGoesToThePool) {
  // Four slow nodes ready at once: this thread keeps some, the pool takes
  // the rest; a chain of slow nodes stays on this thread.
  std::string text = Const("a", 1);
  ExecutorSignature sig;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "s" + std::to_string(i);
    text += Node(name, "ExecTestSlowAdd", {"a", "a"});
    sig.targets.push_back(name);
  }
  text += Node("chain0", "ExecTestSlowAdd", {"a", "a"}) +
          Node("chain1", "ExecTestSlowAdd", {"chain0", "a"});
  Fixture f;
  sig.fetches = {"chain1:0"};
  OPKIT_ASSERT_OK(Make(text, sig, 2, &f));
  for (int step = 0; step < 3; ++step) {
    const std::map<std::string, int> thread_of = ThreadOfEachNode(f.executor.get());
    int on_pool = 0;
    for (int i = 0; i < 4; ++i) {
      if (thread_of.at("s" + std::to_string(i)) >= 0) ++on_pool;
    }
    EXPECT_GE(on_pool, 1);
    EXPECT_LE(on_pool, 4);
    EXPECT_EQ(thread_of.at("chain1"), thread_of.at("chain0"));
  }
}

TEST(ExecutorTest, ThreadCounts) {
  EXPECT_EQ(ExecutorOptions().inter_op_threads, 0);
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"id2:0"};
  // 0 (one per CPU) and pins work; negative counts are rejected.
  for (int threads : {0, 1, 4}) {
    OPKIT_EXPECT_OK(Make(Chain(3), sig, threads, &f));
  }
  EXPECT_THAT(
      Make(Chain(3), sig, -2, &f),
      StatusIs(error::INVALID_ARGUMENT,
               AllOf(HasSubstr("ExecutorOptions::inter_op_threads is -2"),
                     HasSubstr("pass 0 for one thread per CPU"))));
}

TEST(ExecutorTest, CostEstimatesDecideWhatIsExpensive) {
  // Note [Inline cheap nodes].
  using internal::executor::KernelSet;
  using internal::executor::kExpensiveNodeNs;
  using internal::executor::kUnmeasuredCost;
  KernelSet set;
  set.cost_ns = std::make_unique<std::atomic<int64_t>[]>(3);
  set.cost_ns[0] = 0;  // a kernel that says it is cheap
  set.cost_ns[1] = kUnmeasuredCost;
  set.cost_ns[2] = kUnmeasuredCost;
  EXPECT_FALSE(set.IsExpensive(0));
  EXPECT_TRUE(set.IsExpensive(1));
  // The first measurement replaces "unmeasured".
  set.UpdateCost(1, 100);
  EXPECT_FALSE(set.IsExpensive(1));
  EXPECT_EQ(set.cost_ns[1].load(), 100);
  set.UpdateCost(2, 1000000);
  EXPECT_TRUE(set.IsExpensive(2));
  // Later ones decay into it: (1000000 * 3 + 200000) / 4.
  set.UpdateCost(2, 200000);
  EXPECT_EQ(set.cost_ns[2].load(), 800000);
  for (int i = 0; i < 30; ++i) set.UpdateCost(2, 100);
  EXPECT_LT(set.cost_ns[2].load(), kExpensiveNodeNs);
  EXPECT_FALSE(set.IsExpensive(2));
}

TEST(ExecutorTest, StepStatsHaveOneEntryPerNodeRun) {
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"id4:0"};
  OPKIT_ASSERT_OK(Make(Chain(5), sig, 1, &f));
  std::vector<NodeExecStats> stats;
  ExecutorRunArgs args;
  args.stats = &stats;
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(args, {}, &out));
  ASSERT_EQ(stats.size(), 6u);
  EXPECT_EQ(stats[0].node_name, "c");
  EXPECT_EQ(stats[5].node_name, "id4");
  EXPECT_EQ(stats[5].op, "Identity");
  for (const NodeExecStats& s : stats) EXPECT_LE(s.start_ns, s.end_ns);
}

TEST(ExecutorTest, PrunesToWhatTheFetchesNeed) {
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"id2:0"};
  OPKIT_ASSERT_OK(Make(Chain(10), sig, 1, &f));
  EXPECT_EQ(f.executor->num_nodes_to_run(), 3 + 1);
  // A fed tensor cuts the chain above it.
  sig.feeds = {"id1:0"};
  OPKIT_ASSERT_OK(Make(Chain(10), sig, 1, &f));
  EXPECT_EQ(f.executor->num_nodes_to_run(), 1);
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(int32{42})}, &out));
  EXPECT_EQ(Int(out[0]), 42);
}

TEST(ExecutorTest, FetchingAFedTensorReturnsTheFeed) {
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"c"};
  sig.fetches = {"c:0"};
  OPKIT_ASSERT_OK(Make(Chain(2), sig, 1, &f));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {Tensor(int32{9})}, &out));
  EXPECT_EQ(Int(out[0]), 9);
}

TEST(ExecutorTest, BadSignatures) {
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"nope:0"};
  EXPECT_THAT(Make(Chain(2), sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'nope:0'")));
  sig.fetches = {"id0:3"};
  EXPECT_THAT(Make(Chain(2), sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("names output 3")));
  sig.fetches = {"id0"};
  sig.feeds = {"c:0", "c"};
  EXPECT_THAT(Make(Chain(2), sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("fed more than once")));
  sig.feeds = {"zz:0"};
  EXPECT_THAT(Make(Chain(2), sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'zz:0'")));
  sig.feeds = {};
  sig.targets = {"^nope"};
  EXPECT_THAT(Make(Chain(2), sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("names no node")));
}

TEST(ExecutorTest, FeedOfWrongDtypeOrCount) {
  Fixture f;
  ExecutorSignature sig;
  sig.feeds = {"c:0"};
  sig.fetches = {"id1:0"};
  OPKIT_ASSERT_OK(Make(Chain(2), sig, 1, &f));
  std::vector<Tensor> out;
  EXPECT_THAT(f.executor->Run(ExecutorRunArgs(), {Tensor(1.5f)}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       ::testing::AllOf(HasSubstr("c:0"), HasSubstr("float"),
                                        HasSubstr("int32"))));
  EXPECT_THAT(f.executor->Run(ExecutorRunArgs(), {}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected 1")));
}

TEST(ExecutorTest, FrameErrors) {
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"x:0"};
  // An Exit with no loop around it.
  EXPECT_THAT(Make(Const("a", 1) + Node("x", "Exit", {"a"}, kInt), sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node x}}")));
  // A node fed from inside and outside a loop frame.
  const std::string enter =
      std::string(kInt) + " attr { key: 'frame_name' value { s: 'f' } }";
  EXPECT_THAT(Make(Const("a", 1) + Node("e", "Enter", {"a"}, enter) +
                       Node("x", "ExecTestAdd", {"e", "a"}, kInt),
                   sig, 1, &f),
              StatusIs(error::INVALID_ARGUMENT,
                       ::testing::AllOf(HasSubstr("two frames"),
                                        HasSubstr("{{node x}}"))));
}

TEST(ExecutorTest, KernelsAreCreatedOnceAndReselectedOnRegistryChange) {
  std::string text = Const("a", 1) + Node("k", "ExecTestCounted", {"a"});
  Fixture f;
  ExecutorSignature sig;
  sig.fetches = {"k:0"};
  const int before = g_counted_constructions.load();
  OPKIT_ASSERT_OK(Make(text, sig, 1, &f));
  std::vector<Tensor> out;
  for (int i = 0; i < 5; ++i) {
    OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
    EXPECT_EQ(Int(out[0]), 1);
  }
  EXPECT_EQ(g_counted_constructions.load(), before + 1);

  KernelRegistration reg;
  reg.def = KernelDefBuilder("ExecTestCounted").Device(DEVICE_CPU).BuildDef();
  reg.kernel_class_name = "ExecTestCountedPlusOp";
  reg.factory = &CreateCountedPlus;
  reg.origin = RegistrationOrigin{__FILE__, __LINE__, ""};
  {
    auto scoped =
        ScopedKernelOverride::Create(KernelRegistry::Global(), std::move(reg));
    OPKIT_ASSERT_OK(scoped);
    OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
    EXPECT_EQ(Int(out[0]), 1001);
  }
  OPKIT_ASSERT_OK(f.executor->Run(ExecutorRunArgs(), {}, &out));
  EXPECT_EQ(Int(out[0]), 1);
  EXPECT_EQ(g_counted_constructions.load(), before + 2);
}

TEST(ExecutorTest, CreateRejectsMissingGraphOrDevices) {
  EXPECT_THAT(Executor::Create(nullptr, {}, ExecutorSignature()).status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no graph")));
}

}  // namespace
}  // namespace opkit

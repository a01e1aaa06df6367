// Tests of the TensorFlow compatibility headers (compat/): this file is
// written the way a TensorFlow op author writes code — TensorFlow's include
// paths, `using namespace tensorflow;`, TensorFlow's spellings — and checks
// that each spelling means what it means in TensorFlow: types and limits,
// Status and errors::, logging and CHECK, mutex, TF_CALL_*, shape
// functions, kernels with Shard, AsyncOpKernel and ResourceMgr run through
// opkit's EagerContext.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/resource_mgr.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/lib/core/errors.h"
#include "tensorflow/core/lib/core/status.h"
#include "tensorflow/core/lib/core/threadpool.h"
#include "tensorflow/core/lib/strings/strcat.h"
#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/mutex.h"
#include "tensorflow/core/platform/statusor.h"
#include "tensorflow/core/platform/stringpiece.h"
#include "tensorflow/core/platform/types.h"
#include "tensorflow/core/util/work_sharder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/attr_value.pb.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

using namespace tensorflow;

// opkit::testing (the matchers) and gtest's ::testing are both visible once
// namespace tensorflow is imported, so gtest's names are written ::testing.
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- Ops and kernels written the TensorFlow way, run through EagerContext --

REGISTER_OP("CompatZeroOut")
    .Attr("T: realnumbertype")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

REGISTER_OP("CompatVectorOnly")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle input;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
      c->set_output(0, input);
      return Status::OK();
    });

REGISTER_OP("CompatRowsBy3")
    .Input("in: float")
    .Output("out: float")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      c->set_output(0, c->Matrix(c->Dim(c->input(0), 0), 3));
      return Status::OK();
    });

REGISTER_OP("CompatMergeMatrices")
    .Attr("N: int >= 1")
    .Input("in: N * float")
    .Output("out: float")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle input;
      ::tensorflow::shape_inference::ShapeHandle output;
      for (size_t i = 0; i < c->num_inputs(); ++i) {
        TF_RETURN_IF_ERROR(c->WithRank(c->input(i), 2, &input));
        TF_RETURN_IF_ERROR(c->Merge(output, input, &output));
      }
      c->set_output(0, output);
      return Status::OK();
    });

REGISTER_OP("CompatShardTimesTwo")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("CompatAsyncTimesThree")
    .Input("x: int32")
    .Output("y: int32")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("CompatCounter")
    .Output("count: int64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ScalarShape);

namespace {

template <typename T>
class CompatZeroOutOp : public OpKernel {
 public:
  explicit CompatZeroOutOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<T>();
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input_tensor.shape(), &output));
    auto output_flat = output->template flat<T>();
    const int N = input.size();
    for (int i = 0; i < N; i++) output_flat(i) = T(0);
    if (N > 0) output_flat(0) = input(0);
  }
};

class CompatVectorOnlyOp : public OpKernel {
 public:
  explicit CompatVectorOnlyOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(input_tensor.shape()),
                errors::InvalidArgument("ZeroOut expects a 1-D vector."));
    context->set_output(0, input_tensor);
  }
};

// y = 2 * x, split over the device's intra-op threads with Shard.
class CompatShardTimesTwoOp : public OpKernel {
 public:
  explicit CompatShardTimesTwoOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    auto in = x.flat<float>();
    auto out = y->flat<float>();
    auto worker_threads = *(context->device()->tensorflow_cpu_worker_threads());
    Shard(worker_threads.num_threads, worker_threads.workers, in.size(),
          /*cost_per_unit=*/1000, [&in, &out](int64 begin, int64 end) {
            for (int64 i = begin; i < end; ++i) out(i) = 2 * in(i);
          });
  }
};

// y = 3 * x, computed on another thread; `done` is called from there.
class CompatAsyncTimesThreeOp : public AsyncOpKernel {
 public:
  explicit CompatAsyncTimesThreeOp(OpKernelConstruction* context)
      : AsyncOpKernel(context) {}
  void ComputeAsync(OpKernelContext* context, DoneCallback done) override {
    const Tensor& x = context->input(0);
    OP_REQUIRES_ASYNC(context, x.NumElements() < 1000,
                      errors::InvalidArgument("too many elements: ",
                                              x.NumElements()),
                      done);
    thread::ThreadPool* pool =
        context->device()->tensorflow_cpu_worker_threads()->workers;
    pool->Schedule([context, done, x]() {
      Tensor* y = NULL;
      OP_REQUIRES_OK_ASYNC(context,
                           context->allocate_output(0, x.shape(), &y), done);
      auto in = x.flat<int32>();
      auto out = y->flat<int32>();
      for (int64 i = 0; i < in.size(); ++i) out(i) = 3 * in(i);
      done();
    });
  }
};

class CallCounter : public ResourceBase {
 public:
  string DebugString() const override { return "CallCounter"; }
  mutex mu;
  int64 count TF_GUARDED_BY(mu) = 0;
};

// Counts its own calls in a resource shared through the device's ResourceMgr.
class CompatCounterOp : public OpKernel {
 public:
  explicit CompatCounterOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    CallCounter* counter = nullptr;
    OP_REQUIRES_OK(context,
                   context->resource_manager()->LookupOrCreate<CallCounter>(
                       "compat_test", "calls", &counter,
                       [](CallCounter** c) {
                         *c = new CallCounter;
                         return Status::OK();
                       }));
    core::ScopedUnref unref(counter);
    int64 now;
    {
      mutex_lock l(counter->mu);
      now = ++counter->count;
    }
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape({}), &output));
    output->scalar<int64>()() = now;
  }
};

}  // namespace

#define REGISTER_KERNEL(type)                                             \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("CompatZeroOut").Device(DEVICE_CPU).TypeConstraint<type>("T"), \
      CompatZeroOutOp<type>)
TF_CALL_REAL_NUMBER_TYPES(REGISTER_KERNEL);
#undef REGISTER_KERNEL

REGISTER_KERNEL_BUILDER(Name("CompatVectorOnly").Device(DEVICE_CPU),
                        CompatVectorOnlyOp);
REGISTER_KERNEL_BUILDER(Name("CompatShardTimesTwo").Device(DEVICE_CPU),
                        CompatShardTimesTwoOp);
REGISTER_KERNEL_BUILDER(Name("CompatAsyncTimesThree").Device(DEVICE_CPU),
                        CompatAsyncTimesThreeOp);
REGISTER_KERNEL_BUILDER(Name("CompatCounter").Device(DEVICE_CPU),
                        CompatCounterOp);

namespace {

// --- Types -------------------------------------------------------------------

TEST(CompatTypesTest, IntegerTypesAreTensorFlows) {
  static_assert(std::is_same_v<int8, std::int8_t>);
  static_assert(std::is_same_v<int16, std::int16_t>);
  static_assert(std::is_same_v<int32, std::int32_t>);
  static_assert(std::is_same_v<int64, std::int64_t>);
  static_assert(std::is_same_v<uint8, std::uint8_t>);
  static_assert(std::is_same_v<uint16, std::uint16_t>);
  static_assert(std::is_same_v<uint32, std::uint32_t>);
  static_assert(std::is_same_v<uint64, std::uint64_t>);
  static_assert(std::is_same_v<string, std::string>);
  static_assert(std::is_same_v<tstring, std::string>);
  static_assert(std::is_same_v<tensorflow::int32, ::opkit::int32>);
  static_assert(std::is_same_v<StringPiece, std::string_view>);
  static_assert(std::is_same_v<complex64, std::complex<float>>);
  static_assert(std::is_same_v<half, Eigen::half>);
}

TEST(CompatTypesTest, Limits) {
  EXPECT_EQ(kint32max, 2147483647);
  EXPECT_EQ(tensorflow::kint32max, std::numeric_limits<int32>::max());
  EXPECT_EQ(kint32min, std::numeric_limits<int32>::min());
  EXPECT_EQ(kint64max, std::numeric_limits<int64>::max());
  EXPECT_EQ(kint64min, std::numeric_limits<int64>::min());
  EXPECT_EQ(kint8min, -128);
  EXPECT_EQ(kint8max, 127);
  EXPECT_EQ(kint16min, -32768);
  EXPECT_EQ(kint16max, 32767);
  EXPECT_EQ(kuint8max, 255);
  EXPECT_EQ(kuint16max, 65535);
  EXPECT_EQ(kuint32max, 4294967295u);
  EXPECT_EQ(kuint64max, std::numeric_limits<uint64>::max());
}

TEST(CompatTypesTest, DataTypesAndDevices) {
  EXPECT_EQ(DataTypeToEnum<int32>::v(), DT_INT32);
  EXPECT_EQ(DataTypeToEnum<float>::value, tensorflow::DT_FLOAT);
  EXPECT_EQ(DataTypeToEnum<tstring>::v(), DT_STRING);
  EXPECT_EQ(DataTypeString(DT_HALF), "half");
  EXPECT_EQ(string(DEVICE_CPU), "CPU");
  EXPECT_EQ(DeviceType(DEVICE_GPU).type_string(), "GPU");
  Tensor t(DT_INT32, TensorShape({2, 3}));
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_TRUE(TensorShapeUtils::IsMatrix(t.shape()));
  TTypes<int32>::Matrix m = t.matrix<int32>();
  m.setConstant(7);
  EXPECT_EQ(t.flat<int32>()(5), 7);
}

// The names TensorFlow sources use qualified, unqualified and alongside
// `using namespace std;` all name opkit's entities, with no ambiguity.
namespace with_std {
using namespace std;  // NOLINT
using namespace tensorflow;  // NOLINT
string Describe(const Tensor& t) { return t.shape().DebugString(); }
}  // namespace with_std

TEST(CompatTypesTest, NamesResolveToOpkitEntities) {
  static_assert(std::is_same_v<::tensorflow::Status, ::opkit::Status>);
  static_assert(std::is_same_v<tensorflow::Tensor, ::opkit::Tensor>);
  static_assert(std::is_same_v<Tensor, ::opkit::Tensor>);
  static_assert(std::is_same_v<TensorShape, ::opkit::TensorShape>);
  static_assert(std::is_same_v<OpKernel, ::opkit::OpKernel>);
  static_assert(std::is_same_v<OpKernelContext, ::opkit::OpKernelContext>);
  static_assert(
      std::is_same_v<OpKernelConstruction, ::opkit::OpKernelConstruction>);
  static_assert(std::is_same_v<AsyncOpKernel, ::opkit::AsyncOpKernel>);
  static_assert(std::is_same_v<ResourceMgr, ::opkit::ResourceMgr>);
  static_assert(std::is_same_v<ResourceBase, ::opkit::ResourceBase>);
  static_assert(std::is_same_v<thread::ThreadPool, ::opkit::ThreadPool>);
  static_assert(std::is_same_v<mutex, ::opkit::mutex>);
  static_assert(std::is_same_v<mutex_lock, ::opkit::mutex_lock>);
  static_assert(std::is_same_v<tf_shared_lock, ::opkit::shared_lock>);
  static_assert(std::is_same_v<shape_inference::InferenceContext,
                               ::opkit::shape_inference::InferenceContext>);
  static_assert(std::is_same_v<::tensorflow::shape_inference::ShapeHandle,
                               ::opkit::shape_inference::ShapeHandle>);
  static_assert(std::is_same_v<core::RefCounted, ::opkit::core::RefCounted>);
  static_assert(std::is_same_v<tensorflow::TensorProto, ::opkit::TensorProto>);
  EXPECT_EQ(with_std::Describe(Tensor(DT_FLOAT, TensorShape({4}))), "[4]");
}

// --- Status and errors --------------------------------------------------------

Status FailIfNegative(int n) {
  if (n < 0) {
    return errors::InvalidArgument("Need preserve_index >= 0, got ", n);
  }
  return Status::OK();
}

Status Twice(int n) {
  TF_RETURN_IF_ERROR(FailIfNegative(n));
  TF_RETURN_IF_ERROR(FailIfNegative(n - 10));
  return Status::OK();
}

StatusOr<int64> Doubled(int n) {
  TF_RETURN_IF_ERROR(FailIfNegative(n));
  return 2 * n;
}

Status UseDoubled(int n, int64* out) {
  TF_ASSIGN_OR_RETURN(*out, Doubled(n));
  return Status::OK();
}

TEST(CompatStatusTest, OkAndErrors) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_TRUE(OkStatus().ok());
  Status s = FailIfNegative(-1);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), error::INVALID_ARGUMENT);
  EXPECT_EQ(s.code(), tensorflow::error::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "Need preserve_index >= 0, got -1");
  EXPECT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_FALSE(errors::IsNotFound(s));
  EXPECT_EQ(s.ToString(), "Invalid argument: Need preserve_index >= 0, got -1");
  EXPECT_THAT(Status(error::NOT_FOUND, "gone"),
              StatusIs(error::NOT_FOUND, HasSubstr("gone")));
  EXPECT_EQ(errors::Internal("a", 1, "b").code(), error::INTERNAL);
  EXPECT_EQ(errors::Unimplemented("x").code(), error::UNIMPLEMENTED);
  EXPECT_EQ(errors::FailedPrecondition("x").code(),
            error::FAILED_PRECONDITION);
  EXPECT_EQ(errors::OutOfRange("x").code(), error::OUT_OF_RANGE);
}

TEST(CompatStatusTest, ReturnIfErrorAndAssignOrReturn) {
  EXPECT_THAT(Twice(12), IsOk());
  EXPECT_THAT(Twice(3), StatusIs(error::INVALID_ARGUMENT,
                                 HasSubstr("got -7")));
  int64 out = 0;
  EXPECT_THAT(UseDoubled(21, &out), IsOk());
  EXPECT_EQ(out, 42);
  EXPECT_THAT(UseDoubled(-2, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("got -2")));
}

TEST(CompatStatusTest, StrCat) {
  string s = strings::StrCat("got ", 3, " of ", 4.5, " ", true);
  EXPECT_EQ(s, "got 3 of 4.5 true");
  strings::StrAppend(&s, ", more: ", int64{7});
  EXPECT_EQ(s, "got 3 of 4.5 true, more: 7");
}

// --- Logging and CHECK ------------------------------------------------------

class CapturingSink : public ::opkit::LogSink {
 public:
  void Send(const ::opkit::LogEntry& entry) override {
    mutex_lock l(mu_);
    messages_.push_back(entry.message);
  }
  std::vector<string> messages() {
    mutex_lock l(mu_);
    return messages_;
  }

 private:
  mutex mu_;
  std::vector<string> messages_ TF_GUARDED_BY(mu_);
};

class CompatLoggingTest : public ::testing::Test {
 protected:
  void SetUp() override { ::opkit::AddLogSink(&sink_); }
  void TearDown() override { ::opkit::RemoveLogSink(&sink_); }
  CapturingSink sink_;
};

TEST_F(CompatLoggingTest, LogGoesToOpkitLogging) {
  LOG(INFO) << "Remove kernel:   " << 3;
  LOG(WARNING) << "careful";
  LOG(ERROR) << "bad";
  EXPECT_THAT(sink_.messages(),
              ElementsAre("Remove kernel:   3", "careful", "bad"));
}

TEST_F(CompatLoggingTest, LogEveryNAndFirstN) {
  for (int i = 0; i < 10; ++i) {
    LOG_EVERY_N(INFO, 3) << "every " << i;
    LOG_FIRST_N(INFO, 2) << "first " << i;
  }
  EXPECT_THAT(sink_.messages(),
              ElementsAre("every 0", "first 0", "first 1", "every 3",
                          "every 6", "every 9"));
}

TEST(CompatCheckTest, PassingChecksDoNothingAndEvaluateOnce) {
  int evaluations = 0;
  auto next = [&evaluations]() { return ++evaluations; };
  CHECK(next() == 1) << "never printed";
  CHECK_EQ(next(), 2);
  CHECK_NE(next(), 0);
  CHECK_LT(next(), 5);
  CHECK_LE(next(), 5);
  CHECK_GT(next(), 5);
  CHECK_GE(next(), 7);
  EXPECT_EQ(evaluations, 7);
  int value = 5;
  int* p = CHECK_NOTNULL(&value);
  EXPECT_EQ(*p, 5);
  TF_CHECK_OK(Status::OK());
  TF_CHECK_OK(FailIfNegative(1)) << "not printed";
  DCHECK(true);
  DCHECK_EQ(1, 1);
  TF_DCHECK_OK(Status::OK());
  EXPECT_TRUE(VLOG_IS_ON(0) || !VLOG_IS_ON(0));
}

TEST(CompatCheckTest, DcheckCompiledOutUnderNdebug) {
  int evaluations = 0;
  auto next = [&evaluations]() { return ++evaluations; };
  DCHECK_GE(next(), 1);
  DCHECK(next() > 0);
#ifdef NDEBUG
  EXPECT_EQ(evaluations, 0);
#else
  EXPECT_EQ(evaluations, 2);
#endif
}

TEST(CompatCheckDeathTest, FailingChecksAbortWithTensorFlowsMessage) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(CHECK(1 + 1 == 3) << "arith", "Check failed: 1 \\+ 1 == 3 arith");
  EXPECT_DEATH(CHECK_EQ(2, 1 + 2) << "sum", "Check failed: 2 == 1 \\+ 2 \\(2 vs. 3\\) sum");
  EXPECT_DEATH(CHECK_LT(5, 4), "Check failed: 5 < 4 \\(5 vs. 4\\)");
  int* null = nullptr;
  EXPECT_DEATH(CHECK_NOTNULL(null), "'null' Must be non NULL");
  EXPECT_DEATH(TF_CHECK_OK(FailIfNegative(-3)),
               "FailIfNegative\\(-3\\) status: Invalid argument: Need "
               "preserve_index >= 0, got -3");
  EXPECT_DEATH(LOG(FATAL) << "fatal " << 1, "fatal 1");
#ifndef NDEBUG
  EXPECT_DEATH(DCHECK_EQ(1, 2), "Check failed: 1 == 2 \\(1 vs. 2\\)");
#endif
}

// --- mutex ---------------------------------------------------------------------

class GuardedCounter {
 public:
  void Add(int64 n) TF_LOCKS_EXCLUDED(mu_) {
    mutex_lock l(mu_);
    AddLocked(n);
  }
  int64 Get() TF_LOCKS_EXCLUDED(mu_) {
    tf_shared_lock l(mu_);
    return value_;
  }
  void WaitFor(int64 target) {
    mutex_lock l(mu_);
    cv_.wait(l, [this, target]() TF_NO_THREAD_SAFETY_ANALYSIS {
      return value_ >= target;
    });
  }

 private:
  void AddLocked(int64 n) TF_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    value_ += n;
    cv_.notify_all();
  }
  mutex mu_;
  condition_variable cv_;
  int64 value_ GUARDED_BY(mu_) = 0;
};

TEST(CompatMutexTest, MutexLockSerializesUpdates) {
  GuardedCounter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter]() {
      for (int i = 0; i < 1000; ++i) counter.Add(1);
    });
  }
  counter.WaitFor(4000);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counter.Get(), 4000);
}

TEST(CompatMutexTest, ThreadPoolParallelFor) {
  thread::ThreadPool pool("compat_test", 3);
  std::vector<int> hits(100, 0);
  pool.ParallelFor(100, 10, [&hits](int64 begin, int64 end) {
    for (int64 i = begin; i < end; ++i) hits[i]++;
  });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 100);
}

// --- TF_CALL_* --------------------------------------------------------------

std::set<DataType> Collected(const std::vector<DataType>& v) {
  return std::set<DataType>(v.begin(), v.end());
}

TEST(CompatRegisterTypesTest, TypeListsMatchTheNamedTypeSets) {
  std::vector<DataType> real;
#define COLLECT(T) real.push_back(DataTypeToEnum<T>::v());
  TF_CALL_REAL_NUMBER_TYPES(COLLECT)
#undef COLLECT
  EXPECT_EQ(real.size(), RealNumberTypes().size());
  EXPECT_EQ(Collected(real), Collected(RealNumberTypes()));

  std::vector<DataType> number;
#define COLLECT(T) number.push_back(DataTypeToEnum<T>::v());
  TF_CALL_NUMBER_TYPES(COLLECT)
  TF_CALL_QUANTIZED_TYPES(COLLECT)
#undef COLLECT
  EXPECT_EQ(Collected(number), Collected(NumberTypes()));

  std::vector<DataType> listed;
#define COLLECT(T) listed.push_back(DataTypeToEnum<T>::v());
  TF_CALL_INTEGRAL_TYPES(COLLECT)
#undef COLLECT
  EXPECT_EQ(Collected(listed),
            (std::set<DataType>{DT_INT8, DT_INT16, DT_INT32, DT_INT64,
                                DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64}));
  listed.clear();
#define COLLECT(T) listed.push_back(DataTypeToEnum<T>::v());
  TF_CALL_float(COLLECT) TF_CALL_int32(COLLECT) TF_CALL_bool(COLLECT)
      TF_CALL_tstring(COLLECT) TF_CALL_half(COLLECT)
#undef COLLECT
  EXPECT_THAT(listed, ElementsAre(DT_FLOAT, DT_INT32, DT_BOOL, DT_STRING,
                                  DT_HALF));
}

// --- Shape functions ----------------------------------------------------------

using ::opkit::shape_inference::ShapeInferenceTestOp;

TEST(CompatShapeFnTest, GuideShapeFunctions) {
  ShapeInferenceTestOp unchanged("CompatZeroOut");
  ::opkit::AddNodeAttr("T", DT_FLOAT, &unchanged.node_def);
  INFER_OK(unchanged, "[2,?]", "in0");
  INFER_OK(unchanged, "?", "in0");

  ShapeInferenceTestOp vector("CompatVectorOnly");
  INFER_OK(vector, "[5]", "in0");
  INFER_OK(vector, "?", "[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", vector, "[1,2]");

  ShapeInferenceTestOp rows("CompatRowsBy3");
  INFER_OK(rows, "[7,2,2]", "[d0_0,3]");
  INFER_OK(rows, "?", "[?,3]");

  ShapeInferenceTestOp merged("CompatMergeMatrices");
  ::opkit::AddNodeAttr("N", 3, &merged.node_def);
  INFER_OK(merged, "[2,?];[?,3];?", "[d0_0,d1_1]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", merged, "[2,3];[2];?");
  INFER_ERROR("Dimension 0 in both shapes must be equal", merged, "[2,3];[4,3];?");
}

// --- Kernels run eagerly ------------------------------------------------------

class CompatKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = ::opkit::EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = std::move(ctx).value();
  }
  std::unique_ptr<::opkit::EagerContext> ctx_;
};

TEST_F(CompatKernelTest, TemplatedZeroOutOverRealNumberTypes) {
  Tensor x(DT_DOUBLE, TensorShape({3}));
  x.flat<double>().setValues({1.5, 2.5, 3.5});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatZeroOut", {x}, &out), IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DT_DOUBLE);
  EXPECT_EQ(out[0].flat<double>()(0), 1.5);
  EXPECT_EQ(out[0].flat<double>()(1), 0.0);
  EXPECT_EQ(out[0].flat<double>()(2), 0.0);

  Tensor h(DT_HALF, TensorShape({2}));
  h.flat<half>()(0) = half(4.0f);
  h.flat<half>()(1) = half(5.0f);
  ASSERT_THAT(ctx_->Run("CompatZeroOut", {h}, &out), IsOk());
  EXPECT_EQ(static_cast<float>(out[0].flat<half>()(0)), 4.0f);
  EXPECT_EQ(static_cast<float>(out[0].flat<half>()(1)), 0.0f);

  // bool is not a real number type: rejected before any kernel runs.
  EXPECT_THAT(ctx_->Run("CompatZeroOut", {Tensor(true)}, &out),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(CompatKernelTest, OpRequiresReportsTheStatus) {
  Tensor m(DT_INT32, TensorShape({2, 2}));
  m.flat<int32>().setZero();
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("CompatVectorOnly", {m}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("ZeroOut expects a 1-D vector.")));
}

TEST_F(CompatKernelTest, ShardSplitsTheWork) {
  Tensor x(DT_FLOAT, TensorShape({10000}));
  auto in = x.flat<float>();
  for (int64 i = 0; i < in.size(); ++i) in(i) = static_cast<float>(i);
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatShardTimesTwo", {x}, &out), IsOk());
  auto y = out[0].flat<float>();
  ASSERT_EQ(y.size(), 10000);
  for (int64 i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y(i), 2.0f * static_cast<float>(i)) << "at " << i;
  }
}

TEST_F(CompatKernelTest, AsyncKernelCompletesOnAnotherThread) {
  Tensor x(DT_INT32, TensorShape({4}));
  x.flat<int32>().setValues({1, 2, 3, -4});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatAsyncTimesThree", {x}, &out), IsOk());
  auto y = out[0].flat<int32>();
  EXPECT_EQ(y(0), 3);
  EXPECT_EQ(y(1), 6);
  EXPECT_EQ(y(2), 9);
  EXPECT_EQ(y(3), -12);

  Tensor big(DT_INT32, TensorShape({2000}));
  big.flat<int32>().setZero();
  EXPECT_THAT(ctx_->Run("CompatAsyncTimesThree", {big}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("too many elements: 2000")));
}

TEST_F(CompatKernelTest, ResourceMgrKeepsStateAcrossCalls) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatCounter", {}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int64>()(), 1);
  ASSERT_THAT(ctx_->Run("CompatCounter", {}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int64>()(), 2);
}

// --- Refcount and macros ------------------------------------------------------

class Tracked : public core::RefCounted {
 public:
  explicit Tracked(bool* destroyed) : destroyed_(destroyed) {}
  ~Tracked() override { *destroyed_ = true; }

 private:
  bool* destroyed_;
  TF_DISALLOW_COPY_AND_ASSIGN(Tracked);
};

TEST(CompatMiscTest, RefCountedAndScopedUnref) {
  bool destroyed = false;
  Tracked* t = new Tracked(&destroyed);
  t->Ref();
  {
    core::ScopedUnref unref(t);
  }
  EXPECT_FALSE(destroyed);
  t->Unref();
  EXPECT_TRUE(destroyed);
  EXPECT_TRUE(TF_PREDICT_TRUE(1 + 1 == 2));
  EXPECT_FALSE(TF_PREDICT_FALSE(1 + 1 == 3));
  const int array[] = {1, 2, 3};
  EXPECT_EQ(TF_ARRAYSIZE(array), 3u);
}

}  // namespace

// The TensorFlow headers op libraries include beyond the guide (issue 14,
// items 4-8, 11, 12): moved platform paths (tsl/, xla/tsl/,
// tensorflow/tsl/, platform/default/), public/version.h, lib/gtl/,
// lib/strings/, framework/bounds_check.h, lib/io/path.h, tensor_format.h,
// util/sparse/sparse_tensor.h, platform/env.h, lib/core/threadpool.h and
// partial_tensor_shape.h. Each is used the way published op libraries use
// it, and the results are the ones TensorFlow documents.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflow/core/framework/bounds_check.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/partial_tensor_shape.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_format.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/lib/core/errors.h"
#include "tensorflow/core/lib/core/threadpool.h"
#include "tensorflow/core/lib/gtl/array_slice.h"
#include "tensorflow/core/lib/gtl/cleanup.h"
#include "tensorflow/core/lib/gtl/flatmap.h"
#include "tensorflow/core/lib/gtl/flatset.h"
#include "tensorflow/core/lib/gtl/inlined_vector.h"
#include "tensorflow/core/lib/gtl/map_util.h"
#include "tensorflow/core/lib/gtl/top_n.h"
#include "tensorflow/core/lib/io/path.h"
#include "tensorflow/core/lib/strings/numbers.h"
#include "tensorflow/core/lib/strings/str_util.h"
#include "tensorflow/core/lib/strings/stringprintf.h"
#include "tensorflow/core/platform/default/logging.h"
#include "tensorflow/core/platform/env.h"
#include "tensorflow/core/public/version.h"
#include "tensorflow/core/util/sparse/sparse_tensor.h"
#include "tensorflow/core/util/tensor_format.h"
#include "tensorflow/tsl/platform/mutex.h"
#include "tsl/platform/errors.h"
#include "tsl/platform/status.h"
#include "tsl/platform/threadpool.h"
#include "xla/tsl/platform/statusor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace tensorflow {
namespace {

// --- Item 4: the moved platform paths name the same entities --------------

tsl::StatusOr<int> Half(int n) {
  if (n % 2 != 0) return tsl::errors::InvalidArgument("odd: ", n);
  return n / 2;
}

TEST(CompatMovedPathsTest, TslSpellingsAreTensorFlows) {
  static_assert(std::is_same<tsl::Status, Status>::value, "");
  static_assert(std::is_same<tsl::StatusOr<int>, StatusOr<int>>::value, "");
  static_assert(std::is_same<tsl::mutex, mutex>::value, "");
  static_assert(std::is_same<tsl::thread::ThreadPool, thread::ThreadPool>::value,
                "");
  static_assert(std::is_same<tsl::int64, int64>::value, "");
  EXPECT_EQ(*Half(8), 4);
  EXPECT_THAT(Half(3).status(), StatusIs(error::INVALID_ARGUMENT, "odd: 3"));
  tsl::mutex mu;
  tsl::mutex_lock lock(mu);
  EXPECT_TRUE(tsl::OkStatus().ok());
}

// --- Item 5: version.h ------------------------------------------------------

TEST(CompatVersionTest, FollowsTensorFlow215) {
#if TF_MAJOR_VERSION >= 2 && TF_MINOR_VERSION >= 13
  const bool modern = true;
#else
  const bool modern = false;
#endif
  EXPECT_TRUE(modern);
  EXPECT_STREQ(TF_VERSION_STRING, "2.15.0");
  EXPECT_GE(TF_GRAPH_DEF_VERSION, TF_GRAPH_DEF_VERSION_MIN_CONSUMER);
}

// --- Item 6: lib/gtl -----------------------------------------------------------

int64 Product(gtl::ArraySlice<int64> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64{1},
                         std::multiplies<int64>());
}

void Iota(gtl::MutableArraySlice<int> out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(i);
}

TEST(CompatGtlTest, ArraySliceAndInlinedVector) {
  EXPECT_EQ(Product({2, 3, 4}), 24);
  std::vector<int64> v = {5, 6};
  EXPECT_EQ(Product(v), 30);
  gtl::InlinedVector<int64, 4> dims = {7, 2};
  EXPECT_EQ(Product(dims), 14);
  int buf[3];
  Iota(buf);
  EXPECT_THAT(buf, ElementsAre(0, 1, 2));
}

TEST(CompatGtlTest, FlatMapAndFlatSet) {
  gtl::FlatMap<string, int64> counts;
  for (const char* w : {"a", "b", "a", "c", "a"}) ++counts[w];
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts["a"], 3);
  EXPECT_EQ(counts.count("z"), 0u);
  gtl::FlatSet<int64> seen;
  EXPECT_TRUE(seen.insert(4).second);
  EXPECT_FALSE(seen.insert(4).second);
  EXPECT_EQ(seen.size(), 1u);
}

TEST(CompatGtlTest, MapUtil) {
  std::map<string, int> m = {{"one", 1}};
  EXPECT_EQ(*gtl::FindOrNull(m, "one"), 1);
  EXPECT_EQ(gtl::FindOrNull(m, "two"), nullptr);
  *gtl::FindOrNull(m, "one") = 11;
  EXPECT_EQ(m["one"], 11);
  EXPECT_EQ(gtl::FindWithDefault(m, "two", 2), 2);
  EXPECT_TRUE(gtl::InsertIfNotPresent(&m, "two", 2));
  EXPECT_FALSE(gtl::InsertIfNotPresent(&m, "two", 22));
  EXPECT_EQ(m["two"], 2);
  EXPECT_FALSE(gtl::InsertOrUpdate(&m, "two", 22));
  EXPECT_EQ(m["two"], 22);
  EXPECT_TRUE(gtl::InsertOrUpdate(&m, "three", 3));
  EXPECT_EQ(gtl::LookupOrInsert(&m, "four", 4), 4);
  EXPECT_EQ(gtl::LookupOrInsert(&m, "four", 44), 4);

  std::set<int> s;
  EXPECT_TRUE(gtl::InsertIfNotPresent(&s, 5));
  EXPECT_FALSE(gtl::InsertIfNotPresent(&s, 5));

  int target = 9;
  gtl::FlatMap<string, int*> ptrs = {{"t", &target}};
  EXPECT_EQ(gtl::FindPtrOrNull(ptrs, "t"), &target);
  EXPECT_EQ(gtl::FindPtrOrNull(ptrs, "u"), nullptr);

  std::unordered_map<int, string> reverse;
  EXPECT_TRUE(gtl::ReverseMap(std::map<string, int>{{"x", 1}, {"y", 2}},
                              &reverse));
  EXPECT_EQ(reverse[2], "y");
  EXPECT_FALSE(gtl::ReverseMap(std::map<string, int>{{"x", 1}, {"y", 1}},
                               &reverse));

  std::map<string, int*> owned = {{"p", new int(3)}};
  std::unique_ptr<int> taken(gtl::EraseKeyReturnValuePtr(&owned, "p"));
  EXPECT_EQ(*taken, 3);
  EXPECT_TRUE(owned.empty());
  EXPECT_EQ(gtl::EraseKeyReturnValuePtr(&owned, "p"), nullptr);
}

TEST(CompatGtlTest, CleanupRunsUnlessReleased) {
  int runs = 0;
  {
    auto cleanup = gtl::MakeCleanup([&runs] { ++runs; });
  }
  EXPECT_EQ(runs, 1);
  {
    auto cleanup = gtl::MakeCleanup([&runs] { ++runs; });
    cleanup.release();
  }
  EXPECT_EQ(runs, 1);
  {
    gtl::Cleanup<std::function<void()>> erased =
        gtl::MakeCleanup([&runs] { runs += 10; });
    auto moved = std::move(erased);
  }
  EXPECT_EQ(runs, 11);
}

TEST(CompatGtlTest, TopNKeepsTheLargest) {
  gtl::TopN<int> top(3);
  int dropped = -1;
  for (int v : {5, 1, 9, 3}) top.push(v, &dropped);
  EXPECT_EQ(dropped, 1);  // the 4th push dropped the smallest of four
  top.push(0, &dropped);
  EXPECT_EQ(dropped, 0);  // smaller than everything kept
  top.push(7, &dropped);
  EXPECT_EQ(dropped, 3);
  EXPECT_EQ(top.size(), 3u);
  EXPECT_EQ(top.peek_bottom(), 5);
  std::unique_ptr<std::vector<int>> kept(top.ExtractNondestructive());
  EXPECT_THAT(*kept, ElementsAre(9, 7, 5));
  std::unique_ptr<std::vector<int>> all(top.Extract());
  EXPECT_THAT(*all, ElementsAre(9, 7, 5));
  top.Reset();
  EXPECT_TRUE(top.empty());

  // A "less" predicate keeps the smallest, in ascending order.
  gtl::TopN<float, std::less<float>> bottom(2);
  for (float v : {3.f, -1.f, 2.f, 8.f}) bottom.push(v);
  std::unique_ptr<std::vector<float>> low(bottom.Extract());
  EXPECT_THAT(*low, ElementsAre(-1.f, 2.f));

  // Fewer values than the limit: all of them, sorted.
  gtl::TopN<int> few(5);
  few.push(2);
  few.push(4);
  EXPECT_EQ(few.peek_bottom(), 2);
  std::unique_ptr<std::vector<int>> f(few.Extract());
  EXPECT_THAT(*f, ElementsAre(4, 2));
}

// --- Item 7: lib/strings -------------------------------------------------------

TEST(CompatStringsTest, StrUtil) {
  EXPECT_THAT(str_util::Split("a,b,,c", ','), ElementsAre("a", "b", "", "c"));
  EXPECT_THAT(str_util::Split("a,b;;c", ",;", str_util::SkipEmpty()),
              ElementsAre("a", "b", "c"));
  EXPECT_THAT(str_util::Split("x  ,  ,y", ",", str_util::SkipWhitespace()),
              ElementsAre("x  ", "y"));
  EXPECT_TRUE(str_util::Split("", ",").empty());
  EXPECT_EQ(str_util::Join(std::vector<int>{1, 2, 3}, ", "), "1, 2, 3");
  EXPECT_EQ(str_util::Join(std::vector<string>{"a", "b"}, "/",
                           [](string* out, const string& s) {
                             out->append("<" + s + ">");
                           }),
            "<a>/<b>");
  EXPECT_TRUE(str_util::StartsWith("Addons>Gelu", "Addons>"));
  EXPECT_TRUE(str_util::EndsWith("model.pb", ".pb"));
  EXPECT_FALSE(str_util::EndsWith("pb", "model.pb"));
  EXPECT_TRUE(str_util::StrContains("abcdef", "cde"));
  EXPECT_EQ(str_util::Lowercase("NHWC"), "nhwc");
  EXPECT_EQ(str_util::Uppercase("nchw"), "NCHW");
  EXPECT_EQ(str_util::StringReplace("a.b.c", ".", "::", true), "a::b::c");
  EXPECT_EQ(str_util::StringReplace("a.b.c", ".", "::", false), "a::b.c");
  StringPiece text = "  42 rest  ";
  EXPECT_EQ(str_util::RemoveLeadingWhitespace(&text), 2u);
  uint64 n = 0;
  EXPECT_TRUE(str_util::ConsumeLeadingDigits(&text, &n));
  EXPECT_EQ(n, 42u);
  EXPECT_EQ(str_util::RemoveWhitespaceContext(&text), 3u);
  EXPECT_EQ(text, "rest");
  EXPECT_TRUE(str_util::ConsumePrefix(&text, "re"));
  EXPECT_FALSE(str_util::ConsumePrefix(&text, "x"));
  EXPECT_EQ(text, "st");
  string escaped = str_util::CEscape("a\nb\"");
  EXPECT_EQ(escaped, "a\\nb\\\"");
  string back, error;
  EXPECT_TRUE(str_util::CUnescape(escaped, &back, &error));
  EXPECT_EQ(back, "a\nb\"");
  string title = "hello world-wide";
  str_util::TitlecaseString(&title, " -");
  EXPECT_EQ(title, "Hello World-Wide");
}

TEST(CompatStringsTest, PrintfAndAppendf) {
  EXPECT_EQ(strings::Printf("%d of %s", 3, "ten"), "3 of ten");
  string msg = "x";
  strings::Appendf(&msg, "=%.2f%%", 12.5);
  EXPECT_EQ(msg, "x=12.50%");
  const string longer(300, 'z');
  EXPECT_EQ(strings::Printf("%s!", longer.c_str()).size(), 301u);
}

TEST(CompatStringsTest, Numbers) {
  int32 i32 = 0;
  EXPECT_TRUE(strings::safe_strto32(" 42 ", &i32));
  EXPECT_EQ(i32, 42);
  EXPECT_TRUE(strings::safe_strto32("-2147483648", &i32));
  EXPECT_EQ(i32, kint32min);
  EXPECT_FALSE(strings::safe_strto32("2147483648", &i32));  // overflow
  EXPECT_FALSE(strings::safe_strto32("12abc", &i32));
  EXPECT_FALSE(strings::safe_strto32("", &i32));
  int64 i64 = 0;
  EXPECT_TRUE(strings::safe_strto64("9007199254740993", &i64));
  EXPECT_EQ(i64, 9007199254740993LL);
  uint64 u64 = 0;
  EXPECT_FALSE(strings::safe_strtou64("-1", &u64));
  float f = 0;
  EXPECT_TRUE(strings::safe_strtof("1e3", &f));
  EXPECT_EQ(f, 1000.f);
  EXPECT_FALSE(strings::safe_strtof("1.5x", &f));
  double d = 0;
  EXPECT_TRUE(strings::safe_strtod("-0.25", &d));
  EXPECT_EQ(d, -0.25);
  EXPECT_EQ(strings::HumanReadableNumBytes(512), "512B");
  EXPECT_EQ(strings::HumanReadableNumBytes(1024), "1.00KiB");
  EXPECT_EQ(strings::HumanReadableNumBytes(1536), "1.50KiB");
  EXPECT_EQ(strings::HumanReadableNumBytes(3LL << 30), "3.00GiB");
}

TEST(CompatStringsTest, StrCatThroughErrorsH) {
  // Only lib/core/errors.h (and what it brings) gives strings::StrCat here.
  EXPECT_EQ(strings::StrCat("rank ", 2, ", got ", 1.5), "rank 2, got 1.5");
}

// --- Item 8: bounds_check.h -------------------------------------------------------

TEST(CompatBoundsCheckTest, FastBoundsCheckAndSubtleMustCopy) {
  EXPECT_TRUE(FastBoundsCheck(0, 5));
  EXPECT_TRUE(FastBoundsCheck(4, int64{5}));
  EXPECT_FALSE(FastBoundsCheck(5, 5));
  EXPECT_FALSE(FastBoundsCheck(-1, 5));
  EXPECT_FALSE(FastBoundsCheck(int64{-1}, uint32{5}));
  const int32 index = 3;
  EXPECT_EQ(internal::SubtleMustCopy(index), 3);
}

// --- Item 11: headers included but barely used -----------------------------------

TEST(CompatPathTest, JoinAndSplit) {
  EXPECT_EQ(io::JoinPath("/data", "models", "v1.pb"), "/data/models/v1.pb");
  EXPECT_EQ(io::JoinPath("a/", "/b"), "a/b");
  EXPECT_EQ(io::JoinPath("", "b"), "b");
  EXPECT_EQ(io::JoinPath(string("x"), StringPiece("y")), "x/y");
  EXPECT_EQ(io::Basename("/data/v1.pb"), "v1.pb");
  EXPECT_EQ(io::Dirname("/data/v1.pb"), "/data");
  EXPECT_EQ(io::Dirname("/v1.pb"), "/");
  EXPECT_EQ(io::Dirname("v1.pb"), "");
  EXPECT_EQ(io::Basename("dir/"), "");
  EXPECT_EQ(io::Extension("/data/v1.tar.gz"), "gz");
  EXPECT_EQ(io::Extension("/data.d/readme"), "");
  EXPECT_TRUE(io::IsAbsolutePath("/x"));
  EXPECT_FALSE(io::IsAbsolutePath("x"));
  EXPECT_EQ(io::CleanPath("a//b/../c/./"), "a/c");
  EXPECT_EQ(io::CleanPath("/../x"), "/x");
  EXPECT_EQ(io::CleanPath("../a"), "../a");
}

TEST(CompatTensorFormatTest, KernelStyleUse) {
  TensorFormat format;
  ASSERT_TRUE(FormatFromString("NCHW", &format));
  EXPECT_EQ(format, FORMAT_NCHW);
  EXPECT_EQ(ToString(format), string("NCHW"));
  EXPECT_FALSE(FormatFromString("CHWN", &format));
  const TensorShape input({8, 3, 32, 24});
  EXPECT_EQ(GetTensorDim(input, FORMAT_NCHW, 'N'), 8);
  EXPECT_EQ(GetTensorDim(input, FORMAT_NCHW, 'C'), 3);
  EXPECT_EQ(GetTensorDim(input, FORMAT_NCHW, 'H'), 32);
  EXPECT_EQ(GetTensorDim(input, FORMAT_NCHW, 'W'), 24);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'C'), 3);
  const std::vector<int32> strides = {1, 1, 2, 2};
  EXPECT_EQ(GetTensorDim(strides, FORMAT_NCHW, 'H'), 2);
  EXPECT_EQ(ShapeFromFormat(FORMAT_NHWC, 8, 16, 12, 3).DebugString(),
            "[8,16,12,3]");
}

sparse::SparseTensor::ShapeArray StdOrder(int dims) {
  sparse::SparseTensor::ShapeArray order(dims);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

Tensor Indices(std::vector<int64> flat, int64 rank) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64>(flat.size()) / rank, rank}));
  std::copy(flat.begin(), flat.end(), t.flat<int64>().data());
  return t;
}

Tensor FloatVec(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64>(v.size())}));
  std::copy(v.begin(), v.end(), t.flat<float>().data());
  return t;
}

TEST(CompatSparseTensorTest, CreateValidateReorderToDense) {
  const std::vector<int64> shape = {2, 3};
  sparse::SparseTensor st;
  // Out of order on purpose: (1,2) before (0,1).
  ASSERT_THAT(sparse::SparseTensor::Create(Indices({1, 2, 0, 1}, 2),
                                           FloatVec({5.f, 7.f}), shape,
                                           StdOrder(2), &st),
              IsOk());
  EXPECT_EQ(st.dims(), 2);
  EXPECT_THAT(st.shape(), ElementsAre(2, 3));
  EXPECT_EQ(st.dtype(), DT_FLOAT);
  EXPECT_THAT(st.IndicesValid(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("indices[1] = [0,1] is out of order")));
  st.Reorder<float>(StdOrder(2));
  EXPECT_THAT(st.IndicesValid(), IsOk());
  EXPECT_EQ(st.indices().matrix<int64>()(0, 1), 1);
  EXPECT_EQ(st.values().vec<float>()(0), 7.f);

  Tensor dense(DT_FLOAT, TensorShape({2, 3}));
  ASSERT_TRUE(st.ToDense<float>(&dense));
  EXPECT_EQ(dense.DebugString(6),
            "Tensor<type: float shape: [2,3] values: [0 7 0][0 0 5]>");
  Tensor wrong_type(DT_INT32, TensorShape({2, 3}));
  EXPECT_FALSE(st.ToDense<int32>(&wrong_type));
  Tensor too_small(DT_FLOAT, TensorShape({1, 3}));
  EXPECT_FALSE(st.ToDense<float>(&too_small));
}

TEST(CompatSparseTensorTest, IndicesValidMessages) {
  const std::vector<int64> shape = {2, 3};
  sparse::SparseTensor st;
  ASSERT_THAT(sparse::SparseTensor::Create(Indices({0, 1, 2, 0}, 2),
                                           FloatVec({1.f, 2.f}), shape,
                                           StdOrder(2), &st),
              IsOk());
  EXPECT_THAT(st.IndicesValid(),
              StatusIs(error::INVALID_ARGUMENT,
                       "indices[1] = [2,0] is out of bounds: need 0 <= index "
                       "< [2,3]"));
  ASSERT_THAT(sparse::SparseTensor::Create(Indices({0, 1, 0, 1}, 2),
                                           FloatVec({1.f, 2.f}), shape,
                                           StdOrder(2), &st),
              IsOk());
  EXPECT_THAT(st.IndicesValid(),
              StatusIs(error::INVALID_ARGUMENT, "indices[1] = [0,1] is repeated"));
  // Without an order, validation asks for one.
  ASSERT_THAT(sparse::SparseTensor::Create(Indices({0, 1}, 2), FloatVec({1.f}),
                                           TensorShape({2, 3}), &st),
              IsOk());
  EXPECT_THAT(st.IndicesValid(), StatusIs(error::FAILED_PRECONDITION,
                                          HasSubstr("Order was not provided")));
}

TEST(CompatSparseTensorTest, CreateRejectsBadParts) {
  const std::vector<int64> shape = {2, 3};
  sparse::SparseTensor st;
  Tensor int32_ix(DT_INT32, TensorShape({1, 2}));
  EXPECT_THAT(sparse::SparseTensor::Create(int32_ix, FloatVec({1.f}), shape,
                                           StdOrder(2), &st),
              StatusIs(error::INVALID_ARGUMENT,
                       "indices must be type int64 but got: int32"));
  EXPECT_THAT(sparse::SparseTensor::Create(Indices({0, 1}, 2),
                                           FloatVec({1.f, 2.f}), shape,
                                           StdOrder(2), &st),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("(indices = 1, values = 2)")));
  EXPECT_THAT(sparse::SparseTensor::Create(Indices({0, 1}, 2), FloatVec({1.f}),
                                           std::vector<int64>{2, 3, 4},
                                           StdOrder(2), &st),
              StatusIs(error::INVALID_ARGUMENT,
                       "Shape rank must be SparseTensor rank."));
  Tensor scalar_ix(int64{0});
  EXPECT_THAT(sparse::SparseTensor::Create(scalar_ix, FloatVec({1.f}), shape,
                                           StdOrder(2), &st),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("indices must be a matrix")));
}

TEST(CompatEnvTest, FilesAndClock) {
  Env* env = Env::Default();
  const string path = io::JoinPath(
      ::testing::TempDir(), strings::StrCat("compat_env_", env->NowMicros()));
  ASSERT_THAT(WriteStringToFile(env, path, "vocab\n"), IsOk());
  EXPECT_THAT(env->FileExists(path), IsOk());
  string text;
  EXPECT_THAT(ReadFileToString(env, path, &text), IsOk());
  EXPECT_EQ(text, "vocab\n");
  EXPECT_THAT(env->DeleteFile(path), IsOk());
  EXPECT_THAT(env->FileExists(path), StatusIs(error::NOT_FOUND));
  EXPECT_THAT(ReadFileToString(env, path, &text), StatusIs(error::NOT_FOUND));
  EXPECT_GT(env->NowMicros(), 0u);
}

TEST(CompatThreadPoolTest, TensorFlowConstructor) {
  std::atomic<int64> sum{0};
  {
    thread::ThreadPool pool(Env::Default(), "compat_pool", 2);
    pool.ParallelFor(100, 10, [&](int64 begin, int64 end) {
      for (int64 i = begin; i < end; ++i) sum += i;
    });
  }
  EXPECT_EQ(sum.load(), 4950);
}

// --- Item 12 (part) ------------------------------------------------------------------

TEST(CompatShapeExtrasTest, PartialTensorShapeUtils) {
  const std::vector<PartialTensorShape> a = {PartialTensorShape({-1, 3}),
                                             PartialTensorShape()};
  EXPECT_EQ(PartialTensorShapeUtils::PartialShapeListString(a),
            "[[?,3], <unknown>]");
  const std::vector<PartialTensorShape> b = {PartialTensorShape({2, 3}),
                                             PartialTensorShape({4})};
  EXPECT_TRUE(PartialTensorShapeUtils::AreCompatible(a, b));
  EXPECT_FALSE(PartialTensorShapeUtils::AreIdentical(a, b));
  EXPECT_TRUE(PartialTensorShapeUtils::AreIdentical(a, a));
}

TEST(CompatShapeExtrasTest, MakeShapeFromSlices) {
  TensorShape shape;
  const std::vector<int32> dims = {4, 5};
  EXPECT_THAT(TensorShapeUtils::MakeShape(gtl::ArraySlice<int32>(dims), &shape),
              IsOk());
  EXPECT_EQ(shape.DebugString(), "[4,5]");
  Tensor sizes(DT_INT64, TensorShape({3}));
  sizes.flat<int64>().setValues({2, -1, 3});
  auto v = sizes.vec<int64>();
  EXPECT_THAT(TensorShapeUtils::MakeShape(
                  gtl::ArraySlice<int64>(v.data(), v.size()), &shape),
              StatusIs(error::INVALID_ARGUMENT));
  PartialTensorShape partial;
  EXPECT_THAT(TensorShapeUtils::MakeShape(
                  gtl::ArraySlice<int64>(v.data(), v.size()), &partial),
              IsOk());
  EXPECT_EQ(partial.DebugString(), "[2,?,3]");
}

Status Parse(int n) {
  if (n < 0) return errors::InvalidArgument("negative: ", n);
  return OkStatus();
}

Status ParseAll(const std::vector<int>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    TF_RETURN_WITH_CONTEXT_IF_ERROR(Parse(values[i]), "at position ", i);
  }
  return OkStatus();
}

TEST(CompatShapeExtrasTest, ReturnWithContextAndSliceDebugString) {
  EXPECT_THAT(ParseAll({1, 2}), IsOk());
  EXPECT_THAT(ParseAll({1, -2}), StatusIs(error::INVALID_ARGUMENT,
                                          "negative: -2\n\tat position 1"));
  EXPECT_EQ(SliceDebugString(TensorShape({2, 3}), 4), "[1,1]");
  EXPECT_EQ(SliceDebugString(TensorShape({5}), 4), "[4]");
  Tensor t(DT_INT32, TensorShape({2, 2}));
  t.flat<int32>().setValues({1, 2, 3, 4});
  EXPECT_EQ(t.DebugString(3), "Tensor<type: int32 shape: [2,2] values: [1 2][3...]...>");
}

}  // namespace
}  // namespace tensorflow

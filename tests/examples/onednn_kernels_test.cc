// examples/onednn_kernels: loading it makes Conv2D, DepthwiseConv2dNative,
// MatMul and their _Fused forms (float32) run on oneDNN, with the same
// results as the built-in kernels (or, for the ops opkit has no kernel of,
// a reference loop here) on random inputs for every supported attr
// combination, the same errors for bad inputs, and a changed filter always
// taking effect (Note [Reordered weights]); unloading gives the built-in
// kernels back.
//
// Each comparison first computes the expected results with the library
// unloaded, then loads it and runs the same calls.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/examples/example_test_util.h"

namespace opkit {
namespace {

using ::opkit::examples_test::Attr;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

Tensor Random(const TensorShape& shape, float scale, std::mt19937* rng) {
  Tensor t(DT_FLOAT, shape);
  std::uniform_real_distribution<float> dist(-scale, scale);
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = dist(*rng);
  return t;
}

const float* Data(const Tensor& t) { return static_cast<const float*>(t.data()); }

// NHWC -> NCHW.
Tensor ToNchw(const Tensor& t) {
  const int64_t n = t.dim_size(0), h = t.dim_size(1), w = t.dim_size(2),
                c = t.dim_size(3);
  Tensor out(DT_FLOAT, TensorShape({n, c, h, w}));
  float* o = static_cast<float*>(out.data());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          o[((i * c + k) * h + y) * w + x] = Data(t)[((i * h + y) * w + x) * c + k];
  return out;
}

void ExpectNear(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < actual.NumElements(); ++i) {
    const float e = Data(expected)[i];
    ASSERT_NEAR(Data(actual)[i], e, 1e-4f * (1.f + std::fabs(e))) << "element " << i;
  }
}

enum class Act { kNone, kRelu, kRelu6, kElu, kLeakyRelu };
const Act kActs[] = {Act::kNone, Act::kRelu, Act::kRelu6, Act::kElu, Act::kLeakyRelu};
constexpr float kLeakyAlpha = 0.3f;

std::vector<std::string> FusedOps(Act a) {
  switch (a) {
    case Act::kNone: return {"BiasAdd"};
    case Act::kRelu: return {"BiasAdd", "Relu"};
    case Act::kRelu6: return {"BiasAdd", "Relu6"};
    case Act::kElu: return {"BiasAdd", "Elu"};
    case Act::kLeakyRelu: return {"BiasAdd", "LeakyRelu"};
  }
  return {};
}

float ApplyAct(Act a, float x) {
  switch (a) {
    case Act::kNone: return x;
    case Act::kRelu: return std::max(x, 0.f);
    case Act::kRelu6: return std::min(std::max(x, 0.f), 6.f);
    case Act::kElu: return x < 0 ? std::expm1(x) : x;
    case Act::kLeakyRelu: return x < 0 ? kLeakyAlpha * x : x;
  }
  return x;
}

// One call and the result it must give.
struct Case {
  std::string label;
  std::string op;
  std::vector<Tensor> inputs;
  EagerAttrs attrs;
  Tensor expected;
};

class OneDnnKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = std::move(ctx).value();
  }

  void TearDown() override {
    if (library_.has_value()) {
      EXPECT_THAT(library_->Unload(), IsOk());
    }
  }

  void Load() {
    StatusOr<OpLibrary> lib = LoadOpLibrary(ONEDNN_KERNELS_LIB);
    ASSERT_THAT(lib.status(), IsOk());
    library_ = std::move(lib).value();
  }

  StatusOr<Tensor> Run(const std::string& op, const std::vector<Tensor>& inputs,
                       const EagerAttrs& attrs) {
    std::vector<Tensor> out;
    OPKIT_RETURN_IF_ERROR(ctx_->Run(op, inputs, attrs, &out));
    return out.at(0);
  }

  // Runs `op` and returns its one output, failing the test on an error.
  Tensor RunOk(const std::string& op, const std::vector<Tensor>& inputs,
               const EagerAttrs& attrs = {}) {
    StatusOr<Tensor> t = Run(op, inputs, attrs);
    EXPECT_THAT(t.status(), IsOk()) << op;
    return t.ok() ? *t : Tensor();
  }

  // Bias then activation with the built-in BiasAdd, Relu, Relu6 and Elu
  // (LeakyRelu has no built-in op: a loop).
  Tensor BuiltinBiasAct(const Tensor& x, const Tensor& bias, Act a,
                        const std::string& format) {
    Tensor y = RunOk("BiasAdd", {x, bias}, {{"data_format", Attr(format)}});
    switch (a) {
      case Act::kNone: return y;
      case Act::kRelu: return RunOk("Relu", {y});
      case Act::kRelu6: return RunOk("Relu6", {y});
      case Act::kElu: return RunOk("Elu", {y});
      case Act::kLeakyRelu: {
        Tensor out(DT_FLOAT, y.shape());
        for (int64_t i = 0; i < y.NumElements(); ++i) {
          static_cast<float*>(out.data())[i] = ApplyAct(a, Data(y)[i]);
        }
        return out;
      }
    }
    return y;
  }

  // Loads the library, checks that `winner` is the kernel chosen for
  // cases[0]'s op, and compares every case's result with its expectation.
  void LoadAndCheck(const std::vector<Case>& cases) {
    ASSERT_FALSE(cases.empty());
    Load();
    for (const Case& c : cases) {
      SCOPED_TRACE(c.op + " " + c.label);
      StatusOr<Tensor> got = Run(c.op, c.inputs, c.attrs);
      ASSERT_THAT(got.status(), IsOk());
      ExpectNear(*got, c.expected);
    }
  }

  std::string Winner(const std::string& op, int num_inputs,
                     const EagerAttrs& attrs = {}) {
    auto explained = ctx_->Explain(op, DataTypeVector(num_inputs, DT_FLOAT), attrs);
    EXPECT_THAT(explained.status(), IsOk());
    if (!explained.ok() || explained->winner < 0) return "";
    return explained->candidates[explained->winner].kernel_class_name;
  }

  std::mt19937 rng_{20240601};
  std::unique_ptr<EagerContext> ctx_;
  std::optional<OpLibrary> library_;
};

// --- Convolution geometry -------------------------------------------------

struct Geometry {
  std::string padding;  // SAME, VALID or EXPLICIT
  int stride;
  int dilation;
};

std::vector<Geometry> AllGeometries() {
  std::vector<Geometry> all;
  for (const char* p : {"SAME", "VALID", "EXPLICIT"})
    for (int s : {1, 2})
      for (int d : {1, 2}) all.push_back({p, s, d});
  return all;
}

// Explicit padding (top, bottom, left, right) used by the EXPLICIT cases.
constexpr int64_t kPad[4] = {1, 2, 2, 0};

EagerAttrs ConvAttrs(const Geometry& g, const std::string& format) {
  const bool nchw = format == "NCHW";
  const std::vector<int> strides =
      nchw ? std::vector<int>{1, 1, g.stride, g.stride} : std::vector<int>{1, g.stride, g.stride, 1};
  const std::vector<int> dilations = nchw ? std::vector<int>{1, 1, g.dilation, g.dilation}
                                          : std::vector<int>{1, g.dilation, g.dilation, 1};
  EagerAttrs attrs = {{"strides", Attr(strides)},
                      {"dilations", Attr(dilations)},
                      {"padding", Attr(g.padding)},
                      {"data_format", Attr(format)}};
  if (g.padding == "EXPLICIT") {
    const std::vector<int64> pads =
        nchw ? std::vector<int64>{0, 0, 0, 0, kPad[0], kPad[1], kPad[2], kPad[3]}
             : std::vector<int64>{0, 0, kPad[0], kPad[1], kPad[2], kPad[3], 0, 0};
    attrs.push_back({"explicit_paddings", Attr(pads)});
  }
  return attrs;
}

std::string Label(const Geometry& g, const std::string& format, int extra) {
  return format + " " + g.padding + " stride " + std::to_string(g.stride) +
         " dilation " + std::to_string(g.dilation) + " #" + std::to_string(extra);
}

// The depthwise convolution of NHWC `input` with [FH, FW, C, M] `filter`,
// by definition.
Tensor ReferenceDepthwise(const Tensor& input, const Tensor& filter, const Geometry& g) {
  const int64_t n = input.dim_size(0), h = input.dim_size(1), w = input.dim_size(2),
                c = input.dim_size(3);
  const int64_t fh = filter.dim_size(0), fw = filter.dim_size(1), m = filter.dim_size(3);
  auto out_size = [&](int64_t in, int64_t f, int64_t* before) {
    const int64_t eff = (f - 1) * g.dilation + 1;
    if (g.padding == "VALID") {
      *before = 0;
      return (in - eff + g.stride) / g.stride;
    }
    const int64_t out = (in + g.stride - 1) / g.stride;
    *before = std::max<int64_t>(0, (out - 1) * g.stride + eff - in) / 2;
    return out;
  };
  int64_t pt = 0, pl = 0, oh = 0, ow = 0;
  if (g.padding == "EXPLICIT") {
    pt = kPad[0];
    pl = kPad[2];
    oh = (h + kPad[0] + kPad[1] - ((fh - 1) * g.dilation + 1)) / g.stride + 1;
    ow = (w + kPad[2] + kPad[3] - ((fw - 1) * g.dilation + 1)) / g.stride + 1;
  } else {
    oh = out_size(h, fh, &pt);
    ow = out_size(w, fw, &pl);
  }
  Tensor out(DT_FLOAT, TensorShape({n, oh, ow, c * m}));
  float* o = static_cast<float*>(out.data());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t k = 0; k < c; ++k)
          for (int64_t q = 0; q < m; ++q) {
            double sum = 0;
            for (int64_t i = 0; i < fh; ++i)
              for (int64_t j = 0; j < fw; ++j) {
                const int64_t iy = y * g.stride - pt + i * g.dilation;
                const int64_t ix = x * g.stride - pl + j * g.dilation;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                sum += Data(input)[((b * h + iy) * w + ix) * c + k] *
                       Data(filter)[((i * fw + j) * c + k) * m + q];
              }
            o[((b * oh + y) * ow + x) * (c * m) + k * m + q] = static_cast<float>(sum);
          }
  return out;
}

// Reference bias + activation over the last (channel) dimension.
Tensor ReferenceBiasAct(const Tensor& x, const Tensor& bias, Act a) {
  Tensor out(DT_FLOAT, x.shape());
  const int64_t c = bias.NumElements();
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    static_cast<float*>(out.data())[i] = ApplyAct(a, Data(x)[i] + Data(bias)[i % c]);
  }
  return out;
}

// --- Conv2D and _FusedConv2D against the built-in Conv2D --------------------

TEST_F(OneDnnKernelsTest, Conv2DMatchesTheBuiltinKernel) {
  std::vector<Case> cases;
  for (const Geometry& g : AllGeometries()) {
    for (int groups : {1, 2}) {
      for (const std::string format : {"NHWC", "NCHW"}) {
        const Tensor input = Random(TensorShape({2, 9, 8, 4}), 1.f, &rng_);
        const Tensor filter = Random(TensorShape({3, 3, 4 / groups, 6}), 1.f, &rng_);
        // The built-in kernel runs NHWC only.
        Tensor expected = RunOk("Conv2D", {input, filter}, ConvAttrs(g, "NHWC"));
        const bool nchw = format == "NCHW";
        cases.push_back({Label(g, format, groups), "Conv2D",
                         {nchw ? ToNchw(input) : input, filter}, ConvAttrs(g, format),
                         nchw ? ToNchw(expected) : expected});
      }
    }
  }
  // A 1x1 convolution and one with a filter as large as the image.
  for (const TensorShape& fs : {TensorShape({1, 1, 4, 5}), TensorShape({9, 8, 4, 3})}) {
    const Tensor input = Random(TensorShape({1, 9, 8, 4}), 1.f, &rng_);
    const Tensor filter = Random(fs, 1.f, &rng_);
    const EagerAttrs attrs = ConvAttrs({"VALID", 1, 1}, "NHWC");
    cases.push_back({fs.DebugString(), "Conv2D", {input, filter}, attrs,
                     RunOk("Conv2D", {input, filter}, attrs)});
  }
  LoadAndCheck(cases);
  EXPECT_EQ(Winner("Conv2D", 2, ConvAttrs({"SAME", 1, 1}, "NHWC")), "OneDnnConv2DOp");
}

TEST_F(OneDnnKernelsTest, FusedConv2DMatchesBuiltinConvBiasAddAndActivation) {
  std::vector<Case> cases;
  int i = 0;
  for (Act a : kActs) {
    for (const Geometry& g : {Geometry{"SAME", 1, 1}, Geometry{"VALID", 2, 1},
                              Geometry{"EXPLICIT", 1, 2}}) {
      for (const std::string format : {"NHWC", "NCHW"}) {
        // Inputs large enough that Relu6's upper bound matters.
        const Tensor input = Random(TensorShape({2, 8, 7, 5}), 3.f, &rng_);
        const Tensor filter = Random(TensorShape({3, 3, 5, 4}), 1.f, &rng_);
        const Tensor bias = Random(TensorShape({4}), 2.f, &rng_);
        const Tensor conv = RunOk("Conv2D", {input, filter}, ConvAttrs(g, "NHWC"));
        const Tensor expected = BuiltinBiasAct(conv, bias, a, "NHWC");
        EagerAttrs attrs = ConvAttrs(g, format);
        attrs.push_back({"fused_ops", Attr(FusedOps(a))});
        attrs.push_back({"leakyrelu_alpha", Attr(kLeakyAlpha)});
        const bool nchw = format == "NCHW";
        cases.push_back({Label(g, format, i++), "_FusedConv2D",
                         {nchw ? ToNchw(input) : input, filter, bias}, attrs,
                         nchw ? ToNchw(expected) : expected});
      }
    }
  }
  LoadAndCheck(cases);
}

// --- Depthwise against a reference loop ------------------------------------

TEST_F(OneDnnKernelsTest, DepthwiseConv2dNativeMatchesTheDefinition) {
  std::vector<Case> cases;
  for (const Geometry& g : AllGeometries()) {
    for (int multiplier : {1, 2}) {
      for (const std::string format : {"NHWC", "NCHW"}) {
        const Tensor input = Random(TensorShape({2, 9, 8, 5}), 1.f, &rng_);
        const Tensor filter = Random(TensorShape({3, 3, 5, multiplier}), 1.f, &rng_);
        const Tensor expected = ReferenceDepthwise(input, filter, g);
        const bool nchw = format == "NCHW";
        cases.push_back({Label(g, format, multiplier), "DepthwiseConv2dNative",
                         {nchw ? ToNchw(input) : input, filter}, ConvAttrs(g, format),
                         nchw ? ToNchw(expected) : expected});
      }
    }
  }
  LoadAndCheck(cases);
  EXPECT_EQ(Winner("DepthwiseConv2dNative", 2, ConvAttrs({"SAME", 1, 1}, "NHWC")),
            "OneDnnDepthwiseConv2dNativeOp");
}

TEST_F(OneDnnKernelsTest, FusedDepthwiseConv2dNativeMatchesTheDefinition) {
  std::vector<Case> cases;
  int i = 0;
  for (Act a : kActs) {
    for (const Geometry& g : {Geometry{"SAME", 1, 1}, Geometry{"VALID", 2, 1},
                              Geometry{"SAME", 1, 2}}) {
      const Tensor input = Random(TensorShape({1, 10, 9, 6}), 3.f, &rng_);
      const Tensor filter = Random(TensorShape({3, 3, 6, 2}), 1.f, &rng_);
      const Tensor bias = Random(TensorShape({12}), 2.f, &rng_);
      EagerAttrs attrs = ConvAttrs(g, "NHWC");
      attrs.push_back({"fused_ops", Attr(FusedOps(a))});
      attrs.push_back({"leakyrelu_alpha", Attr(kLeakyAlpha)});
      cases.push_back({Label(g, "NHWC", i++), "_FusedDepthwiseConv2dNative",
                       {input, filter, bias}, attrs,
                       ReferenceBiasAct(ReferenceDepthwise(input, filter, g), bias, a)});
    }
  }
  LoadAndCheck(cases);
}

// --- MatMul and _FusedMatMul against the built-in MatMul --------------------

TEST_F(OneDnnKernelsTest, MatMulAndFusedMatMulMatchTheBuiltinKernels) {
  std::vector<Case> cases;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const std::string label = "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
      const Tensor a = Random(ta ? TensorShape({37, 23}) : TensorShape({23, 37}), 1.f, &rng_);
      const Tensor b = Random(tb ? TensorShape({19, 37}) : TensorShape({37, 19}), 1.f, &rng_);
      const EagerAttrs attrs = {{"transpose_a", Attr(ta)}, {"transpose_b", Attr(tb)}};
      const Tensor product = RunOk("MatMul", {a, b}, attrs);
      cases.push_back({label, "MatMul", {a, b}, attrs, product});
      for (Act act : kActs) {
        const Tensor bias = Random(TensorShape({19}), 2.f, &rng_);
        EagerAttrs fused = attrs;
        fused.push_back({"fused_ops", Attr(FusedOps(act))});
        fused.push_back({"leakyrelu_alpha", Attr(kLeakyAlpha)});
        cases.push_back({label + " fused " + std::to_string(static_cast<int>(act)),
                         "_FusedMatMul", {a, b, bias}, fused,
                         BuiltinBiasAct(product, bias, act, "NHWC")});
      }
    }
  }
  LoadAndCheck(cases);
  EXPECT_EQ(Winner("MatMul", 2), "OneDnnMatMulOp");
  EXPECT_EQ(Winner("_FusedMatMul", 3, {{"fused_ops", Attr(FusedOps(Act::kRelu))}}),
            "OneDnnMatMulOp");
}

// --- Empty reductions, bad inputs --------------------------------------------

TEST_F(OneDnnKernelsTest, EmptyWindowsAndInnerDimensionsGiveBiasAndActivation) {
  Load();
  // A 0x0 window: every output is an empty sum.
  const Tensor input = Random(TensorShape({1, 4, 4, 3}), 1.f, &rng_);
  Tensor out = RunOk("Conv2D", {input, Tensor(DT_FLOAT, TensorShape({0, 0, 3, 2}))},
                     ConvAttrs({"SAME", 1, 1}, "NHWC"));
  ASSERT_EQ(out.shape(), TensorShape({1, 4, 4, 2}));
  for (int64_t i = 0; i < out.NumElements(); ++i) EXPECT_EQ(Data(out)[i], 0.f);
  const Tensor bias = examples_test::AsTensor<float>({-1.f, 8.f});
  EagerAttrs attrs = ConvAttrs({"SAME", 1, 1}, "NHWC");
  attrs.push_back({"fused_ops", Attr(FusedOps(Act::kRelu6))});
  out = RunOk("_FusedConv2D", {input, Tensor(DT_FLOAT, TensorShape({0, 0, 3, 2})), bias},
              attrs);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    EXPECT_EQ(Data(out)[i], i % 2 == 0 ? 0.f : 6.f);
  }
  // k == 0 for MatMul.
  out = RunOk("_FusedMatMul",
              {Tensor(DT_FLOAT, TensorShape({3, 0})), Tensor(DT_FLOAT, TensorShape({0, 2})),
               bias},
              {{"fused_ops", Attr(FusedOps(Act::kElu))}});
  ASSERT_EQ(out.shape(), TensorShape({3, 2}));
  EXPECT_NEAR(Data(out)[0], std::expm1(-1.f), 1e-6);
  EXPECT_EQ(Data(out)[1], 8.f);
  // An empty batch.
  out = RunOk("Conv2D", {Tensor(DT_FLOAT, TensorShape({0, 4, 4, 3})),
                         Random(TensorShape({3, 3, 3, 2}), 1.f, &rng_)},
              ConvAttrs({"SAME", 1, 1}, "NHWC"));
  EXPECT_EQ(out.shape(), TensorShape({0, 4, 4, 2}));
}

TEST_F(OneDnnKernelsTest, BadInputsAreErrorsNamingTheProblem) {
  Load();
  const EagerAttrs same = ConvAttrs({"SAME", 1, 1}, "NHWC");
  const Tensor input = Random(TensorShape({1, 5, 5, 4}), 1.f, &rng_);
  const Tensor filter = Random(TensorShape({3, 3, 4, 2}), 1.f, &rng_);
  EXPECT_THAT(Run("Conv2D", {Random(TensorShape({5, 5, 4}), 1.f, &rng_), filter}, same)
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("input must be 4-dimensional")));
  EXPECT_THAT(Run("Conv2D", {input, Random(TensorShape({3, 3, 3, 2}), 1.f, &rng_)}, same)
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("evenly divisible")));
  EXPECT_THAT(Run("Conv2D", {input, Random(TensorShape({7, 7, 4, 2}), 1.f, &rng_)},
                  ConvAttrs({"VALID", 1, 1}, "NHWC"))
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("negative")));
  EXPECT_THAT(Run("DepthwiseConv2dNative", {input, Random(TensorShape({3, 3, 3, 1}), 1.f, &rng_)},
                  same)
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("same depth")));
  EagerAttrs fused = same;
  fused.push_back({"fused_ops", Attr(FusedOps(Act::kRelu))});
  EXPECT_THAT(Run("_FusedConv2D", {input, filter, Random(TensorShape({3}), 1.f, &rng_)}, fused)
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("bias must be a vector of 2")));
  EagerAttrs batch_norm = same;
  batch_norm.push_back({"fused_ops", Attr(std::vector<std::string>{"FusedBatchNorm"})});
  EXPECT_THAT(Run("_FusedConv2D", {input, filter, filter, filter, filter}, batch_norm).status(),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("[FusedBatchNorm] is not supported")));
  EXPECT_THAT(Run("_FusedConv2D", {input, filter, filter, filter}, fused).status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("num_args")));
  EXPECT_THAT(Run("MatMul", {Random(TensorShape({2, 3}), 1.f, &rng_),
                             Random(TensorShape({4, 5}), 1.f, &rng_)},
                  {})
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("size-incompatible")));
  EXPECT_THAT(Run("_FusedMatMul", {Random(TensorShape({2, 3}), 1.f, &rng_),
                                   Random(TensorShape({3, 5}), 1.f, &rng_),
                                   Random(TensorShape({4}), 1.f, &rng_)},
                  {{"fused_ops", Attr(FusedOps(Act::kNone))}})
                  .status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("bias must be a vector of 5")));
}

// --- Note [Reordered weights] -----------------------------------------------

TEST_F(OneDnnKernelsTest, AChangedFilterAlwaysTakesEffect) {
  // Big enough that oneDNN reorders the filter into a blocked layout.
  const EagerAttrs attrs = ConvAttrs({"SAME", 1, 1}, "NHWC");
  const Tensor input = Random(TensorShape({1, 8, 8, 32}), 1.f, &rng_);
  std::vector<Tensor> filters;
  std::vector<Tensor> expected;
  for (int i = 0; i < 3; ++i) {
    filters.push_back(Random(TensorShape({3, 3, 32, 32}), 1.f, &rng_));
    expected.push_back(RunOk("Conv2D", {input, filters.back()}, attrs));
  }
  Load();
  // The same filter again and again, then another one: each call gives
  // the result of the filter it was given.
  for (int i : {0, 0, 1, 1, 0, 2, 2, 1}) {
    SCOPED_TRACE(i);
    ExpectNear(RunOk("Conv2D", {input, filters[i]}, attrs), expected[i]);
  }
  // A filter freed after the call and a new one of the same shape, quite
  // possibly at the same address: the kernel still holds the first, so the
  // second cannot be mistaken for it.
  for (int round = 0; round < 3; ++round) {
    Tensor filter(DT_FLOAT, TensorShape({3, 3, 32, 32}));
    std::copy(Data(filters[round]), Data(filters[round]) + filter.NumElements(),
              static_cast<float*>(filter.data()));
    const Tensor result = RunOk("Conv2D", {input, filter}, attrs);
    ExpectNear(result, expected[round]);
  }
  // A new tensor sharing nothing with the cached one but holding the same
  // values, then a slice view of a larger buffer: both computed afresh.
  Tensor big(DT_FLOAT, TensorShape({2, 3, 3, 32, 32}));
  std::copy(Data(filters[1]), Data(filters[1]) + filters[1].NumElements(),
            static_cast<float*>(big.data()) + filters[1].NumElements());
  std::copy(Data(filters[2]), Data(filters[2]) + filters[2].NumElements(),
            static_cast<float*>(big.data()));
  for (int64_t row : {1, 0}) {
    Tensor view;
    ASSERT_TRUE(view.CopyFrom(big.SubSlice(row), TensorShape({3, 3, 32, 32})));
    ExpectNear(RunOk("Conv2D", {input, view}, attrs), expected[row == 1 ? 1 : 2]);
  }
}

// A filter read from a resource variable, as a model's weights are: an
// update swaps a new buffer into the variable, so the next read misses the
// cache and the update takes effect.
TEST_F(OneDnnKernelsTest, AnUpdatedVariableFilterTakesEffect) {
  const EagerAttrs attrs = ConvAttrs({"SAME", 1, 1}, "NHWC");
  const Tensor input = Random(TensorShape({1, 8, 8, 32}), 1.f, &rng_);
  const Tensor first = Random(TensorShape({3, 3, 32, 32}), 1.f, &rng_);
  const Tensor second = Random(TensorShape({3, 3, 32, 32}), 1.f, &rng_);
  const Tensor expected_first = RunOk("Conv2D", {input, first}, attrs);
  const Tensor expected_second = RunOk("Conv2D", {input, second}, attrs);
  Load();
  const Tensor handle =
      RunOk("VarHandleOp", {},
            {{"dtype", Attr(DT_FLOAT)},
             {"shape", Attr(PartialTensorShape({3, 3, 32, 32}))},
             {"shared_name", Attr(std::string("onednn_filter"))}});
  const EagerAttrs dtype = {{"dtype", Attr(DT_FLOAT)}};
  std::vector<Tensor> none;
  ASSERT_THAT(ctx_->Run("AssignVariableOp", {handle, first}, dtype, &none), IsOk());
  for (int i = 0; i < 2; ++i) {
    ExpectNear(RunOk("Conv2D", {input, RunOk("ReadVariableOp", {handle}, dtype)}, attrs),
               expected_first);
  }
  ASSERT_THAT(ctx_->Run("AssignVariableOp", {handle, second}, dtype, &none), IsOk());
  ExpectNear(RunOk("Conv2D", {input, RunOk("ReadVariableOp", {handle}, dtype)}, attrs),
             expected_second);
  // AssignAddVariableOp: second + second.
  ASSERT_THAT(ctx_->Run("AssignAddVariableOp", {handle, second}, dtype, &none), IsOk());
  Tensor doubled(DT_FLOAT, second.shape());
  for (int64_t i = 0; i < second.NumElements(); ++i) {
    static_cast<float*>(doubled.data())[i] = 2 * Data(second)[i];
  }
  ExpectNear(RunOk("Conv2D", {input, RunOk("ReadVariableOp", {handle}, dtype)}, attrs),
             RunOk("Conv2D", {input, doubled}, attrs));
}

TEST_F(OneDnnKernelsTest, ConcurrentCallsWithDifferentFiltersAndShapes) {
  const EagerAttrs attrs = ConvAttrs({"SAME", 2, 1}, "NHWC");
  std::vector<Tensor> inputs, filters, expected;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back(Random(TensorShape({1, 6 + 2 * (i % 2), 6, 16}), 1.f, &rng_));
    filters.push_back(Random(TensorShape({3, 3, 16, 16}), 1.f, &rng_));
    expected.push_back(RunOk("Conv2D", {inputs[i], filters[i]}, attrs));
  }
  Load();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int iter = 0; iter < 25; ++iter) {
        const int i = (t + iter) % 4;
        std::vector<Tensor> out;
        if (!ctx_->Run("Conv2D", {inputs[i], filters[i]}, attrs, &out).ok() ||
            out[0].shape() != expected[i].shape()) {
          ++failures;
          continue;
        }
        for (int64_t e = 0; e < out[0].NumElements(); ++e) {
          if (std::fabs(Data(out[0])[e] - Data(expected[i])[e]) > 1e-3f) {
            ++failures;
            break;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(OneDnnKernelsTest, UnloadGivesTheBuiltinKernelsBack) {
  Load();
  EXPECT_EQ(Winner("Conv2D", 2, ConvAttrs({"SAME", 1, 1}, "NHWC")), "OneDnnConv2DOp");
  ASSERT_THAT(library_->Unload(), IsOk());
  library_.reset();
  EXPECT_EQ(Winner("Conv2D", 2, ConvAttrs({"SAME", 1, 1}, "NHWC")), "Conv2DOp<float>");
  EXPECT_EQ(Winner("MatMul", 2), "MatMulOp<float>");
  // The "eigen" label still picks the built-in MatMul while loaded.
  Load();
  EXPECT_EQ(Winner("MatMul", 2, {{"_kernel", Attr(std::string("eigen"))}}),
            "MatMulOp<float>");
}

}  // namespace
}  // namespace opkit

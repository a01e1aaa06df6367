// Status interop as TensorFlow 2.13+ sources write it (issue 14, item 1):
// kernels, helpers and shape functions that return absl::Status,
// absl::StatusOr and tsl::Status, TF_RETURN_IF_ERROR / TF_ASSIGN_OR_RETURN
// on either kind, OP_REQUIRES_OK on an absl::Status, and the abseil
// libraries TensorFlow code expects next to TensorFlow (StrCat, Span,
// Mutex, Time). The ops run through opkit's EagerContext; every conversion
// keeps the code and the message.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/status.h"
#include "tensorflow/core/platform/statusor.h"
#include "tsl/platform/errors.h"
#include "tsl/platform/status.h"
#include "tsl/platform/statusor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

// --- Op library code, written the way TensorFlow 2.15 sources write it -----

namespace tensorflow {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// A named shape function returning absl::Status.
absl::Status ClipRowsShape(InferenceContext* c) {
  ShapeHandle input;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &input));
  ShapeHandle bound;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &bound));
  c->set_output(0, input);
  return absl::OkStatus();
}

REGISTER_OP("AbslClipRows")
    .Input("x: float")
    .Input("limit: float")
    .Output("y: float")
    .SetShapeFn(ClipRowsShape);

// Lambdas: one returning only absl statuses, one declaring its type.
REGISTER_OP("AbslScalarOut")
    .Input("x: int64")
    .Output("y: int64")
    .SetShapeFn([](InferenceContext* c) {
      if (c->num_inputs() != 1) {
        return absl::InvalidArgumentError("AbslScalarOut takes one input");
      }
      c->set_output(0, c->Scalar());
      return absl::OkStatus();
    });

REGISTER_OP("AbslSumRows")
    .Input("x: int64")
    .Attr("scale: int = 1")
    .Output("y: int64")
    .SetShapeFn([](InferenceContext* c) -> absl::Status {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
      c->set_output(0, c->Vector(c->Dim(x, 0)));
      return tsl::OkStatus();
    });

// Helpers in every status spelling a library may use.
absl::Status CheckLimit(float limit) {
  if (limit < 0) {
    return errors::InvalidArgument("limit must be >= 0, got ", limit);
  }
  return absl::OkStatus();
}

tsl::Status CheckMatrix(const Tensor& t) {
  if (!TensorShapeUtils::IsMatrix(t.shape())) {
    return tsl::errors::InvalidArgument("x must be a matrix, got ",
                                        t.shape().DebugString());
  }
  return tsl::OkStatus();
}

absl::StatusOr<int64_t> RowCount(const Tensor& t) {
  TF_RETURN_IF_ERROR(CheckMatrix(t));
  if (t.dim_size(0) == 0) return absl::OutOfRangeError("no rows");
  return t.dim_size(0);
}

tsl::StatusOr<int64_t> ScaledRowCount(const Tensor& t, int64_t scale) {
  TF_ASSIGN_OR_RETURN(int64_t rows, RowCount(t));
  return rows * scale;
}

absl::Status Validate(const Tensor& x, const Tensor& limit) {
  TF_RETURN_WITH_CONTEXT_IF_ERROR(CheckMatrix(x), "while validating 'x'");
  TF_RETURN_IF_ERROR(CheckLimit(limit.scalar<float>()()));
  return absl::OkStatus();
}

class AbslClipRowsOp : public OpKernel {
 public:
  explicit AbslClipRowsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& limit = ctx->input(1);
    absl::Status s = Validate(x, limit);
    OP_REQUIRES_OK(ctx, s);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const float bound = limit.scalar<float>()();
    auto in = x.flat<float>();
    auto out = y->flat<float>();
    for (int64_t i = 0; i < in.size(); ++i) {
      out(i) = std::min(std::max(in(i), -bound), bound);
    }
  }
};
REGISTER_KERNEL_BUILDER(Name("AbslClipRows").Device(DEVICE_CPU),
                        AbslClipRowsOp);

class AbslSumRowsOp : public OpKernel {
 public:
  explicit AbslSumRowsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("scale", &scale_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    absl::StatusOr<int64_t> rows = ScaledRowCount(x, 1);
    OP_REQUIRES_OK(ctx, rows.status());
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({*rows}), &y));
    auto m = x.matrix<int64_t>();
    absl::Span<const int64_t> flat(x.flat<int64_t>().data(),
                                   static_cast<size_t>(x.NumElements()));
    absl::MutexLock lock(&mu_);  // absl's mutex, as some libraries use
    for (int64_t r = 0; r < *rows; ++r) {
      int64_t sum = 0;
      for (int64_t c = 0; c < m.dimension(1); ++c) {
        sum += flat[r * m.dimension(1) + c];
      }
      y->vec<int64_t>()(r) = sum * scale_;
    }
  }

 private:
  int64_t scale_ = 1;
  absl::Mutex mu_;
};
REGISTER_KERNEL_BUILDER(Name("AbslSumRows").Device(DEVICE_CPU), AbslSumRowsOp);

}  // namespace
}  // namespace tensorflow

using namespace tensorflow;  // NOLINT: as op sources write it

// --- Conversions --------------------------------------------------------------

TEST(CompatStatusInteropTest, ConversionsKeepCodeAndMessage) {
  const absl::Status a = errors::NotFound("vocab file '", "v.txt", "' missing");
  EXPECT_EQ(a.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a.message(), "vocab file 'v.txt' missing");
  const Status s = a;
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND, "vocab file 'v.txt' missing"));
  const tsl::Status t = absl::ResourceExhaustedError("OOM");
  EXPECT_EQ(t.code(), error::RESOURCE_EXHAUSTED);
  EXPECT_EQ(t.error_message(), "OOM");
  EXPECT_TRUE(Status(absl::OkStatus()).ok());
  EXPECT_TRUE(absl::Status(Status::OK()).ok());
  EXPECT_TRUE(absl::OkStatus() == OkStatus());
  EXPECT_TRUE(errors::Internal("x") == absl::InternalError("x"));
  EXPECT_TRUE(errors::IsInvalidArgument(absl::InvalidArgumentError("y")));
  EXPECT_TRUE(absl::IsUnavailable(errors::Unavailable("z")));
  const Status from_code(absl::StatusCode::kAborted, "stop");
  EXPECT_THAT(from_code, StatusIs(error::ABORTED, "stop"));
}

TEST(CompatStatusInteropTest, MacrosAndStatusOrAcrossKinds) {
  Tensor m(DT_INT64, TensorShape({3, 2}));
  Tensor v(DT_INT64, TensorShape({3}));
  EXPECT_EQ(*ScaledRowCount(m, 4), 12);
  EXPECT_THAT(ScaledRowCount(v, 4).status(),
              StatusIs(error::INVALID_ARGUMENT, "x must be a matrix, got [3]"));
  Tensor empty(DT_INT64, TensorShape({0, 2}));
  EXPECT_THAT(Status(RowCount(empty).status()),
              StatusIs(error::OUT_OF_RANGE, "no rows"));

  Tensor limit(-1.0f);
  EXPECT_THAT(Status(Validate(v, limit)),
              StatusIs(error::INVALID_ARGUMENT,
                       "x must be a matrix, got [3]\n\twhile validating 'x'"));
  Tensor x(DT_FLOAT, TensorShape({1, 1}));
  EXPECT_THAT(Status(Validate(x, limit)),
              StatusIs(error::INVALID_ARGUMENT, "limit must be >= 0, got -1"));

  Status appended = errors::DataLoss("short read");
  errors::AppendToMessage(&appended, "in file ", 3);
  EXPECT_THAT(appended, StatusIs(error::DATA_LOSS, "short read\n\tin file 3"));
}

TEST(CompatStatusInteropTest, AbseilLibrariesLink) {
  EXPECT_EQ(absl::StrCat("rank ", 2, " vs ", 3.5), "rank 2 vs 3.5");
  const absl::Time start = absl::Now();
  absl::SleepFor(absl::Milliseconds(1));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(1));
  absl::Mutex mu;
  int guarded = 0;
  {
    absl::MutexLock lock(&mu);
    ++guarded;
  }
  EXPECT_EQ(guarded, 1);
}

// --- Shape functions returning absl::Status -----------------------------------

using ::opkit::shape_inference::ShapeInferenceTestOp;

TEST(CompatStatusShapeFnTest, AbslShapeFunctionsRun) {
  ShapeInferenceTestOp clip("AbslClipRows");
  INFER_OK(clip, "[2,3];[]", "in0");
  INFER_ERROR("Shape must be rank 2 but is rank 1", clip, "[2];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", clip, "[2,3];[1]");

  ShapeInferenceTestOp scalar("AbslScalarOut");
  INFER_OK(scalar, "[4]", "[]");

  ShapeInferenceTestOp sum("AbslSumRows");
  INFER_OK(sum, "[5,2]", "[d0_0]");
  INFER_ERROR("Shape must be rank 2 but is rank 3", sum, "[5,2,1]");
}

// --- Kernels run eagerly ------------------------------------------------------

class CompatStatusKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = ::opkit::EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = std::move(ctx).value();
  }
  std::unique_ptr<::opkit::EagerContext> ctx_;
};

TEST_F(CompatStatusKernelTest, ClipRunsAndReportsAbslErrors) {
  Tensor x(DT_FLOAT, TensorShape({2, 2}));
  x.flat<float>().setValues({-3.f, 0.5f, 2.f, -0.25f});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AbslClipRows", {x, Tensor(1.0f)}, &out), IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<float>()(0), -1.f);
  EXPECT_EQ(out[0].flat<float>()(1), 0.5f);
  EXPECT_EQ(out[0].flat<float>()(2), 1.f);
  EXPECT_EQ(out[0].flat<float>()(3), -0.25f);

  EXPECT_THAT(ctx_->Run("AbslClipRows", {x, Tensor(-2.0f)}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("limit must be >= 0, got -2")));
}

TEST_F(CompatStatusKernelTest, SumRowsUsesStatusOrAndAbseil) {
  Tensor x(DT_INT64, TensorShape({2, 3}));
  x.flat<int64_t>().setValues({1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AbslSumRows", {x}, &out), IsOk());
  ASSERT_EQ(out[0].NumElements(), 2);
  EXPECT_EQ(out[0].vec<int64_t>()(0), 6);
  EXPECT_EQ(out[0].vec<int64_t>()(1), 15);

  Tensor none(DT_INT64, TensorShape({0, 3}));
  EXPECT_THAT(ctx_->Run("AbslSumRows", {none}, &out),
              StatusIs(error::OUT_OF_RANGE, HasSubstr("no rows")));
}

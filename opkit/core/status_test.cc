// Tests of Status and the errors:: helpers.
#include "opkit/core/status.h"

#include <sstream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/core/statusor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), error::OK);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_TRUE(OkStatus().ok());
}

TEST(StatusTest, OkCodeIgnoresMessage) {
  Status s(error::OK, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s(error::NOT_FOUND, "no such op");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), error::NOT_FOUND);
  EXPECT_EQ(s.message(), "no such op");
  EXPECT_EQ(s.error_message(), "no such op");
  EXPECT_EQ(s.ToString(), "Not found: no such op");
  std::ostringstream os;
  os << s;
  EXPECT_EQ(os.str(), "Not found: no such op");
}

TEST(StatusTest, CopyAndMoveKeepState) {
  Status a(error::INTERNAL, "x");
  Status b = a;
  EXPECT_EQ(a, b);
  Status c = std::move(b);
  EXPECT_EQ(c, a);
  Status d;
  d = c;
  EXPECT_EQ(d, a);
  EXPECT_NE(d, Status::OK());
  EXPECT_NE(Status(error::INTERNAL, "y"), a);
  EXPECT_NE(Status(error::UNKNOWN, "x"), a);
}

TEST(StatusTest, UpdateKeepsFirstError) {
  Status s;
  s.Update(Status::OK());
  EXPECT_TRUE(s.ok());
  s.Update(errors::InvalidArgument("first"));
  s.Update(errors::Internal("second"));
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, "first"));
}

TEST(StatusTest, CodeNamesCoverEveryCode) {
  EXPECT_EQ(error::CodeName(error::INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_EQ(error::CodeName(error::UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_EQ(error::CodeName(static_cast<error::Code>(99)), "UNKNOWN_CODE(99)");
  for (int c = 1; c <= 16; ++c) {
    EXPECT_THAT(error::CodeName(static_cast<error::Code>(c)),
                ::testing::Not(HasSubstr("UNKNOWN_CODE")));
    EXPECT_THAT(error::CodeDescription(static_cast<error::Code>(c)),
                ::testing::Not(HasSubstr("Unknown code")));
  }
}

TEST(ErrorsTest, BuildMessagesFromPrintableArguments) {
  int64_t v = -3;
  Status s = errors::InvalidArgument("Need preserve_index >= 0, got ", v);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          "Need preserve_index >= 0, got -3"));
  EXPECT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_FALSE(errors::IsNotFound(s));
  EXPECT_EQ(errors::OutOfRange("i=", 2, " of ", 1.5f, " ", true).message(),
            "i=2 of 1.5 true");
  EXPECT_EQ(errors::Internal(int8_t{7}, uint8_t{200}).message(), "7200");
}

TEST(ErrorsTest, EveryHelperHasItsCode) {
  EXPECT_EQ(errors::Cancelled("").code(), error::CANCELLED);
  EXPECT_EQ(errors::Unknown("").code(), error::UNKNOWN);
  EXPECT_EQ(errors::DeadlineExceeded("").code(), error::DEADLINE_EXCEEDED);
  EXPECT_EQ(errors::NotFound("").code(), error::NOT_FOUND);
  EXPECT_EQ(errors::AlreadyExists("").code(), error::ALREADY_EXISTS);
  EXPECT_EQ(errors::PermissionDenied("").code(), error::PERMISSION_DENIED);
  EXPECT_EQ(errors::ResourceExhausted("").code(), error::RESOURCE_EXHAUSTED);
  EXPECT_EQ(errors::FailedPrecondition("").code(), error::FAILED_PRECONDITION);
  EXPECT_EQ(errors::Aborted("").code(), error::ABORTED);
  EXPECT_EQ(errors::Unimplemented("").code(), error::UNIMPLEMENTED);
  EXPECT_EQ(errors::Unavailable("").code(), error::UNAVAILABLE);
  EXPECT_EQ(errors::DataLoss("").code(), error::DATA_LOSS);
  EXPECT_EQ(errors::Unauthenticated("").code(), error::UNAUTHENTICATED);
}

TEST(ErrorsTest, AppendToMessage) {
  Status s = errors::AppendToMessage(errors::NotFound("a"), " b", 1);
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND, "a b1"));
  EXPECT_THAT(errors::AppendToMessage(Status::OK(), "x"), IsOk());
}

Status FailsWhen(bool fail) {
  if (fail) return errors::Aborted("failed");
  return Status::OK();
}

Status Chain(bool fail, int* reached) {
  OPKIT_RETURN_IF_ERROR(FailsWhen(fail));
  TF_RETURN_IF_ERROR(FailsWhen(false));
  ++*reached;
  return Status::OK();
}

TEST(StatusMacrosTest, ReturnIfError) {
  int reached = 0;
  EXPECT_THAT(Chain(false, &reached), IsOk());
  EXPECT_EQ(reached, 1);
  EXPECT_THAT(Chain(true, &reached), StatusIs(error::ABORTED, "failed"));
  EXPECT_EQ(reached, 1);
}

// Note [absl::Status interop].
TEST(AbslInteropTest, ConvertsBothWaysKeepingCodeAndMessage) {
  const absl::Status a = Status(error::NOT_FOUND, "no such op 'Foo'");
  EXPECT_EQ(a.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a.message(), "no such op 'Foo'");
  const Status back = a;
  EXPECT_THAT(back, StatusIs(error::NOT_FOUND, "no such op 'Foo'"));
  const Status from_absl = absl::InvalidArgumentError("bad rank");
  EXPECT_THAT(from_absl, StatusIs(error::INVALID_ARGUMENT, "bad rank"));
  EXPECT_THAT(Status(absl::OkStatus()), IsOk());
  EXPECT_TRUE(absl::Status(Status::OK()).ok());
  EXPECT_EQ(Status(absl::StatusCode::kInternal, "x").code(), error::INTERNAL);
}

TEST(AbslInteropTest, MixedComparisons) {
  EXPECT_TRUE(Status::OK() == absl::OkStatus());
  EXPECT_TRUE(absl::OkStatus() == Status::OK());
  EXPECT_TRUE(errors::Internal("x") == absl::InternalError("x"));
  EXPECT_TRUE(errors::Internal("x") != absl::InternalError("y"));
  EXPECT_TRUE(absl::AbortedError("x") != errors::Internal("x"));
  EXPECT_TRUE(absl::NotFoundError("x").code() == error::NOT_FOUND);
  EXPECT_TRUE(errors::NotFound("x").code() == absl::StatusCode::kNotFound);
  EXPECT_TRUE(errors::IsNotFound(absl::NotFoundError("x")));
}

absl::Status AbslFails() { return absl::DataLossError("truncated"); }
Status OpkitFails() { return errors::Unavailable("later"); }

absl::Status ReturnsAbsl(bool opkit_error) {
  if (opkit_error) TF_RETURN_IF_ERROR(OpkitFails());
  TF_RETURN_IF_ERROR(AbslFails());
  return absl::OkStatus();
}

StatusOr<int> ReturnsStatusOr(bool fail) {
  if (fail) return absl::FailedPreconditionError("not ready");
  return 7;
}

absl::StatusOr<int> ReturnsAbslStatusOr(bool fail) {
  if (fail) return errors::OutOfRange("past the end");
  return 9;
}

Status UsesBoth(bool fail) {
  OPKIT_ASSIGN_OR_RETURN(int a, ReturnsAbslStatusOr(fail));
  OPKIT_ASSIGN_OR_RETURN(int b, ReturnsStatusOr(false));
  return a + b == 16 ? Status::OK() : errors::Internal("sum");
}

TEST(AbslInteropTest, MacrosAndStatusOrTakeEither) {
  EXPECT_THAT(Status(ReturnsAbsl(true)), StatusIs(error::UNAVAILABLE, "later"));
  EXPECT_THAT(Status(ReturnsAbsl(false)),
              StatusIs(error::DATA_LOSS, "truncated"));
  EXPECT_THAT(ReturnsStatusOr(true).status(),
              StatusIs(error::FAILED_PRECONDITION, "not ready"));
  EXPECT_EQ(*ReturnsStatusOr(false), 7);
  EXPECT_EQ(ReturnsAbslStatusOr(true).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_THAT(UsesBoth(false), IsOk());
  EXPECT_THAT(UsesBoth(true), StatusIs(error::OUT_OF_RANGE, "past the end"));
}

TEST(ErrorsTest, AppendToMessageInPlaceAddsALine) {
  Status s = errors::InvalidArgument("bad shape");
  errors::AppendToMessage(&s, "while reading ", "x.pb");
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          "bad shape\n\twhile reading x.pb"));
  Status ok;
  errors::AppendToMessage(&ok, "ignored");
  EXPECT_THAT(ok, IsOk());
}

}  // namespace
}  // namespace opkit

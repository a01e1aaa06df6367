// Tests of StatusOr<T> and OPKIT_ASSIGN_OR_RETURN.
#include "opkit/core/statusor.h"

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return errors::InvalidArgument("odd: ", x);
  return x / 2;
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<int> r = Half(8);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(*r, 4);
  EXPECT_EQ(r.value(), 4);
  EXPECT_EQ(r.ValueOrDie(), 4);
  EXPECT_EQ(r.value_or(-1), 4);
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> r = Half(3);
  EXPECT_THAT(r, StatusIs(error::INVALID_ARGUMENT, "odd: 3"));
  EXPECT_EQ(r.value_or(-1), -1);
}

TEST(StatusOrTest, OkStatusBecomesInternalError) {
  StatusOr<int> r = Status::OK();
  EXPECT_THAT(r, StatusIs(error::INTERNAL, HasSubstr("OK status")));
}

TEST(StatusOrTest, MoveOnlyValues) {
  StatusOr<std::unique_ptr<std::string>> r = std::make_unique<std::string>("x");
  ASSERT_THAT(r, IsOk());
  std::unique_ptr<std::string> p = std::move(r).value();
  EXPECT_EQ(*p, "x");
  StatusOr<std::string> s = std::string("abc");
  EXPECT_EQ(s->size(), 3u);
}

TEST(StatusOrDeathTest, ValueOfErrorAbortsWithTheStatus) {
  StatusOr<int> r = errors::NotFound("missing thing");
  EXPECT_DEATH((void)r.value(), "missing thing");
}

Status Quarter(int x, int* out) {
  OPKIT_ASSIGN_OR_RETURN(int h, Half(x));
  OPKIT_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::OK();
}

TEST(StatusOrTest, AssignOrReturn) {
  int out = 0;
  EXPECT_THAT(Quarter(8, &out), IsOk());
  EXPECT_EQ(out, 2);
  EXPECT_THAT(Quarter(6, &out), StatusIs(error::INVALID_ARGUMENT, "odd: 3"));
  EXPECT_EQ(out, 2);
}

// Note [absl::Status interop]: StatusOr converts to and from
// absl::StatusOr, keeping the value or the code and message.
TEST(StatusOrAbslTest, ConvertsBothWays) {
  absl::StatusOr<std::string> a = StatusOr<std::string>("kept");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, "kept");
  absl::StatusOr<std::string> a_err =
      StatusOr<std::string>(errors::NotFound("gone"));
  EXPECT_EQ(a_err.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a_err.status().message(), "gone");

  StatusOr<std::unique_ptr<int>> o =
      absl::StatusOr<std::unique_ptr<int>>(std::make_unique<int>(4));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(**o, 4);
  StatusOr<int> o_err = absl::StatusOr<int>(absl::AbortedError("stop"));
  EXPECT_THAT(o_err.status(), StatusIs(error::ABORTED, "stop"));
  StatusOr<int> from_status = absl::UnavailableError("later");
  EXPECT_THAT(from_status.status(), StatusIs(error::UNAVAILABLE, "later"));
}

}  // namespace
}  // namespace opkit

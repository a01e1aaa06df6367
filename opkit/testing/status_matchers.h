// GoogleTest matchers for Status and StatusOr.
//
//   EXPECT_THAT(registry.Register(data), IsOk());
//   EXPECT_THAT(builder.Finalize(&data),
//               StatusIs(error::INVALID_ARGUMENT, HasSubstr("Trouble parsing")));
//   OPKIT_ASSERT_OK(status_or_value);
#ifndef OPKIT_TESTING_STATUS_MATCHERS_H_
#define OPKIT_TESTING_STATUS_MATCHERS_H_

#include <ostream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"

namespace opkit {
namespace testing {
namespace internal {

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const StatusOr<T>& s) {
  return s.status();
}

}  // namespace internal

MATCHER(IsOk, negation ? "is not OK" : "is OK") {
  const Status& s = internal::GetStatus(arg);
  if (!s.ok()) *result_listener << "which is " << s.ToString();
  return s.ok();
}

MATCHER_P2(StatusIs, code, message_matcher,
           std::string("has code ") + error::CodeName(code) +
               " and a message that " +
               ::testing::DescribeMatcher<std::string>(message_matcher,
                                                       negation)) {
  const Status& s = internal::GetStatus(arg);
  *result_listener << "which is " << s.ToString();
  return s.code() == code &&
         ::testing::Matches(::testing::SafeMatcherCast<const std::string&>(
             message_matcher))(s.message());
}

// StatusIs(code): any message.
MATCHER_P(StatusIs, code, std::string("has code ") + error::CodeName(code)) {
  const Status& s = internal::GetStatus(arg);
  *result_listener << "which is " << s.ToString();
  return s.code() == code;
}

}  // namespace testing
}  // namespace opkit

#define OPKIT_EXPECT_OK(expr) EXPECT_THAT((expr), ::opkit::testing::IsOk())
#define OPKIT_ASSERT_OK(expr) ASSERT_THAT((expr), ::opkit::testing::IsOk())

#endif  // OPKIT_TESTING_STATUS_MATCHERS_H_

// Where tests find data: the source tree and the team's shared/ folder.
//
//   std::string pbtxt = SharedDir() + "/conformance/tensorflow/ops.pbtxt";
#ifndef OPKIT_TESTING_TEST_DATA_H_
#define OPKIT_TESTING_TEST_DATA_H_

#include <string>

namespace opkit {
namespace testing {

// The repository root (OPKIT_SOURCE_DIR, set by ctest; else the configured one).
std::string SourceDir();
// The shared/ folder beside the repository (OPKIT_SHARED_DIR, set by ctest).
std::string SharedDir();

}  // namespace testing
}  // namespace opkit

#endif  // OPKIT_TESTING_TEST_DATA_H_

// Where tests find data: the source tree and its tests/testdata/ folder.
// Nothing a test reads lies outside the repository.
//
//   std::string pbtxt = TestDataDir() + "/tensorflow/ops.pbtxt";
#ifndef OPKIT_TESTING_TEST_DATA_H_
#define OPKIT_TESTING_TEST_DATA_H_

#include <string>

namespace opkit {
namespace testing {

// The repository root (OPKIT_SOURCE_DIR, set by ctest; else the configured one).
std::string SourceDir();
// The repository's tests/testdata/ folder: reference data copied in with its
// provenance (tests/testdata/tensorflow/README.md).
std::string TestDataDir();

}  // namespace testing
}  // namespace opkit

#endif  // OPKIT_TESTING_TEST_DATA_H_

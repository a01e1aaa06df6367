// Where tests find the source tree and its test data.
#include "opkit/testing/test_data.h"

#include <cstdlib>

namespace opkit {
namespace testing {

std::string SourceDir() {
  const char* d = std::getenv("OPKIT_SOURCE_DIR");
  return d ? d : OPKIT_DEFAULT_SOURCE_DIR;
}

std::string TestDataDir() { return SourceDir() + "/tests/testdata"; }

}  // namespace testing
}  // namespace opkit

#include "opkit/testing/test_data.h"

#include <cstdlib>

namespace opkit {
namespace testing {

std::string SourceDir() {
  const char* d = std::getenv("OPKIT_SOURCE_DIR");
  return d ? d : OPKIT_DEFAULT_SOURCE_DIR;
}

std::string SharedDir() {
  const char* d = std::getenv("OPKIT_SHARED_DIR");
  return d ? d : SourceDir() + "/../shared";
}

}  // namespace testing
}  // namespace opkit

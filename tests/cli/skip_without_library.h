// OPKIT_SKIP_WITHOUT_LIBRARY(path): skips the current GoogleTest test when
// the op library at `path` was not built. CMake defines the path of an
// example library as "" without OPKIT_BUILD_EXAMPLES
// (opkit_cli_test_libraries in tests/cli/CMakeLists.txt):
//
//   TEST_F(CliTest, LoadZeroOut) {
//     OPKIT_SKIP_WITHOUT_LIBRARY(OPKIT_ZERO_OUT_LIB);
//     ... Run({"load", OPKIT_ZERO_OUT_LIB}) ...
//   }
#ifndef OPKIT_TESTS_CLI_SKIP_WITHOUT_LIBRARY_H_
#define OPKIT_TESTS_CLI_SKIP_WITHOUT_LIBRARY_H_

#include <string>

#include "gtest/gtest.h"

#define OPKIT_SKIP_WITHOUT_LIBRARY(path)                                \
  do {                                                                  \
    if (std::string(path).empty()) {                                    \
      GTEST_SKIP() << #path " is not built (OPKIT_BUILD_EXAMPLES=OFF)"; \
    }                                                                   \
  } while (0)

#endif  // OPKIT_TESTS_CLI_SKIP_WITHOUT_LIBRARY_H_

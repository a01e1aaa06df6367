# opkit_cc_test(NAME SRCS a_test.cc ... [DEPS target ...] [LABELS ...])
#
# One GoogleTest program, registered with ctest test by test. Tests link
# opkit::testing (matchers, gtest_main) and whatever DEPS names.
include(GoogleTest)
function(opkit_cc_test name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE opkit::testing ${ARG_DEPS})
  # Tests find the source tree and tests/testdata/ through opkit/testing/test_data.h
  # (compiled-in defaults, overridable by OPKIT_SOURCE_DIR).
  if(ARG_LABELS)
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "${ARG_LABELS}")
  else()
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST)
  endif()
endfunction()

# opkit_cc_test(NAME SRCS a_test.cc ... [DEPS target ...] [LABELS ...])
#
# One GoogleTest program, registered with ctest test by test (or as one
# test: Note [Test granularity]). Tests link
# opkit::testing (matchers, gtest_main) and whatever DEPS names.
include(GoogleTest)

# Note [Test build cost]
# Test programs are most of what a build compiles, and CI builds them twice
# (release and sanitizers) on two cores. Two things keep that cheap without
# changing what a test checks:
# - Test code compiles at -O0 in every build: the library under test keeps
#   its own optimisation (-O3 in release, -O0 under ASan, -O1 under TSan), and a
#   test's own code (gtest macros, matchers, fixtures) gains nothing from
#   optimising but compile time.
# - Every test program reuses one precompiled header (opkit_test_pch in
#   opkit/testing/) holding gtest, gmock and the opkit headers most tests
#   include. It is only a head start: each test still includes what it uses,
#   and a compiler that cannot use the PCH reads the headers instead. A test
#   that defines a macro before an include to change what the header
#   declares (SHOULD_REGISTER_OP, SHOULD_REGISTER_OP_KERNEL) comes too late
#   for a header the PCH holds: such a file sets SKIP_PRECOMPILE_HEADERS.
# - Under ASan and UBSan (OPKIT_SANITIZE address;undefined) a test's own code
#   is not instrumented: the library it calls is, and every allocation is
#   ASan's (its runtime is linked), so a kernel writing past its output or
#   reading a freed buffer is still caught where it happens. What goes
#   unchecked is the test's own code, which only reads results; instrumenting
#   it at -O0 cost more compile time than any other part of the sanitizer
#   build. ThreadSanitizer needs every access instrumented and keeps it.
function(opkit_test_code_flags target)
  target_compile_options(${target} PRIVATE -O0)
  if(OPKIT_SANITIZE AND NOT "thread" IN_LIST OPKIT_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
  endif()
endfunction()

function(opkit_attach_test_pch)
  get_property(tests GLOBAL PROPERTY OPKIT_PCH_TESTS)
  foreach(test IN LISTS tests)
    target_precompile_headers(${test} REUSE_FROM opkit_test_pch)
  endforeach()
endfunction()
if(OPKIT_TEST_PCH)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL opkit_attach_test_pch)
endif()

function(opkit_test_build_cost target)
  opkit_test_code_flags(${target})
  if(OPKIT_TEST_PCH)
    # opkit_test_pch is defined with opkit/testing, after the layers' tests:
    # it is attached once the whole tree is read (opkit_attach_test_pch).
    set_property(GLOBAL APPEND PROPERTY OPKIT_PCH_TESTS ${target})
  endif()
endfunction()

function(opkit_cc_test name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE opkit::testing ${ARG_DEPS})
  opkit_test_build_cost(${name})
  opkit_unity_batches(${name})
  # Tests find the source tree and tests/testdata/ through opkit/testing/test_data.h
  # (compiled-in defaults, overridable by OPKIT_SOURCE_DIR).
  # Note [Test granularity]: a test program is one ctest test per GoogleTest
  # case by default, so a failure names the case and cases run in parallel.
  # Each case then starts the whole program, and under the sanitizers that
  # start (every op and kernel registering, instrumented at -O0) costs about
  # a second: 1600 cases took twelve minutes of CI for two of actual testing.
  # OPKIT_TEST_PER_PROGRAM (on in the asan and tsan presets) makes each
  # program one ctest test running all its cases in one process; GoogleTest's
  # output still names every failing case.
  if(OPKIT_TEST_PER_PROGRAM)
    add_test(NAME ${name} COMMAND ${name})
    if(ARG_LABELS)
      set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
    endif()
  elseif(ARG_LABELS)
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "${ARG_LABELS}")
  else()
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST)
  endif()
endfunction()

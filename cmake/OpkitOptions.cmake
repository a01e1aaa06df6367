# Compiler flags shared by every opkit target: warnings, host vector
# instructions, sanitizers.

add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare)
# A build should print no warnings; OPKIT_WERROR checks it. (Eigen's false
# positives under GCC are silenced where Eigen is included: Note [Eigen
# warnings] in opkit/core/eigen.h.)
if(OPKIT_WERROR)
  add_compile_options(-Werror)
endif()
# __FILE__ relative to the source tree: registration origins and log lines
# read "opkit/kernels/matmul_op.cc:66" wherever the tree was built.
add_compile_options(-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-Wthread-safety)
endif()

# Note [Portable builds]: the default build is portable (OPKIT_NATIVE=OFF):
# it uses the compiler's baseline instructions (x86-64: SSE2), so a packaged
# or CI-built opkit runs on any CPU of the architecture instead of dying
# with SIGILL on one older than the build machine. OPKIT_NATIVE=ON compiles
# for the build machine (-march=native: AVX2/FMA/AVX-512 where present) for
# benchmarks and local use; the `bench` preset turns it on. Plugins get
# -march=native in their flags (opkit-config, opkit.sysconfig) only from a
# native opkit, and every plugin records the instructions it was compiled
# for, so a plugin built for a newer CPU is refused at load with a message
# instead of crashing (Note [ABI build record] in opkit/core/abi.h).
# EIGEN_MAX_ALIGN_BYTES is fixed at 64 for opkit and every plugin (as
# TensorFlow does): Eigen's alignment then does not depend on -march, so a
# -march=native plugin and a portable opkit agree on it; the loader refuses
# a plugin compiled with another value.
set(OPKIT_EIGEN_MAX_ALIGN_BYTES 64)
add_compile_definitions(EIGEN_MAX_ALIGN_BYTES=${OPKIT_EIGEN_MAX_ALIGN_BYTES})

if(OPKIT_NATIVE)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-march=native OPKIT_HAS_MARCH_NATIVE)
  if(OPKIT_HAS_MARCH_NATIVE)
    add_compile_options(-march=native)
  endif()
endif()

if(OPKIT_SANITIZE)
  foreach(san IN LISTS OPKIT_SANITIZE)
    add_compile_options(-fsanitize=${san})
    add_link_options(-fsanitize=${san})
  endforeach()
  add_compile_options(-fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fno-sanitize-recover=all)
endif()

# libFuzzer needs coverage from the library, not only from the fuzz target.
if(OPKIT_LIBFUZZER)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# Note [Unity batches]: with OPKIT_UNITY_BUILD (on by default) the sources of
# each library layer and of each test program compile in unity batches, one
# translation unit including a batch's files in turn: 16 files a batch for
# the library (OPKIT_UNITY_LAYER_BATCH_SIZE), which every preset builds, and
# 8 for a test program (OPKIT_UNITY_BATCH_SIZE). A source spends most of
# its compile time on what every source repeats: loading the precompiled
# third-party or test header (2-3 s each; they are 180 and 260 MB) and
# instantiating the same Eigen, protobuf and GoogleTest templates. Eight
# kernels compiled in 7 s as one batch and in 25 s apart; eight test files
# in 13 s and 42 s. CI builds the tree three times on two cores, so this is
# most of its time. What it asks of a source: file-scope helpers (anonymous
# namespace, static) of files in one target must not share a name, and a
# macro a source defines for itself is #undef'd at its end. A source that
# must be compiled alone (it defines a macro before an include to change
# what a header declares) sets SKIP_UNITY_BUILD_INCLUSION, as it sets
# SKIP_PRECOMPILE_HEADERS. A folder whose tests compile code as TensorFlow
# users write it (tests/compat) sets OPKIT_NO_UNITY_IN_DIR and keeps each
# file its own translation unit: a batch could hide a missing include or
# using-declaration that a user's file would trip over. OPKIT_UNITY_BUILD=OFF
# compiles every file alone, for the quickest rebuild of one changed file.
set(OPKIT_UNITY_BATCH_SIZE 8 CACHE STRING
  "Test sources per unity batch (Note [Unity batches] in cmake/OpkitOptions.cmake)")
set(OPKIT_UNITY_LAYER_BATCH_SIZE 16 CACHE STRING
  "Library sources per unity batch (Note [Unity batches] in cmake/OpkitOptions.cmake)")
# opkit_unity_batches(target [batch size]); the size defaults to
# OPKIT_UNITY_BATCH_SIZE.
function(opkit_unity_batches target)
  set(size ${OPKIT_UNITY_BATCH_SIZE})
  if(ARGC GREATER 1)
    set(size ${ARGV1})
  endif()
  if(OPKIT_UNITY_BUILD AND NOT OPKIT_NO_UNITY_IN_DIR)
    set_target_properties(${target} PROPERTIES
      UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${size})
  endif()
endfunction()

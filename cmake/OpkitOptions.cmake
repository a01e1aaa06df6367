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

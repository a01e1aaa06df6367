# opkit_add_op_library(<name> SOURCES a.cc ... [GPU_SOURCES k.cu.cc ...])
#
# Builds a loadable op library (a MODULE: opened with LoadOpLibrary, never
# linked) from TensorFlow-style or opkit-style sources. It links against
# libopkit_framework.so only, sees opkit's headers and the TensorFlow
# compatibility root (so `#include "tensorflow/core/framework/op.h"` works),
# and gets the flags a plugin needs: -fPIC, C++17, hidden visibility, and no
# undefined symbols left for the loader to discover (a missing symbol is a
# link error, not a dlopen failure at run time).
#
# GPU_SOURCES are compiled with CUDA only when OPKIT_CUDA is ON and a CUDA
# compiler is found; otherwise they are skipped with a message (opkit
# itself has CPU kernels only). Works in opkit's own tree and from the
# installed package (find_package(opkit)).
include_guard(GLOBAL)

option(OPKIT_CUDA "Compile the GPU_SOURCES of op libraries with CUDA" OFF)

function(opkit_add_op_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;GPU_SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "opkit_add_op_library(${name}): give SOURCES")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE opkit::framework opkit::compat)
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    POSITION_INDEPENDENT_CODE ON
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # --as-needed: opkit::compat offers the abseil libraries TensorFlow code
  # may use; a library records (and loads) only those it does use.
  target_link_options(${name} PRIVATE "LINKER:--no-undefined" "LINKER:--as-needed")
  # Without unique symbols dlclose() can really unmap the library, so a
  # rebuilt library loads fresh (GCC marks inline statics "unique", which
  # pins a library in memory for good).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${name} PRIVATE -fno-gnu-unique)
  endif()

  if(ARG_GPU_SOURCES)
    set(use_cuda OFF)
    if(OPKIT_CUDA)
      include(CheckLanguage)
      check_language(CUDA)
      if(CMAKE_CUDA_COMPILER)
        enable_language(CUDA)
        set(use_cuda ON)
      endif()
    endif()
    if(use_cuda)
      set_source_files_properties(${ARG_GPU_SOURCES} PROPERTIES LANGUAGE CUDA)
      target_sources(${name} PRIVATE ${ARG_GPU_SOURCES})
      target_compile_definitions(${name} PRIVATE GOOGLE_CUDA=1)
    else()
      message(STATUS "opkit: ${name}: GPU sources skipped (CUDA not enabled; -DOPKIT_CUDA=ON)")
    endif()
  endif()
endfunction()

# opkit_layer(NAME INTO library [BELOW layer ...] SOURCES a.cc ...)
#
# Note [Layers]: each folder of opkit/ is one layer, built as the OBJECT
# library opkit_layer_<NAME> whose objects go INTO a shared library
# (opkit_framework or opkit_ops). A layer's sources see only its own folder
# and the folders BELOW it: they compile against a view of the tree,
# build/<preset>/layers/<NAME>/opkit/, that holds links to exactly those
# folders, plus the generated protobuf headers. An include that runs upward
# ("opkit/runtime/..." from opkit/kernel/) is a compile error, not a review
# comment. Tests and programs link the shared libraries and see every header.
#
# opkit_layer_headers(NAME) then compiles every header of the layer on its
# own, through the same view: each is self-contained and obeys the layering.
# Note [Library build cost]: most of the time a library source or a header
# check takes to compile goes to reading the same third-party headers
# (Eigen's tensor module, protobuf, abseil, the standard library): about
# half of a typical layer source, more of a header check. With OPKIT_LIB_PCH
# (on by default) they are precompiled once, in opkit_third_party_pch
# (cmake/third_party_pch.h), and every layer, every header check and the
# compat header checks reuse that one precompiled header: their flags are
# the same but for defines the third-party headers never read, and GCC's
# -Winvalid-pch (with -Werror in CI) would say so if a target could not use
# it. Only third-party headers are in it, so a header check still proves
# that an opkit header includes the opkit headers it needs.
if(OPKIT_LIB_PCH)
  set(opkit_pch_src ${PROJECT_BINARY_DIR}/opkit_third_party_pch.cc)
  file(GENERATE OUTPUT ${opkit_pch_src}
       CONTENT "// Generated: the source opkit_third_party_pch compiles its header for.\n")
  add_library(opkit_third_party_pch OBJECT ${opkit_pch_src})
  target_link_libraries(opkit_third_party_pch PRIVATE
    protobuf::libprotobuf Eigen3::Eigen Threads::Threads
    absl::flat_hash_map absl::hash absl::strings absl::status absl::statusor)
  target_compile_definitions(opkit_third_party_pch PRIVATE EIGEN_USE_THREADS=)
  target_precompile_headers(opkit_third_party_pch PRIVATE
    ${PROJECT_SOURCE_DIR}/cmake/third_party_pch.h)
endif()
function(opkit_use_third_party_pch target)
  if(OPKIT_LIB_PCH)
    target_precompile_headers(${target} REUSE_FROM opkit_third_party_pch)
  endif()
endfunction()

function(opkit_layer name)
  cmake_parse_arguments(ARG "" "INTO" "BELOW;SOURCES" ${ARGN})
  set(view ${PROJECT_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${view}/opkit)
  foreach(dir IN ITEMS ${name} ${ARG_BELOW})
    if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/opkit/${dir})
      message(FATAL_ERROR "opkit_layer(${name}): no folder opkit/${dir}")
    endif()
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/opkit/${dir} ${view}/opkit/${dir} SYMBOLIC)
  endforeach()
  set(target opkit_layer_${name})
  add_library(${target} OBJECT ${ARG_SOURCES})
  target_include_directories(${target} PRIVATE ${view} ${PROJECT_BINARY_DIR}/gen)
  target_link_libraries(${target} PRIVATE
    protobuf::libprotobuf Eigen3::Eigen Threads::Threads
    absl::flat_hash_map absl::hash absl::strings absl::status absl::statusor)
  # Eigen's ThreadPoolDevice is only declared with EIGEN_USE_THREADS;
  # kernels and the CPU device need it whatever order they include Eigen in.
  target_compile_definitions(${target} PRIVATE EIGEN_USE_THREADS=)
  if(ARG_INTO STREQUAL "opkit_framework")
    # Only plugins and programs carry opkit_abi_version (core/abi.h).
    target_compile_definitions(${target} PRIVATE OPKIT_BUILDING_FRAMEWORK)
  endif()
  # __FILE__ in a header reached through the view reads "opkit/...".
  target_compile_options(${target} PRIVATE -fmacro-prefix-map=${view}/=)
  add_dependencies(${target} opkit_proto)
  opkit_use_third_party_pch(${target})
  opkit_unity_batches(${target} ${OPKIT_UNITY_LAYER_BATCH_SIZE})
  target_sources(${ARG_INTO} PRIVATE $<TARGET_OBJECTS:${target}>)
  set_property(GLOBAL PROPERTY opkit_layer_${name}_below "${ARG_BELOW}")
endfunction()

# One generated source per header of opkit/<NAME>/ (and its internal/),
# each including only that header, compiled through the layer's view. A
# compile-only check: sanitizer builds skip it, the release build makes it.
function(opkit_layer_headers name)
  if(OPKIT_SANITIZE)
    return()
  endif()
  file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}
    ${PROJECT_SOURCE_DIR}/opkit/${name}/*.h
    ${PROJECT_SOURCE_DIR}/opkit/${name}/internal/*.h)
  if(NOT headers)
    return()
  endif()
  set(srcs)
  foreach(header IN LISTS headers)
    string(MAKE_C_IDENTIFIER "${header}" id)
    set(src ${CMAKE_CURRENT_BINARY_DIR}/self_contained/${id}.cc)
    file(GENERATE OUTPUT ${src}
         CONTENT "// Generated: ${header} compiles on its own.\n#include \"${header}\"\n#include \"${header}\"\n")
    list(APPEND srcs ${src})
  endforeach()
  set(target opkit_layer_${name}_headers)
  add_library(${target} OBJECT ${srcs})
  target_include_directories(${target} PRIVATE
    ${PROJECT_BINARY_DIR}/layers/${name} ${PROJECT_BINARY_DIR}/gen)
  target_link_libraries(${target} PRIVATE
    protobuf::libprotobuf Eigen3::Eigen Threads::Threads absl::flat_hash_map absl::hash
    absl::status absl::statusor)
  target_compile_definitions(${target} PRIVATE EIGEN_USE_THREADS=)
  # In the default build: a header that breaks fails `cmake --build`.
  add_dependencies(${target} opkit_proto)
  opkit_use_third_party_pch(${target})
endfunction()

# Install rules and the two ways to build an op library against opkit:
#   - the CMake package: find_package(opkit) gives opkit::framework,
#     opkit::compat and opkit_add_op_library();
#   - opkit-config (and opkit.pc for pkg-config): compiler and linker flags
#     for any build system, the way TensorFlow's tf.sysconfig gives them.
# Both work from the build tree too: build/bin/opkit-config, and
# -Dopkit_DIR=<build> for find_package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(OPKIT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/opkit)
set(OPKIT_COMPAT_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/opkit_compat)

# Flags a plugin needs beyond the include paths: C++17 (after any -std the
# user's command line puts first: the last -std wins, so TensorFlow's guide
# command with -std=c++11 works), the definitions opkit's build records
# check (Note [ABI build record] in opkit/core/abi.h) with opkit's values,
# and -march=native only from a native opkit (Note [Portable builds] in
# OpkitOptions.cmake), and `tensorflow` spelled `opkit` from the first
# line (Note [Compat namespace] in compat/tensorflow/core/platform/types.h).
# One list for opkit-config, opkit.pc and opkit.sysconfig.
include(CheckCXXSourceCompiles)
check_cxx_source_compiles([[
#include <cstddef>
#if !defined(_GLIBCXX_USE_CXX11_ABI) || _GLIBCXX_USE_CXX11_ABI != 1
#error not the C++11 ABI
#endif
int main() {}]] OPKIT_GLIBCXX_CXX11_ABI)
set(OPKIT_PLUGIN_CXXFLAGS "-std=c++17 -fPIC -fno-gnu-unique -DEIGEN_USE_THREADS= -DEIGEN_MAX_ALIGN_BYTES=${OPKIT_EIGEN_MAX_ALIGN_BYTES} -Dtensorflow=opkit")
if(OPKIT_GLIBCXX_CXX11_ABI)
  string(APPEND OPKIT_PLUGIN_CXXFLAGS " -D_GLIBCXX_USE_CXX11_ABI=1")
endif()
if(OPKIT_NATIVE AND OPKIT_HAS_MARCH_NATIVE)
  string(APPEND OPKIT_PLUGIN_CXXFLAGS " -march=native")
endif()
# A sanitized opkit (the asan and tsan presets) hands its sanitizers on: a
# program or plugin linked against an instrumented libopkit_framework must
# carry the same runtime, first in its library list (an uninstrumented
# program that only inherits libasan through opkit's library crashes at
# start-up).
set(OPKIT_PLUGIN_SANITIZE_FLAGS "")
foreach(san IN LISTS OPKIT_SANITIZE)
  string(APPEND OPKIT_PLUGIN_SANITIZE_FLAGS " -fsanitize=${san}")
endforeach()
string(APPEND OPKIT_PLUGIN_CXXFLAGS "${OPKIT_PLUGIN_SANITIZE_FLAGS}")
# The abseil libraries TensorFlow code expects next to TensorFlow (compat's
# absl::Status interop, StrCat, Mutex, Time, flat_hash_map): opkit-config
# and opkit.pc link them, as opkit::compat does for CMake users.
set(OPKIT_PLUGIN_ABSL_LIBS "-labsl_status -labsl_statusor -labsl_cord -labsl_str_format_internal -labsl_strings -labsl_strings_internal -labsl_synchronization -labsl_time -labsl_time_zone -labsl_int128 -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set -labsl_throw_delegate -labsl_raw_logging_internal -labsl_base -labsl_spinlock_wait -labsl_bad_optional_access -labsl_bad_variant_access")
get_target_property(_eigen_includes Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
list(GET _eigen_includes 0 OPKIT_EIGEN_INCLUDEDIR)

# --- Installing -------------------------------------------------------------
# Imported as opkit::framework, opkit::ops, opkit::compat: the names the
# build tree's ALIAS targets use.
set_target_properties(opkit_framework PROPERTIES EXPORT_NAME framework)
set_target_properties(opkit_ops PROPERTIES EXPORT_NAME ops)
set_target_properties(opkit_compat PROPERTIES EXPORT_NAME compat)
target_include_directories(opkit_compat INTERFACE
  $<INSTALL_INTERFACE:${OPKIT_COMPAT_INCLUDEDIR}>)
install(TARGETS opkit_framework opkit_ops opkit_compat
  EXPORT opkitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/opkit/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/opkit
  FILES_MATCHING PATTERN "*.h"
  PATTERN "testing" EXCLUDE)
install(DIRECTORY ${PROJECT_BINARY_DIR}/gen/opkit/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/opkit
  FILES_MATCHING PATTERN "*.pb.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/proto/opkit/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/opkit
  FILES_MATCHING PATTERN "*.proto")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/compat/
  DESTINATION ${OPKIT_COMPAT_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "Tensor" PATTERN "Core")
install(EXPORT opkitTargets NAMESPACE opkit:: DESTINATION ${OPKIT_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/templates/opkitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/opkitConfig.cmake
  INSTALL_DESTINATION ${OPKIT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/opkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/opkitConfig.cmake
  ${PROJECT_BINARY_DIR}/opkitConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/OpkitOpLibrary.cmake
  DESTINATION ${OPKIT_INSTALL_CMAKEDIR})

# The build tree as a package too: find_package(opkit) with
# -Dopkit_DIR=<build dir>.
export(EXPORT opkitTargets NAMESPACE opkit::
  FILE ${PROJECT_BINARY_DIR}/opkitTargets.cmake)
file(COPY ${PROJECT_SOURCE_DIR}/cmake/OpkitOpLibrary.cmake
  DESTINATION ${PROJECT_BINARY_DIR})

# --- opkit-config and opkit.pc ------------------------------------------------
# Build tree: point at the sources, the generated headers and the build's
# library folder.
# Include folders first: opkit's headers (what sysconfig.get_include()
# names), the compatibility root, the generated protos, Eigen.
# (python/CMakeLists.txt gives opkit.sysconfig OPKIT_BUILD_TREE_CFLAGS,
# OPKIT_INSTALLED_CFLAGS and OPKIT_PLUGIN_LDFLAGS.)
set(OPKIT_CONFIG_CFLAGS
  "-I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/compat -I${PROJECT_BINARY_DIR}/gen -isystem ${OPKIT_EIGEN_INCLUDEDIR} ${OPKIT_PLUGIN_CXXFLAGS}")
set(OPKIT_BUILD_TREE_CFLAGS "${OPKIT_CONFIG_CFLAGS}")
set(OPKIT_CONFIG_LIBDIR "$<TARGET_FILE_DIR:opkit_framework>")
set(OPKIT_CONFIG_VERSION ${PROJECT_VERSION})
set(OPKIT_CONFIG_PREFIX "# (build tree)")
# Linker flags of a loadable op library; <LIBDIR> is the folder of
# libopkit_framework.so.
set(OPKIT_PLUGIN_LDFLAGS "-shared${OPKIT_PLUGIN_SANITIZE_FLAGS} -L<LIBDIR> -Wl,-rpath,<LIBDIR> -lopkit_framework -lprotobuf ${OPKIT_PLUGIN_ABSL_LIBS}")
string(REPLACE "<LIBDIR>" "$libdir" OPKIT_CONFIG_LDFLAGS "${OPKIT_PLUGIN_LDFLAGS}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/opkit-config.in
  ${PROJECT_BINARY_DIR}/opkit-config.tmp @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/bin/opkit-config
  INPUT ${PROJECT_BINARY_DIR}/opkit-config.tmp
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                   GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(OPKIT_PC_PREFIX "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/opkit.pc.in
  ${PROJECT_BINARY_DIR}/opkit-uninstalled.pc.tmp @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/lib/pkgconfig/opkit-uninstalled.pc
  INPUT ${PROJECT_BINARY_DIR}/opkit-uninstalled.pc.tmp)

# Installed: the same, relative to wherever the install prefix ends up
# (cmake --install --prefix decides it after configuring), found from the
# script's own location, from the .pc file's and (opkit.sysconfig) from the
# Python package's. <PREFIX> stands for the prefix in each.
set(OPKIT_INSTALLED_CFLAGS
  "-I<PREFIX>/${CMAKE_INSTALL_INCLUDEDIR} -I<PREFIX>/${OPKIT_COMPAT_INCLUDEDIR} -isystem ${OPKIT_EIGEN_INCLUDEDIR} ${OPKIT_PLUGIN_CXXFLAGS}")
set(OPKIT_CONFIG_PREFIX [[prefix=$(cd "$(dirname "$0")/.." && pwd)]])
string(REPLACE "<PREFIX>" "$prefix" OPKIT_CONFIG_CFLAGS "${OPKIT_INSTALLED_CFLAGS}")
set(OPKIT_CONFIG_LIBDIR "$prefix/${CMAKE_INSTALL_LIBDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/opkit-config.in
  ${PROJECT_BINARY_DIR}/install/opkit-config @ONLY)
string(REPLACE "<PREFIX>" "\${prefix}" OPKIT_CONFIG_CFLAGS "${OPKIT_INSTALLED_CFLAGS}")
set(OPKIT_CONFIG_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(OPKIT_PC_PREFIX "prefix=\${pcfiledir}/../..")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/opkit.pc.in
  ${PROJECT_BINARY_DIR}/install/opkit.pc @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/install/opkit-config
  DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_BINARY_DIR}/install/opkit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# --- Shape-function test helpers (INFER_OK / INFER_ERROR) ---------------------
# Installed with the package so that an op author tests shape functions out of
# tree: opkit/shape/shape_inference_testutil.h (outside any testing/ folder,
# so the header rule above installs it) and its TensorFlow path
# tensorflow/core/framework/shape_inference_testutil.h (the compat rule); the
# code is in libopkit_framework, and the test links gtest itself. Checked by
# tests/compat/shape_fn_test_out_of_tree.sh (ShapeFnTestBuiltAgainstInstalledPackage).

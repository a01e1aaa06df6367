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

# Flags a plugin needs beyond the include paths: the framework's own
# definitions and vector instructions (Eigen code must agree on both sides),
# and `tensorflow` spelled `opkit` from the first line (Note [Compat
# namespace] in compat/tensorflow/core/platform/types.h).
set(OPKIT_PLUGIN_CXXFLAGS "-std=c++17 -fPIC -fno-gnu-unique -DEIGEN_USE_THREADS -Dtensorflow=opkit")
if(OPKIT_NATIVE AND OPKIT_HAS_MARCH_NATIVE)
  string(APPEND OPKIT_PLUGIN_CXXFLAGS " -march=native")
endif()
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
set(OPKIT_CONFIG_CFLAGS
  "${OPKIT_PLUGIN_CXXFLAGS} -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/compat -I${PROJECT_BINARY_DIR}/gen -isystem ${OPKIT_EIGEN_INCLUDEDIR}")
set(OPKIT_CONFIG_LIBDIR "$<TARGET_FILE_DIR:opkit_framework>")
set(OPKIT_CONFIG_VERSION ${PROJECT_VERSION})
set(OPKIT_CONFIG_PREFIX "# (build tree)")
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
# script's own location and from the .pc file's.
set(OPKIT_CONFIG_PREFIX [[prefix=$(cd "$(dirname "$0")/.." && pwd)]])
set(OPKIT_CONFIG_CFLAGS
  "${OPKIT_PLUGIN_CXXFLAGS} -I$prefix/${CMAKE_INSTALL_INCLUDEDIR} -I$prefix/${OPKIT_COMPAT_INCLUDEDIR} -isystem ${OPKIT_EIGEN_INCLUDEDIR}")
set(OPKIT_CONFIG_LIBDIR "$prefix/${CMAKE_INSTALL_LIBDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/opkit-config.in
  ${PROJECT_BINARY_DIR}/install/opkit-config @ONLY)
set(OPKIT_CONFIG_CFLAGS
  "${OPKIT_PLUGIN_CXXFLAGS} -I\${prefix}/${CMAKE_INSTALL_INCLUDEDIR} -I\${prefix}/${OPKIT_COMPAT_INCLUDEDIR} -isystem ${OPKIT_EIGEN_INCLUDEDIR}")
set(OPKIT_CONFIG_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(OPKIT_PC_PREFIX "prefix=\${pcfiledir}/../..")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/opkit.pc.in
  ${PROJECT_BINARY_DIR}/install/opkit.pc @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/install/opkit-config
  DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_BINARY_DIR}/install/opkit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

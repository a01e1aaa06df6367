# opkit_proto_library(NAME PROTOS a.proto b.proto ...)
#
# Runs protoc over the given files (paths relative to proto/, e.g.
# opkit/types.proto) and builds the generated C++ as an OBJECT library, so
# that code includes "opkit/types.pb.h". The generated classes keep default
# visibility: plugins use them through libopkit_framework.so.
function(opkit_proto_library name)
  cmake_parse_arguments(ARG "" "" "PROTOS" ${ARGN})
  set(gen_dir ${PROJECT_BINARY_DIR}/gen)
  set(srcs)
  set(hdrs)
  foreach(proto IN LISTS ARG_PROTOS)
    get_filename_component(dir ${proto} DIRECTORY)
    get_filename_component(base ${proto} NAME_WE)
    set(cc ${gen_dir}/${dir}/${base}.pb.cc)
    set(h ${gen_dir}/${dir}/${base}.pb.h)
    add_custom_command(
      OUTPUT ${cc} ${h}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${gen_dir}
      COMMAND protobuf::protoc --proto_path=${PROJECT_SOURCE_DIR}/proto
              --cpp_out=${gen_dir} ${PROJECT_SOURCE_DIR}/proto/${proto}
      DEPENDS ${PROJECT_SOURCE_DIR}/proto/${proto} protobuf::protoc
      COMMENT "protoc ${proto}"
      VERBATIM)
    list(APPEND srcs ${cc})
    list(APPEND hdrs ${h})
  endforeach()
  add_library(${name} OBJECT ${srcs} ${hdrs})
  set_target_properties(${name} PROPERTIES
    CXX_VISIBILITY_PRESET default VISIBILITY_INLINES_HIDDEN OFF)
  target_compile_options(${name} PRIVATE -w)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${gen_dir}> $<INSTALL_INTERFACE:include>)
  target_link_libraries(${name} PUBLIC protobuf::libprotobuf)
endfunction()

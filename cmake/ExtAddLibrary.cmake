# ext's libraries are shared objects linked against libMLIR.so and libLLVM.so:
# one copy of MLIR's globals and of ext's own TypeIDs per process, so that a
# plugin loaded into ext-opt can use ext's C++ API (interfaces, attributes).
# Each is installed and exported into ext's CMake package (cmake/ExtInstall.cmake);
# AddMLIR's own install would put it in MLIR's export set, hence DISABLE_INSTALL.
function(add_ext_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} SHARED EXCLUDE_FROM_LIBMLIR DISABLE_INSTALL
    ${ARG_UNPARSED_ARGUMENTS}
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS PUBLIC MLIR ${ARG_LINK_LIBS})
  # Copied together (pip install . puts them beside the Python module), the
  # libraries find each other.
  set_property(TARGET ${name} APPEND PROPERTY BUILD_RPATH "\$ORIGIN")
  target_include_directories(${name} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_property(GLOBAL APPEND PROPERTY EXT_EXPORTED_LIBRARIES ${name})
endfunction()

# ext's libraries are shared objects linked against libMLIR.so and libLLVM.so:
# one copy of MLIR's globals and of ext's own TypeIDs per process, so that a
# plugin loaded into ext-opt can use ext's C++ API (interfaces, attributes).
function(add_ext_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} SHARED EXCLUDE_FROM_LIBMLIR DISABLE_INSTALL
    ${ARG_UNPARSED_ARGUMENTS}
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS PUBLIC MLIR ${ARG_LINK_LIBS})
  # Copied together (pip install . puts them beside the Python module), the
  # libraries find each other.
  set_property(TARGET ${name} APPEND PROPERTY BUILD_RPATH "\$ORIGIN")
endfunction()

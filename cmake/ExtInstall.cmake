# `cmake --install build --prefix P` lays out ext as MLIR lays itself out:
#   P/include/ext/...      headers, TableGen .td files and the generated .inc
#   P/lib/libExt*.so       ext's shared libraries and run-time libraries
#   P/bin/ext-*            the tools
#   P/lib/cmake/ext/       ExtConfig.cmake: find_package(Ext CONFIG) gives
#                          imported targets, EXT_INCLUDE_DIRS, EXT_TOOLS_DIR
#                          and ext_add_plugin (ExtAddPlugin.cmake)
#   P/python_packages/ext  the Python package, when it is built
include(CMakePackageConfigHelpers)
set(EXT_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ext)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ext
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/ext
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

get_property(EXT_EXPORTED_LIBRARIES GLOBAL PROPERTY EXT_EXPORTED_LIBRARIES)
set(EXT_INSTALLED_TOOLS ext-opt ext-translate ext-run)
set(EXT_RUNTIME_LIBRARIES ExtCpuEmulationRuntime ext_cuda_runtime
  ext_launch_planner)
# Installed binaries find ext's libraries next to them and MLIR's where the
# installed MLIR is (Debian's /usr/lib/llvm-22/lib is not on the loader path).
foreach(target ${EXT_EXPORTED_LIBRARIES} ${EXT_INSTALLED_TOOLS})
  set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
endforeach()
install(TARGETS ${EXT_EXPORTED_LIBRARIES} ${EXT_INSTALLED_TOOLS}
  EXPORT ExtTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${EXT_RUNTIME_LIBRARIES}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The ROCm-shaped toolkit folder of links (lib/Target/GPU/CMakeLists.txt);
# the tools find it, like the run-time libraries, beside ext's libraries
# (ext/Support/InstallPaths.h).
install(DIRECTORY ${EXT_LIBS_DIR}/ext-rocm-toolkit
  DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT ExtTargets DESTINATION ${EXT_INSTALL_PACKAGE_DIR})

if(TARGET _ext)
  set_property(TARGET _ext PROPERTY INSTALL_RPATH
    "\$ORIGIN/../../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")
  install(TARGETS _ext LIBRARY DESTINATION python_packages/ext)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/python_packages/ext
    DESTINATION python_packages
    FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  # ext-tune finds the package at ../python_packages, as in the build tree.
  install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/ext-tune DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(EXT_INSTALL_PYTHON_DIR python_packages)
else()
  set(EXT_INSTALL_PYTHON_DIR "")
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/ExtConfig.cmake.in
  ${PROJECT_BINARY_DIR}/${EXT_INSTALL_PACKAGE_DIR}/ExtConfig.cmake
  INSTALL_DESTINATION ${EXT_INSTALL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
# A plugin is refused unless built against this very version.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/${EXT_INSTALL_PACKAGE_DIR}/ExtConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ExactVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/${EXT_INSTALL_PACKAGE_DIR}/ExtConfig.cmake
  ${PROJECT_BINARY_DIR}/${EXT_INSTALL_PACKAGE_DIR}/ExtConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/ExtAddPlugin.cmake
  DESTINATION ${EXT_INSTALL_PACKAGE_DIR})

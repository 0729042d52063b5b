# cmake --install: the executables (bench/, aggregate/), the shape tables, the docs, and a CMake package exporting
# opmark::core (the host library that reads shape tables, model tables and results) for find_package(opmark).
#
#   bin/opmark-bench, bin/opmark-aggregate
#   share/opmark/shapes/          the shape, model, area and submission tables (found from bin/ by the executables)
#   share/doc/opmark/             README.md, results/README.md, aggregate/README.md
#   lib/libopmark_core.a, include/opmark/core/*.h, lib/cmake/opmark/  (opmark::core)
include(CMakePackageConfigHelpers)

set(OPMARK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/opmark" CACHE STRING
    "Where the installed CMake package files of opmark go (relative to the prefix)")

set(OPMARK_SHAPES_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/opmark/shapes")  # core/CMakeLists.txt finds it from bin/
install(DIRECTORY "${PROJECT_SOURCE_DIR}/shapes/" DESTINATION "${OPMARK_SHAPES_INSTALL_DIR}"
  FILES_MATCHING PATTERN "*.yaml")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/results/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}/results")
install(FILES "${PROJECT_SOURCE_DIR}/aggregate/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}/aggregate")

install(EXPORT opmarkTargets NAMESPACE opmark:: DESTINATION "${OPMARK_INSTALL_CMAKEDIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/opmarkConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/opmarkConfig.cmake" INSTALL_DESTINATION "${OPMARK_INSTALL_CMAKEDIR}"
  PATH_VARS OPMARK_SHAPES_INSTALL_DIR)
# 0.x: a new minor version may change the library's interface.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/opmarkConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/opmarkConfig.cmake" "${PROJECT_BINARY_DIR}/opmarkConfigVersion.cmake"
  DESTINATION "${OPMARK_INSTALL_CMAKEDIR}")

# opmark_find_library(PREFIX HEADER LIBRARY VERSION_HEADER MAJOR_MACRO MINOR_MACRO PATCH_MACRO TARGET)
# Finds a library shipped beside (or apart from) the CUDA toolkit, reads its version from a header's #defines and
# makes an imported target. Hints: <PREFIX>_ROOT (CMake or environment), <PREFIX>_HOME, the CUDA toolkit, the
# system paths. Sets <PREFIX>_FOUND, <PREFIX>_VERSION, <PREFIX>_INCLUDE_DIR, <PREFIX>_LIBRARY.
include(FindPackageHandleStandardArgs)

macro(opmark_find_library prefix header library version_header major minor patch target)
  find_package(CUDAToolkit QUIET)
  set(_hints ${${prefix}_ROOT} $ENV{${prefix}_ROOT} $ENV{${prefix}_HOME} ${CUDAToolkit_LIBRARY_ROOT})
  find_path(${prefix}_INCLUDE_DIR ${header}
    HINTS ${_hints} ${CUDAToolkit_INCLUDE_DIRS}
    PATH_SUFFIXES include include/x86_64-linux-gnu include/aarch64-linux-gnu)
  find_library(${prefix}_LIBRARY ${library}
    HINTS ${_hints} ${CUDAToolkit_LIBRARY_DIR}
    PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu lib/aarch64-linux-gnu)
  if(${prefix}_INCLUDE_DIR AND EXISTS "${${prefix}_INCLUDE_DIR}/${version_header}")
    file(STRINGS "${${prefix}_INCLUDE_DIR}/${version_header}" _lines REGEX "^#define (${major}|${minor}|${patch}) ")
    set(_parts "")
    foreach(_macro ${major} ${minor} ${patch})
      string(REGEX MATCH "${_macro} +([0-9]+)" _m "${_lines}")
      list(APPEND _parts "${CMAKE_MATCH_1}")
    endforeach()
    string(JOIN "." ${prefix}_VERSION ${_parts})
  endif()
  find_package_handle_standard_args(${prefix}
    REQUIRED_VARS ${prefix}_LIBRARY ${prefix}_INCLUDE_DIR
    VERSION_VAR ${prefix}_VERSION)
  if(${prefix}_FOUND AND NOT TARGET ${target})
    add_library(${target} UNKNOWN IMPORTED)
    set_target_properties(${target} PROPERTIES
      IMPORTED_LOCATION "${${prefix}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${${prefix}_INCLUDE_DIR}")
  endif()
  mark_as_advanced(${prefix}_INCLUDE_DIR ${prefix}_LIBRARY)
endmacro()

# FindXlsxWriter: libxlsxwriter (Debian: libxlsxwriter-dev), optional: opmark-aggregate writes .xlsx with it.
# Hints: XlsxWriter_ROOT. Result: XlsxWriter_FOUND, XlsxWriter_VERSION, target XlsxWriter::xlsxwriter.
include(FindPackageHandleStandardArgs)
find_path(XlsxWriter_INCLUDE_DIR xlsxwriter.h HINTS ${XlsxWriter_ROOT} $ENV{XlsxWriter_ROOT} PATH_SUFFIXES include)
find_library(XlsxWriter_LIBRARY xlsxwriter HINTS ${XlsxWriter_ROOT} $ENV{XlsxWriter_ROOT} PATH_SUFFIXES lib lib64)
if(XlsxWriter_INCLUDE_DIR AND EXISTS "${XlsxWriter_INCLUDE_DIR}/xlsxwriter.h")
  file(STRINGS "${XlsxWriter_INCLUDE_DIR}/xlsxwriter.h" _lxw_line REGEX "^#define LXW_VERSION \"")
  string(REGEX MATCH "\"([0-9.]+)\"" _lxw_match "${_lxw_line}")
  set(XlsxWriter_VERSION "${CMAKE_MATCH_1}")
endif()
find_package_handle_standard_args(XlsxWriter REQUIRED_VARS XlsxWriter_LIBRARY XlsxWriter_INCLUDE_DIR
                                  VERSION_VAR XlsxWriter_VERSION)
if(XlsxWriter_FOUND AND NOT TARGET XlsxWriter::xlsxwriter)
  add_library(XlsxWriter::xlsxwriter UNKNOWN IMPORTED)
  set_target_properties(XlsxWriter::xlsxwriter PROPERTIES
    IMPORTED_LOCATION "${XlsxWriter_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XlsxWriter_INCLUDE_DIR}")
endif()
mark_as_advanced(XlsxWriter_INCLUDE_DIR XlsxWriter_LIBRARY)

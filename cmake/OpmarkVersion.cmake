# The opmark version and the git commit it was built from, recorded in every result's context.
find_package(Git QUIET)
set(OPMARK_GIT_HASH "unknown")
if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.opmark-git-hash")
  # Written just before the tree is copied to another machine (the GPU machine's copy may carry a stale .git):
  #   git describe --always --dirty --abbrev=12 > .opmark-git-hash
  file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/.opmark-git-hash" OPMARK_GIT_HASH LIMIT_COUNT 1)
elseif(GIT_FOUND AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    OUTPUT_VARIABLE OPMARK_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT OPMARK_GIT_HASH)
    set(OPMARK_GIT_HASH "unknown")
  endif()
endif()
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/version.h.in"
               "${CMAKE_CURRENT_BINARY_DIR}/generated/opmark/version.h" @ONLY)

# cmake --install into a temporary prefix, outside the source tree, then moved (an installed tree must not depend
# on where it was installed): the executables find the installed tables from their own folder, run from another
# folder; $OPMARK_SHAPES goes before them; the aggregator checks a committed bundle by the installed rules; and a
# project of its own builds against find_package(opmark) / opmark::core (test/install/consumer) and counts one
# installed table's cases as opmark-bench does.
#
#   cmake -DBUILD=<build dir> -DSOURCE=<source dir> [-DCONFIG=Release] [-DGENERATOR=...] [-DCXX=...]
#         -P test/install_test.cmake
cmake_minimum_required(VERSION 3.24)
foreach(var BUILD SOURCE)
  if(NOT ${var})
    message(FATAL_ERROR "install_test.cmake: pass -D${var}=...")
  endif()
endforeach()

# The work folder: under $TMPDIR or /tmp, never inside the source tree (the aggregator would take that tree's rules).
set(base "$ENV{TMPDIR}")
if(NOT base OR NOT IS_DIRECTORY "${base}")
  set(base /tmp)
endif()
file(REAL_PATH "${base}" base)
file(REAL_PATH "${SOURCE}" SOURCE)
string(RANDOM LENGTH 10 ALPHABET 0123456789abcdef tag)
set(work "${base}/opmark_install_test_${tag}")
cmake_path(IS_PREFIX SOURCE "${work}" NORMALIZE inside)
if(inside)
  message(FATAL_ERROR "install_test.cmake: the work folder ${work} is inside the source tree: set TMPDIR elsewhere")
endif()
set(stage "${work}/stage")     # where cmake --install puts it
set(prefix "${work}/opmark")   # where it is moved to and run from
set(shapes "${prefix}/share/opmark/shapes")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")

# run(RC COMMAND...): runs COMMAND in the work folder; fails unless it exits RC; its stdout and stderr in `out`.
macro(run expected_rc)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${work}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  string(APPEND out "${err}")
  if(NOT rc STREQUAL "${expected_rc}")
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "expected exit ${expected_rc}, got ${rc}: ${shown}\n${out}")
  endif()
endmacro()
# expect(TEXT WHAT): `out` holds TEXT literally.
function(expect text what)
  string(FIND "${out}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected '${text}' in:\n${out}")
  endif()
endfunction()

# 1. Install, then move the tree.
set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
run(0 "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${stage}" ${config_args})
file(RENAME "${stage}" "${prefix}")
foreach(file bin/opmark-bench bin/opmark-aggregate share/opmark/shapes/gemm.yaml share/opmark/shapes/submission.yaml
             share/opmark/shapes/areas.yaml share/opmark/shapes/models/resnet50.yaml share/doc/opmark/README.md
             share/doc/opmark/results/README.md share/doc/opmark/aggregate/README.md include/opmark/core/table.h
             include/opmark/core/shapes_dir.h)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "cmake --install left no ${file}")
  endif()
endforeach()
file(GLOB_RECURSE package "${prefix}/*/opmarkConfig.cmake")
if(NOT package)
  message(FATAL_ERROR "cmake --install left no opmarkConfig.cmake")
endif()
# The installed package names no path of the source or build tree (the build's generated headers included).
get_filename_component(package_dir "${package}" DIRECTORY)
file(GLOB package_files "${package_dir}/*.cmake")
foreach(file ${package_files})
  file(READ "${file}" text)
  foreach(tree "${SOURCE}" "${BUILD}")
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names ${tree}:\n${text}")
    endif()
  endforeach()
endforeach()

# 2. opmark-bench finds the installed tables, from another folder and after the move.
run(0 "${prefix}/bin/opmark-bench" --opmark_validate)
expect("distinct cases" "opmark-bench --opmark_validate")
run(0 "${prefix}/bin/opmark-bench" --opmark_suite=submission --opmark_validate)
expect("the suite ${shapes}/submission.yaml (rules version" "opmark-bench --opmark_suite=submission")
# $OPMARK_SHAPES goes before them (a folder of one table), and the flag before that.
run(0 "${CMAKE_COMMAND}" -E env "OPMARK_SHAPES=${SOURCE}/test/data/bundles/shapes" "${prefix}/bin/opmark-bench"
  --opmark_validate)
expect("opmark: 1 tables," "opmark-bench with OPMARK_SHAPES")
run(0 "${CMAKE_COMMAND}" -E env "OPMARK_SHAPES=${SOURCE}/test/data/bundles/shapes" "${prefix}/bin/opmark-bench"
  --opmark_validate "--opmark_shapes=${shapes}/gemm.yaml")
string(REGEX MATCH "opmark: 1 tables, ([0-9]+) rows, ([0-9]+) distinct cases" bench_counts "${out}")
if(NOT bench_counts)
  message(FATAL_ERROR "opmark-bench --opmark_shapes=gemm.yaml: no counts in:\n${out}")
endif()
set(gemm_rows "${CMAKE_MATCH_1}")
set(gemm_cases "${CMAKE_MATCH_2}")

# 3. opmark-aggregate checks a committed bundle (copied out of the tree) by the installed rules: the newest apply,
# and the H200's (rules version 4, power above the card's limit) is rejected until re-measured.
file(COPY "${SOURCE}/test/data/bundles/nvidia-h200-v4/" DESTINATION "${work}/bundle")
run(1 "${prefix}/bin/opmark-aggregate" check "${work}/bundle")
expect("rules: ${shapes}/submission.yaml (installed beside the executable" "opmark-aggregate check")
expect("rules version 5 applied (newest: ${shapes}/submission.yaml)" "opmark-aggregate check")
run(1 "${prefix}/bin/opmark-aggregate" check "${work}/bundle" --rules-version 4)
expect("rules version 4 applied (asked for: ${shapes}/submission_v4.yaml)" "opmark-aggregate check --rules-version 4")

# 4. A project of its own: find_package(opmark), opmark::core, one installed table read and counted. Its sources
# are copied out too, so that no path of the source tree can reach its compile lines unnoticed.
file(COPY "${SOURCE}/test/install/consumer/" DESTINATION "${work}/consumer-src")
set(configure_args -S "${work}/consumer-src" -B "${work}/consumer" "-DCMAKE_PREFIX_PATH=${prefix}"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(CXX)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX}")
endif()
run(0 "${CMAKE_COMMAND}" ${configure_args})
run(0 "${CMAKE_COMMAND}" --build "${work}/consumer" --config Release)
set(consumer_exe "${work}/consumer/count_cases")
if(NOT EXISTS "${consumer_exe}")  # a multi-config generator's
  set(consumer_exe "${work}/consumer/Release/count_cases")
endif()
if(EXISTS "${work}/consumer/compile_commands.json")
  file(READ "${work}/consumer/compile_commands.json" text)
  foreach(tree "${SOURCE}" "${BUILD}")
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "the consumer's compile line names ${tree}:\n${text}")
    endif()
  endforeach()
endif()
run(0 "${consumer_exe}")
expect("gemm: ${gemm_rows} rows, ${gemm_cases} distinct cases" "the consumer's count of the installed gemm.yaml")

message(STATUS "installed, moved and run from ${prefix}: ${gemm_cases} gemm cases both ways")
file(REMOVE_RECURSE "${work}")

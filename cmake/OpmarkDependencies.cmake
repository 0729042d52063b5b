# Finds every dependency once and gives each a single target name, whatever version provides it.
if(OPMARK_CUDA)
  find_package(CUDAToolkit REQUIRED)
else()
  message(STATUS "opmark: OPMARK_CUDA=OFF: opmark-aggregate alone (no opmark-bench, no CUDA toolkit needed)")
endif()

# yaml-cpp 0.7 (Debian) exports the target `yaml-cpp`; 0.8 exports `yaml-cpp::yaml-cpp`.
find_package(yaml-cpp REQUIRED)
if(NOT TARGET yaml-cpp::yaml-cpp)
  if(TARGET yaml-cpp)
    add_library(yaml-cpp::yaml-cpp INTERFACE IMPORTED)
    target_link_libraries(yaml-cpp::yaml-cpp INTERFACE yaml-cpp)
  else()
    message(FATAL_ERROR "yaml-cpp was found but exports neither yaml-cpp::yaml-cpp nor yaml-cpp")
  endif()
endif()

find_package(nlohmann_json 3.9 REQUIRED)

# opmark-aggregate's command line (Debian libcli11-dev, header only).
find_package(CLI11 REQUIRED)

if(OPMARK_CUDA)
  # Google Benchmark 1.7 takes --benchmark_min_time as a bare number of seconds, 1.8 wants a unit ("0.05s").
  find_package(benchmark REQUIRED)
  if(benchmark_VERSION VERSION_GREATER_EQUAL 1.8)
    set(OPMARK_BENCHMARK_MIN_TIME_HAS_UNIT 1)
  else()
    set(OPMARK_BENCHMARK_MIN_TIME_HAS_UNIT 0)
  endif()
  message(STATUS "opmark: Google Benchmark ${benchmark_VERSION}")
endif()

# Says what an optional dependency adds where it was found, or what is lost without it.
function(opmark_report_optional found with without)
  if(${found})
    message(STATUS "opmark: ${with}")
  else()
    message(STATUS "opmark: ${without}")
  endif()
endfunction()

# Optional: zlib lets opmark-aggregate read a bundle's gzip-compressed raw files (run/*.gz, as committed).
find_package(ZLIB)
opmark_report_optional(ZLIB_FOUND
  "zlib ${ZLIB_VERSION_STRING}: opmark-aggregate reads gzip-compressed results"
  "no zlib: opmark-aggregate reads uncompressed results only (install zlib1g-dev)")

# Optional: simdjson reads results logs' case lines about ten times faster (aggregate/case_line_reader.h).
find_package(simdjson CONFIG QUIET)
opmark_report_optional(simdjson_FOUND
  "simdjson ${simdjson_VERSION}: opmark-aggregate reads results logs' case lines with it"
  "no simdjson: opmark-aggregate reads results logs at a tenth of the speed (install libsimdjson-dev)")

# Optional: SQLite keeps the results database (opmark-aggregate db), which names runs by xxHash's hash of their logs.
# xxHash is used from its header alone (XXH_INLINE_ALL).
find_package(SQLite3)
find_path(XXHASH_INCLUDE_DIR xxhash.h)
mark_as_advanced(XXHASH_INCLUDE_DIR)
if(SQLite3_FOUND AND XXHASH_INCLUDE_DIR)
  set(OPMARK_RESULTS_DB ON)
else()
  set(OPMARK_RESULTS_DB OFF)
endif()
opmark_report_optional(OPMARK_RESULTS_DB
  "SQLite ${SQLite3_VERSION} and xxHash: opmark-aggregate db keeps a results database"
  "no SQLite or no xxHash: opmark-aggregate db is left out (install libsqlite3-dev libxxhash-dev)")
# Optional: libpq keeps a team's results database on a PostgreSQL server (opmark-aggregate db --db postgresql://).
find_package(PostgreSQL)
opmark_report_optional(PostgreSQL_FOUND
  "libpq ${PostgreSQL_VERSION_STRING}: opmark-aggregate db also keeps its database in PostgreSQL"
  "no libpq: opmark-aggregate db keeps SQLite files only (install libpq-dev)")

if(OPMARK_CUDA)
  # cuDNN and NCCL are found now and used by the convolution, RNN and all-reduce families.
  find_package(CUDNN)
  find_package(NCCL)

  # Optional: MPI runs opmark-bench as one process per GPU (the all-reduce across hosts, under mpirun).
  # MPI's C API from C++: the deprecated C++ bindings are skipped (absent from many builds).
  set(MPI_CXX_SKIP_MPICXX ON)
  find_package(MPI COMPONENTS CXX)
  opmark_report_optional(MPI_CXX_FOUND
    "MPI ${MPI_CXX_VERSION}: opmark-bench runs one process per GPU under mpirun"
    "no MPI: opmark-bench runs in one process (install libopenmpi-dev for the MPI mode)")
endif()

# Optional: libxlsxwriter lets opmark-aggregate write the DeepBench-style workbook (CSV is always written).
find_package(XlsxWriter)

if(OPMARK_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

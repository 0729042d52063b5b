# The tests of opmark-bench, its families and kernels, included by test/CMakeLists.txt where OPMARK_CUDA is on.

# CPU tests: everything that needs no GPU (tables, expressions, names, formulas, options, harness arithmetic).
# Found by name, so a family's test needs no line here: test/core/*_test.cpp and test/bench/*_test.cpp run on the CPU,
# test/bench/*_gpu_test.cpp on the GPU.
file(GLOB opmark_cpu_test_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/core/*_test.cpp"
     "${CMAKE_CURRENT_SOURCE_DIR}/bench/*_test.cpp")
list(FILTER opmark_cpu_test_sources EXCLUDE REGEX "_gpu_test\\.cpp$")
add_executable(opmark_cpu_tests ${opmark_cpu_test_sources} kernels/reference_rnn_test.cpp)
# opmark_aggregate: the results reader, with which a logged run's console is printed again (console_again_test).
target_link_libraries(opmark_cpu_tests PRIVATE opmark_families opmark_harness opmark_aggregate GTest::gtest_main)
target_compile_definitions(opmark_cpu_tests PRIVATE OPMARK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
opmark_precompiled_headers(opmark_cpu_tests TESTS)
opmark_add_gtest_suites(opmark_cpu_tests)

# GPU tests: each skips with the reason when no CUDA device is present.
file(GLOB opmark_gpu_test_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/bench/*_gpu_test.cpp")
add_executable(opmark_gpu_tests ${opmark_gpu_test_sources} kernels/compare_test.cpp kernels/reference_conv_test.cpp
  kernels/reference_on_device_test.cpp)
target_link_libraries(opmark_gpu_tests PRIVATE opmark_families opmark_harness GTest::gtest_main)
opmark_precompiled_headers(opmark_gpu_tests TESTS)
# One ctest test for them all (test/gpu_tests.sh says why); run the binary itself for one test at a time.
add_test(NAME gpu.tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/gpu_tests.sh $<TARGET_FILE:opmark_gpu_tests>)
set_tests_properties(gpu.tests PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1500)

# The command line: tables validate, cases list without a GPU, and a run says plainly when there is no GPU.
add_test(NAME cli.validate_tables COMMAND opmark-bench --opmark_validate)
set_tests_properties(cli.validate_tables PROPERTIES PASS_REGULAR_EXPRESSION "distinct cases")
# The sweep failures `.ci/gpu-trust retime` re-times (issue 52).
add_test(NAME cli.validate_sweep_retime COMMAND opmark-bench --opmark_validate
  --opmark_shapes=${PROJECT_SOURCE_DIR}/bench/compare/sweep_retime)
set_tests_properties(cli.validate_sweep_retime PROPERTIES PASS_REGULAR_EXPRESSION "56 distinct cases")
add_test(NAME cli.list_tests COMMAND opmark-bench --benchmark_list_tests --benchmark_filter=^gemm/fwd/fp16/m=1760/)
set_tests_properties(cli.list_tests PROPERTIES
  PASS_REGULAR_EXPRESSION "gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1")
add_test(NAME cli.bad_table COMMAND opmark-bench --opmark_validate
  --opmark_shapes=${CMAKE_CURRENT_SOURCE_DIR}/data/bad_gemm.yaml)
set_tests_properties(cli.bad_table PROPERTIES
  PASS_REGULAR_EXPRESSION "bad_gemm.yaml:7:29: field 'k': expected a positive integer, got -3")
add_test(NAME cli.run_one_case COMMAND ${CMAKE_COMMAND}
  -DBENCH=$<TARGET_FILE:opmark-bench> -DOUT=${CMAKE_CURRENT_BINARY_DIR}/cli_run
  -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_run_test.cmake)

# --version: opmark's version and commit, and the libraries loaded, with no GPU; flags take a value after a space too.
add_test(NAME cli.version COMMAND opmark-bench --version)
set_tests_properties(cli.version PROPERTIES PASS_REGULAR_EXPRESSION
  "^opmark-bench ${PROJECT_VERSION} \\(git [^)]+\\)\nCUDA runtime [0-9.]+ .*\nCUDA driver.*\ncuBLASLt [0-9.]+ .*\ncuSPARSE [0-9.]+ .*Google Benchmark .*\nnlohmann-json [0-9.]+\nyaml-cpp [0-9.]+\nCLI11 [0-9.]+\n$")
add_test(NAME cli.space_separated_values COMMAND opmark-bench --opmark_family gemm --opmark_set train
  --opmark_precision fp16 --benchmark_list_tests --benchmark_filter=/m=1760/n=16/k=1760/ta=N/tb=N/)
set_tests_properties(cli.space_separated_values PROPERTIES
  PASS_REGULAR_EXPRESSION "^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1\n$")

# Model tables: a model's cases list without a GPU; an unknown model names the known ones.
add_test(NAME cli.models_list COMMAND opmark-bench --opmark_models=resnet50 --opmark_precision=fp16
  --benchmark_list_tests)
set_tests_properties(cli.models_list PROPERTIES PASS_REGULAR_EXPRESSION
  "conv/fwd/fp16/n=32/c=3/d=1/h=224/w=224/k=64/t=1/r=7/s=7/pad_d=0/pad_h=3/pad_w=3/stride_d=1/stride_h=2")
add_test(NAME cli.unknown_model COMMAND opmark-bench --opmark_models=resnet5 --benchmark_list_tests)
set_tests_properties(cli.unknown_model PROPERTIES PASS_REGULAR_EXPRESSION "no model 'resnet5' \\(known: bert_base")

# Bad input (issue 21): each is an error saying what is wrong and where, never a crash (INT64_MIN / -1 raised
# SIGFPE), a loop of 2^63 steps, or a silent no-op. opmark_cli_error(NAME REGEX ARGS...) runs opmark-bench with ARGS.
function(opmark_cli_error name regex)
  add_test(NAME cli.${name} COMMAND opmark-bench ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}")
endfunction()
set(bad_input ${CMAKE_CURRENT_SOURCE_DIR}/data/bad_input)
opmark_cli_error(int64_min_quotient_in_table "int64_min_quotient.yaml:7:37: field 'm': integer overflow"
  --opmark_validate --opmark_shapes=${bad_input}/int64_min_quotient.yaml)
opmark_cli_error(int64_min_quotient_in_symbols "--opmark_symbols: symbol list .*: integer overflow"
  --opmark_validate "--opmark_symbols=B=(-9223372036854775807-1)/-1")
opmark_cli_error(int64_min_negated_in_symbols "--opmark_symbols: symbol list .*: integer overflow"
  --opmark_validate "--opmark_symbols=B=-(-9223372036854775807-1)")
opmark_cli_error(int64_min_quotient_in_inputs "--opmark_inputs: symbol list .*: integer overflow"
  --opmark_models=resnet50 --benchmark_list_tests "--opmark_inputs=B=(-9223372036854775807-1)/-1")
opmark_cli_error(int64_min_quotient_in_calls "model_calls_int64_min.yaml:5:51: field 'calls': integer overflow"
  --opmark_models=${bad_input}/model_calls_int64_min.yaml --benchmark_list_tests)
opmark_cli_error(layers_out_of_range
  "rnn_layers_huge.yaml:7:65: field 'layers': expected an integer from 1 to 1024, got 9223372036854775807"
  --opmark_validate --opmark_shapes=${bad_input}/rnn_layers_huge.yaml)
opmark_cli_error(duplicate_key "duplicate_key.yaml:7:35: field 'm': duplicate key \\(first at line 7, column 10\\)"
  --opmark_validate --opmark_shapes=${bad_input}/duplicate_key.yaml)
opmark_cli_error(complex_key "complex_key.yaml:2:3: keys must be plain names"
  --opmark_validate --opmark_shapes=${bad_input}/complex_key.yaml)
opmark_cli_error(unknown_set
  "--opmark_set: the selected tables have no set 'nosuchset' \\(their sets: [a-z_, 0-9]*train"
  --opmark_validate --opmark_set=nosuchset)
opmark_cli_error(unknown_set_listing
  "--opmark_set: the selected tables have no set 'trian' \\(their sets: [a-z_, 0-9]*train"
  --opmark_set=trian --benchmark_list_tests)
opmark_cli_error(unknown_set_of_family
  "--opmark_set: the selected tables have no set 'resnet50' \\(their sets: [a-z_, 0-9]*train"
  --opmark_family=gemm --opmark_set resnet50 --opmark_validate)
opmark_cli_error(unknown_model_names_flag "--opmark_models: no model 'bert_bse' \\(known: bert_base"
  --opmark_models=resnet50,bert_bse --opmark_validate)
opmark_cli_error(unknown_flag "unknown flag --opmark_sets \\(see --opmark_help\\)" --opmark_sets=train)
opmark_cli_error(unknown_symbol "--opmark_symbols: the selected sets use no symbol 'b' \\(their symbols: B, "
  --opmark_validate --opmark_symbols=b=16)
opmark_cli_error(unknown_input "--opmark_inputs: the selected models have no input 'b' \\(their inputs: B, H, W\\)"
  --opmark_models=resnet50 --benchmark_list_tests --opmark_inputs=b=16)
opmark_cli_error(candidates_inf "--opmark_candidates: expected an integer from 1 to 1000, got 'inf'"
  --opmark_validate --opmark_candidates=inf)
opmark_cli_error(min_time_inf "--opmark_min_time: expected a number from 1e-06 to 3600, got 'inf'"
  --opmark_validate --opmark_min_time=inf)
opmark_cli_error(peak_zero "--opmark_peak: fp16: expected a number > 0, got '0'"
  --opmark_validate --opmark_peak=fp16=0)

# Issue 37: a filter that is no regular expression is an error (Google Benchmark only prints it and exits 0), and
# /dev/zero given as a table, suite, pin file or rules is refused within a second (it was read to gigabytes).
opmark_cli_error(bad_filter_regex "--benchmark_filter: 'gemm/\\(fwd' is not a valid regular expression"
  --benchmark_list_tests "--benchmark_filter=gemm/(fwd")
add_test(NAME cli.bad_filter_regex_exit COMMAND opmark-bench --benchmark_list_tests "--benchmark_filter=gemm/(fwd")
set_tests_properties(cli.bad_filter_regex_exit PROPERTIES WILL_FAIL TRUE)
# Issue 38: the listed names are results.jsonl's, alone on stdout, one a line; each, anchored, selects itself alone; a
# filter that selects nothing exits non-zero naming near names; a run counts the cases the filter selected.
add_test(NAME cli.list_names_and_filters COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:opmark-bench>
  -DOUT=${CMAKE_CURRENT_BINARY_DIR}/cli_filter_run -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_filter_test.cmake)
opmark_cli_error(shapes_dev_zero "/dev/zero: a device, not a regular file: shape table must be a file"
  --opmark_validate --opmark_shapes=/dev/zero)
opmark_cli_error(suite_dev_zero "/dev/zero: a device, not a regular file: submission rules must be a file"
  --opmark_validate --opmark_suite=/dev/zero)
opmark_cli_error(pin_dev_zero "--opmark_pin: /dev/zero: a device, not a regular file: pin file must be a file"
  --benchmark_list_tests --benchmark_filter=^gemm/fwd/fp16/m=1760/n=16/k=1760/ --opmark_pin=/dev/zero)
# A reader that followed /dev/zero would never end; these end in about a second, more on a loaded 2-core machine.
set_tests_properties(cli.shapes_dev_zero cli.suite_dev_zero cli.pin_dev_zero PROPERTIES TIMEOUT 30)
# --opmark_resume over a log that is a FIFO, a folder, or holds a mistyped field: a clear error naming it.
add_test(NAME cli.resume_bad_log COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:opmark-bench>
  -DOUT=${CMAKE_CURRENT_BINARY_DIR}/resume_bad_log -P ${CMAKE_CURRENT_SOURCE_DIR}/bench/resume_files.cmake)
set_tests_properties(cli.resume_bad_log PROPERTIES TIMEOUT 120)

# The suite's cases list without a GPU, with the rules' count.
add_test(NAME cli.suite_list COMMAND opmark-bench --opmark_suite=submission --opmark_validate)
# The submission suite refuses to run whole without the end-of-run re-time its rules require (check would reject it).
add_test(NAME cli.suite_refuses_recheck_off
         COMMAND opmark-bench --opmark_suite=submission --opmark_recheck=off --opmark_validate)
set_tests_properties(cli.suite_refuses_recheck_off PROPERTIES
                     PASS_REGULAR_EXPRESSION "require --opmark_recheck=on \\(a run of part of the suite")
set_tests_properties(cli.suite_list PROPERTIES PASS_REGULAR_EXPRESSION "names 1446 distinct cases")
# Issue 38: the quick suite, a first answer in minutes: about 130 cases, ResNet-50's and BERT-base's among them.
add_test(NAME cli.quick_suite_list COMMAND opmark-bench --opmark_suite=quick --opmark_validate)
set_tests_properties(cli.quick_suite_list PROPERTIES PASS_REGULAR_EXPRESSION "quick.yaml \\(rules version 1\\) names 1[0-9][0-9] distinct cases")
opmark_cli_error(unknown_suite "--opmark_suite=quik: no .*quik.yaml \\(the suites are submission and quick"
  --opmark_validate --opmark_suite=quik)
# Rules v5 name the L2 mode: a submission run asked for another is refused before it starts, not by the checker after.
opmark_cli_error(suite_l2 "the submission rules .*submission.yaml require --opmark_l2=hot"
  --opmark_validate --opmark_suite=submission --opmark_l2=cold)

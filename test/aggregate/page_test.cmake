# opmark-aggregate page on the hand-made bundles of test/data/page (numbers chosen to be found: see
# test/data/page/*/run/results.jsonl and scores.json). Run as
#   cmake -DAGGREGATE=<opmark-aggregate> -DDATA=<test/data/page> -DOUT=<scratch folder> -DMODE=<mode> -P page_test.cmake
# MODE page:   the page is written, self-contained (nothing fetched), its inline data escaped for the <script> block.
# MODE dom:    the page as a browser shows it, script run: headless Chromium dumps the DOM, which must hold both
#              bundles' area scores, a model score, case times, "lower is better" and a case's drill-down (opened by
#              the page's #case= link); gpu_b is a results format 2 run with an unstable case (marked, with its
#              reason, its ratio without a verdict) and energy counters (the family table's energy column). Prints "SKIP: no chromium ..." and stops where no Chromium is installed.
# MODE broken: a bundle with a malformed or missing file makes the command fail, naming the file (and line).
cmake_minimum_required(VERSION 3.25)

function(fail what)
  message(FATAL_ERROR "${what}")
endfunction()

# Writes the page of `data` to `out`; the command must succeed.
function(write_page data out)
  execute_process(COMMAND "${AGGREGATE}" page "${data}" "--out=${out}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    fail("opmark-aggregate page exited ${rc}:\n${stdout}${stderr}")
  endif()
  if(NOT stdout MATCHES "wrote .*: 2 bundles, 8 cases in 3 families")
    fail("unexpected summary from opmark-aggregate page:\n${stdout}")
  endif()
endfunction()

# Every pattern (a regular expression) must occur in `text`.
function(expect_all text where)
  foreach(pattern IN LISTS ARGN)
    if(NOT text MATCHES "${pattern}")
      fail("${where} lacks '${pattern}'")
    endif()
  endforeach()
endfunction()

file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

if(MODE STREQUAL "page")
  write_page("${DATA}" "${OUT}/index.html")
  file(READ "${OUT}/index.html" html)
  expect_all("${html}" "the page"
    "<script type=\"application/json\" id=\"opmark-data\">"
    "lower is better"
    # a label holding "</script><!--" (gpu_a's first GEMM) stays inside the data block, escaped
    "<\\\\/script>\\\\u003c!-- fixture: must stay text"
    # the charts, as inline SVG: the area scores, a time ratio chart and a roofline per family with FLOPs
    "<svg [^>]*>.*>Area scores \\(ms, lower is better\\)</text>"
    "gemm: time per case relative to Fixture A"
    "conv: roofline"
    "No roofline: no case of pointwise has FLOPs"
    # results format 2 (gpu_b): an unstable case with its reason, and energy counters
    "\"reason\":\"end-of-run re-time 977\\.1 us vs median 488\\.27 us \\(2\\.0x\\), twice\""
    "\"status\":\"unstable\""
    "\"joules_per_op\":0\\.01394442"
    # the end-of-run re-time's line (appended later) made the case unstable, its counters over the median line's
    "\"recheck_us\":977\\.1")
  # Offline: nothing to load from anywhere (the SVG namespace URL is a name, not a fetch).
  foreach(outside "</script><!--" "src=" "<link" "@import" "url(")
    string(FIND "${html}" "${outside}" at)
    if(NOT at EQUAL -1)
      fail("the page holds '${outside}' (at ${at}): it must be self-contained and its data escaped")
    endif()
  endforeach()
  message(STATUS "page written and self-contained: ${OUT}/index.html")

elseif(MODE STREQUAL "dom")
  find_program(CHROMIUM NAMES chromium chromium-browser)
  if(NOT CHROMIUM)
    message(STATUS "SKIP: no chromium or chromium-browser binary found, so the page's script cannot be run "
                   "(Debian: apt-get install chromium; .ci/install-deps installs it where it can)")
    return()
  endif()
  write_page("${DATA}" "${OUT}/index.html")
  # A fresh profile and home, so nothing of the user's browser or of an earlier run is involved.
  file(MAKE_DIRECTORY "${OUT}/profile" "${OUT}/home")
  set(ENV{HOME} "${OUT}/home")
  set(ENV{XDG_CONFIG_HOME} "${OUT}/home/.config")
  set(ENV{XDG_CACHE_HOME} "${OUT}/home/.cache")
  # The page's link to one case opens its drill-down, which the script renders.
  set(gemm "gemm/fwd/fp16/m=768/n=16384/k=768/ta=T/tb=N/batch=1")
  string(REPLACE "/" "%2F" link "${gemm}")
  string(REPLACE "=" "%3D" link "${link}")
  execute_process(COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                          --disable-background-networking --disable-component-update --disable-sync
                          --disable-dev-shm-usage "--user-data-dir=${OUT}/profile" --dump-dom
                          "file://${OUT}/index.html#case=${link}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_VARIABLE stderr TIMEOUT 120)
  file(WRITE "${OUT}/dom.html" "${dom}")
  if(NOT rc EQUAL 0)
    fail("${CHROMIUM} exited ${rc}:\n${stderr}")
  endif()
  if(NOT dom MATCHES "data-rendered=\"ok\"" OR NOT dom MATCHES "id=\"js-error\" hidden")
    string(REGEX MATCH "page script error: [^<]*" error "${dom}")
    fail("the page's script did not finish (${error}); DOM in ${OUT}/dom.html")
  endif()
  expect_all("${dom}" "the DOM (${OUT}/dom.html)"
    "lower is better"
    # area scores, ms: cv_2d and nlp on both bundles (B as a ratio of A too)
    ">cv_2d</td><td class=\"num\">2\\.5464</td><td class=\"num best\">1\\.7598 \\(0\\.691x\\)</td>"
    ">nlp</td><td class=\"num\">10\\.687</td><td class=\"num best\">7\\.443 \\(0\\.696x\\)</td>"
    # a model score with its area and coverage of calls and time (the tables record no traced time: -)
    ">bert_base</td><td>nlp</td><td class=\"num\">10\\.687</td><td class=\"num\">11\\.5%</td><td class=\"num\">-</td>"
    # case times (median us) on both bundles, the rate and the time ratio; a case one bundle skipped
    ">187\\.65</td><td class=\"num\">103 TFLOPS</td><td class=\"num best\">131\\.98</td>"
    ">0\\.7033x</td>"
    "<td class=\"status\" title=\"not supported: fixture says[^\"]*\">skipped</td>"
    # the drill-down: every repetition, the mean, verification, label (as text), sets, counters
    "<tr class=\"detail\">"
    "187\\.001 \\(x40\\), 187\\.654 \\(x41\\), 188\\.902 \\(x42\\), 187\\.321 \\(x43\\), 189\\.5 \\(x44\\)"
    ">mean time us</td><td>188\\.076</td>"
    "max error 0\\.00123 of tolerance 0\\.008 \\(fixture gpu_a\\)"
    "cublasLt algo 6 tile 256x128 fp16-&gt;fp32-&gt;fp16 &lt;/script&gt;&lt;!-- fixture: must stay text"
    ">models</td><td>bert_base</td>"
    ">heuristic_us</td><td class=\"num\">195\\.554</td>"
    # the library default's time, from an older run's heuristic_us
    ">library default us</td><td>195\\.554</td>"
    # results format 2 (gpu_b): an unstable time shown with a marker and its reason, its ratio without a verdict
    "<td class=\"num unstable\" title=\"unstable: end-of-run re-time 977\\.1 us[^\"]*\">488\\.27 [^<]*<small class=\"reason\">unstable: end-of-run re-time 977\\.1 us vs median 488\\.27 us \\(2\\.0x\\), twice</small></td>"
    "<td class=\"num unsure\" title=\"a time measured unstable: no verdict\">0\\.6946x \\?</td>"
    ">cases ok / unstable / skipped / failed</td><td>7 / 0 / 0 / 0</td><td>5 / 1 / 1 / 1</td>"
    # energy per operation and GB/s per watt of a memory-bound case, in the family table
    "<th>energy per op</th>"
    ">13\\.9 mJ, 7\\.37 GB/s/W</td>")
  message(STATUS "Chromium rendered the page; the DOM holds the scores, times and the drill-down")

elseif(MODE STREQUAL "broken")
  # Each breakage in a copy of the two bundles: the file to spoil, its new text ("" removes it), and what the error
  # must say.
  set(cases
    "gpu_b/system.yaml|format: opmark-submission-1\nsystem_name: \"B\"\ngpu: {model: \"X\", count: 1\n|gpu_b/system.yaml:[0-9]+:[0-9]+: .*not valid YAML"
    "gpu_b/system.yaml|format: opmark-submission-1\ngpu: {model: \"X\"}\n|gpu_b/system.yaml:1:1: field 'system_name'"
    "gpu_a/run/results.jsonl|{\"type\":\"context\",\"context\":{}}\n{\"type\":\"run\", oops}\n|gpu_a/run/results.jsonl:2: not a JSON line"
    "gpu_a/scores.json|{\"models\": [\n  {\"name\": \"x\",}\n]}\n|gpu_a/scores.json:2: not valid JSON"
    "gpu_a/scores.json|{\"models\": [{\"name\": \"x\", \"area\": \"a\"}], \"areas\": []}|gpu_a/scores.json: models\\[0\\]: missing 'score_ms'"
    "gpu_b/scores.json||gpu_b/scores.json: cannot open")
  set(n 0)
  foreach(entry IN LISTS cases)
    math(EXPR n "${n} + 1")
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 file)
    list(GET parts 1 text)
    list(GET parts 2 expected)
    string(REPLACE "\\n" "\n" text "${text}")
    set(copy "${OUT}/${n}")
    file(COPY "${DATA}/" DESTINATION "${copy}")
    if(text STREQUAL "")
      file(REMOVE "${copy}/${file}")
    else()
      file(WRITE "${copy}/${file}" "${text}")
    endif()
    execute_process(COMMAND "${AGGREGATE}" page "${copy}" "--out=${copy}/index.html"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
    if(rc EQUAL 0)
      fail("a bundle with a broken ${file} still made a page:\n${stdout}")
    endif()
    if(NOT stderr MATCHES "${expected}")
      fail("broken ${file}: expected an error matching '${expected}', got:\n${stderr}")
    endif()
    message(STATUS "broken ${file}: exit ${rc}, ${stderr}")
  endforeach()

else()
  fail("MODE must be page, dom or broken, not '${MODE}'")
endif()

# opmark-aggregate page on the hand-made bundles of test/data/page (numbers chosen to be found: see
# test/data/page/*/run/results.jsonl and scores.json). These display fixtures (an unstable and a failed case
# shown, hand-made scores) are no bundles the checker passes, so the page is written with --unchecked, which
# labels it as such; the page's checking of bundles is tested in check_tamper_test.cpp. Run as
#   cmake -DAGGREGATE=<opmark-aggregate> -DDATA=<test/data/page> -DOUT=<scratch folder> -DMODE=<mode> -P page_test.cmake
# MODE page:   the page is written, self-contained (nothing fetched), its inline data escaped for the <script> block,
#              each case's verdicts (aggregate/verdict.h) and the predicted against measured speedup of each bundle
#              against the other (aggregate/page_speedup.h) in it.
# MODE dom:    the page as a browser shows it, script run: headless Chromium dumps the DOM, which must hold both
#              bundles' area scores, a model score, case times, "lower is better" and a case's drill-down (opened by
#              the page's #case= link); gpu_b is a results format 2 run with an unstable case (marked, with its
#              reason, its ratio unclear) and energy counters (the family table's energy column); the headline's
#              speedup table marks the fixture's partial scores and its errors beyond the bars. Prints "SKIP: no
#              chromium ..." and stops where no Chromium is installed.
# MODE broken: a bundle with a malformed, missing or hostile file (JSON nested 100 000 deep, a link to /dev/zero) is
#              skipped with a warning naming the bundle and the file (and line); the page shows the other bundle and
#              names the skipped one. With no bundle left the command fails.
# MODE links:  never through a symbolic link: a bundle linked in from outside RESULTS_DIR is skipped with a warning,
#              and a link planted at the page's path is refused (the file it points to stays as it was).
# MODE bad_case: a #case= link to no case (unknown, not valid percent-encoding, or an inherited property name) shows
#              "no such case" in headless Chromium, and no script error. Skips like dom without Chromium.
# MODE hostile_family: a third bundle whose GEMM family and system name hold CR, NUL and "</script><!--" (shown with
#              --unchecked, the checker rejecting such names) leaves every family's table rendered in headless Chromium,
#              the other bundles' times in them. Skips like dom without Chromium.
# MODE width:  the page of the committed bundles (RESULTS, the results/ folder) and of the fixture in a 1400 px wide
#              headless Chromium, as it opens and with a case's drill-down open, is no wider than the window
#              (document.scrollWidth); leaves a screenshot, OUT/page_1400.png. The committed bundles' page as it
#              opens holds the predicted against measured speedup `opmark-aggregate scores` prints for the seven models
#              traced on both GPUs (docs/models.md): each model's predicted and measured ratio, real time and error,
#              marked where beyond 5%; each area's measured ratio and error (its predicted ratio where the page's
#              area has the same models). Skips like dom without Chromium.
cmake_minimum_required(VERSION 3.25)

function(fail what)
  message(FATAL_ERROR "${what}")
endfunction()

# Writes the page of `data` to `out`; the command must succeed.
function(write_page data out)
  execute_process(COMMAND "${AGGREGATE}" page --unchecked "${data}" "--out=${out}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    fail("opmark-aggregate page exited ${rc}:\n${stdout}${stderr}")
  endif()
  if(NOT stdout MATCHES "wrote .*: 2 bundles, 8 cases in 3 families")
    fail("unexpected summary from opmark-aggregate page:\n${stdout}")
  endif()
endfunction()

# Sets CHROMIUM, or where none is installed says SKIP and why, and ends the test (a macro: return() ends the script).
macro(find_chromium what_not)
  find_program(CHROMIUM NAMES chromium chromium-browser)
  if(NOT CHROMIUM)
    message(STATUS "SKIP: no chromium or chromium-browser binary found, so ${what_not} "
                   "(Debian: apt-get install chromium; .ci/install-deps installs it where it can)")
    return()
  endif()
endmacro()

# Opens `url` in headless Chromium (CHROMIUM, with any further flags given) with a fresh profile and home, so nothing
# of the user's browser or of an earlier run is involved; sets `dom` to the DOM once the page's script ran, also
# written to `dom_file`. Fails where Chromium fails or the script did not finish.
function(render_dom url dom_file)
  file(MAKE_DIRECTORY "${OUT}/profile" "${OUT}/home")
  set(ENV{HOME} "${OUT}/home")
  set(ENV{XDG_CONFIG_HOME} "${OUT}/home/.config")
  set(ENV{XDG_CACHE_HOME} "${OUT}/home/.cache")
  execute_process(COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                          --disable-background-networking --disable-component-update --disable-sync
                          --disable-dev-shm-usage "--user-data-dir=${OUT}/profile" ${ARGN} --dump-dom "${url}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE stderr TIMEOUT 120)
  file(WRITE "${dom_file}" "${out}")
  if(NOT rc EQUAL 0)
    fail("${CHROMIUM} exited ${rc}:\n${stderr}")
  endif()
  if(NOT out MATCHES "data-rendered=\"ok\"" OR NOT out MATCHES "id=\"js-error\" hidden")
    string(REGEX MATCH "page script error: [^<]*" error "${out}")
    fail("${url}: the page's script did not finish (${error}); DOM in ${dom_file}")
  endif()
  set(dom "${out}" PARENT_SCOPE)
endfunction()

# Every pattern (a regular expression) must occur in `text`.
function(expect_all text where)
  foreach(pattern IN LISTS ARGN)
    if(NOT text MATCHES "${pattern}")
      fail("${where} lacks '${pattern}'")
    endif()
  endforeach()
endfunction()

# The committed bundles' page as it opens (DOM in `dom_file`) holds the predicted against measured speedup that
# `opmark-aggregate scores` prints for the seven models traced on both GPUs, H200 (B) over H100 (A), to its digits.
function(expect_speedup_of_scores dom_file)
  file(READ "${dom_file}" dom)
  execute_process(COMMAND "${AGGREGATE}" scores "${RESULTS}/nvidia-h100-80gb-hbm3" "${RESULTS}/nvidia-h200"
                          --models=resnet50,vgg16,mobilenet_v2,bert_base,gpt2,llama7b,deepspeech2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE stderr)
  string(FIND "${text}" "Predicted against measured speedup, B over A" at)
  if(NOT rc EQUAL 0 OR at EQUAL -1)
    fail("opmark-aggregate scores of the committed bundles (exit ${rc}) printed no speedup:\n${text}${stderr}")
  endif()
  string(SUBSTRING "${text}" ${at} -1 text)
  string(REPLACE "\n" ";" lines "${text}")
  set(number "[0-9]+\\.[0-9]+")
  set(title "title=\"[^\"]*\"")
  set(models 0)
  set(areas 0)
  foreach(line IN LISTS lines)
    set(model_line "^([a-z0-9_]+) +${number} +${number} +(${number}) +${number} +${number} +([a-z]+) +(${number}) +([+-]${number})%$")
    set(area_line "^area ([a-z0-9_]+) \\(([0-9]+/[0-9]+)\\) +(${number}) +${number} +${number} +([a-z]+) +(${number}) +([+-]${number})%$")
    if(line MATCHES "${model_line}")
      set(kind model)
      set(name "${CMAKE_MATCH_1}")
      set(predicted "${CMAKE_MATCH_2}")
      set(real_kind "${CMAKE_MATCH_3}")
      set(measured "${CMAKE_MATCH_4}")
      set(error "${CMAKE_MATCH_5}")
      math(EXPR models "${models} + 1")
    elseif(line MATCHES "${area_line}")
      set(kind area)
      set(name "${CMAKE_MATCH_1}")
      set(k_of_n "${CMAKE_MATCH_2}")
      set(predicted "${CMAKE_MATCH_3}")
      set(real_kind "${CMAKE_MATCH_4}")
      set(measured "${CMAKE_MATCH_5}")
      set(error "${CMAKE_MATCH_6}")
      math(EXPR areas "${areas} + 1")
    else()
      continue()
    endif()
    # The printed numbers as literal text in the patterns below.
    foreach(var predicted measured error)
      string(REPLACE "." "\\." ${var} "${${var}}")
      string(REPLACE "+" "\\+" ${var} "${${var}}")
    endforeach()
    # Marked as a miss beyond the bar (5% a model, 3% an area): the printed error in tenths of a percent against
    # it (at the bar itself, either way).
    if(kind STREQUAL "model")
      set(bar 50)
      set(bar_words "the 5% bar of a model")
    else()
      set(bar 30)
      set(bar_words "the 3% bar of an area")
    endif()
    string(REGEX REPLACE "[^0-9]" "" tenths "${error}")
    if(tenths GREATER bar)
      set(error_cell "<td class=\"num miss\" title=\"beyond ${bar_words}\">${error}% ✗</td>")
    elseif(tenths LESS bar)
      set(error_cell "<td class=\"num\" title=\"within ${bar_words}\">${error}%</td>")
    else()
      set(error_cell "<td class=\"num( miss)?\" ${title}>${error}%( ✗)?</td>")
    endif()
    set(rest "<td class=\"num\" ${title}>${measured}x</td><td>${real_kind}</td>${error_cell}</tr>")
    if(kind STREQUAL "model")
      set(row "<tr><td>${name}</td><td class=\"num\" ${title}>${predicted}x</td>${rest}")
    elseif(dom MATCHES ">area ${name} \\(${k_of_n}\\)</td>")
      # The page scores every model of the rules, so an area's predicted ratio is scores' only where the page's
      # area has the same models (k/n); its measured ratio and error are over the same k models either way.
      set(row ">area ${name} \\(${k_of_n}\\)</td><td class=\"num\" ${title}>${predicted}x</td>${rest}")
    else()
      string(REGEX REPLACE "/.*" "" k "${k_of_n}")
      set(row ">area ${name} \\(${k}/[0-9]+\\)</td><td class=\"num\" ${title}>${number}x</td>${rest}")
    endif()
    expect_all("${dom}" "the committed bundles' page (${dom_file})" "${row}")
  endforeach()
  if(NOT models EQUAL 7 OR areas LESS 3)
    fail("read ${models} models and ${areas} areas of scores' speedup (7 and 3 expected):\n${text}")
  endif()
  message(STATUS "the page's speedup holds the ${models} models and ${areas} areas opmark-aggregate scores prints")
endfunction()

file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

if(MODE STREQUAL "page")
  write_page("${DATA}" "${OUT}/index.html")
  file(READ "${OUT}/index.html" html)
  expect_all("${html}" "the page"
    "<script type=\"application/json\" id=\"opmark-data\">"
    "lower is better"
    # written with --unchecked: the page says so
    "<strong>NOT CHECKED:</strong> this page was written with <code>--unchecked</code>"
    # a label holding "</script><!--" (gpu_a's first GEMM) stays inside the data block, escaped
    "<\\\\/script>\\\\u003c!-- fixture: must stay text"
    # the style and script of aggregate/page/, embedded in one function scope (the charts are drawn by the script)
    "<style>\n/\\* ---- page.css ---- \\*/"
    "<script>\n\\(function \\(\\) {\n'use strict';\n\n/\\* ---- format.js ---- \\*/"
    "/\\* ---- main.js ---- \\*/"
    # each case's short name: the fields at their default left out (tb=N, batch=1)
    "\"short\":\"fwd/fp16/m=768/n=16384/k=768/ta=T\""
    # the roofs as numbers, from gpu_a's context
    "\"peaks\":{\"gb_per_s\":3352\\.0,\"tflops\":{\"bf16\":989\\.4,\"fp16\":989\\.4,"
    # results format 2 (gpu_b): an unstable case with its reason, and energy counters
    "\"reason\":\"end-of-run re-time 977\\.1 us vs median 488\\.27 us \\(2\\.0x\\), twice\""
    "\"status\":\"unstable\""
    "\"joules_per_op\":0\\.01394442"
    # the end-of-run re-time's line (appended later) made the case unstable, its counters over the median line's
    "\"recheck_us\":977\\.1"
    # each case's verdicts, bundle against bundle, computed by opmark-aggregate (the script only shows them)
    "\"verdicts\":\\[\\[null,{\"detail\":\"faster: -29\\.67% in time[^\"]*\",\"verdict\":\"faster\"}\\],\\[{\"detail\":\"slower: \\+42\\.19% in time")
  # The predicted against measured speedup of each bundle against the other, null against itself, with the bars;
  # shown in the headline. (No square brackets in these patterns: CMake's lists would not split them.)
  expect_all("${html}" "the page"
    "\"speedups\":{\"bars\":{\"area\":0\\.03,\"model\":0\\.05},\"pairs\":..null,{\"areas\":"
    "\"label_a\":\"gpu_a\",\"label_b\":\"gpu_b\",\"models\":"
    "\"label_a\":\"gpu_b\",\"label_b\":\"gpu_a\",\"models\":[^\n]*},null..}"
    "<nav><a href=\"#scores\">scores</a><a href=\"#speedup\">speedup</a>"
    "<h3 id=\"speedup\">Predicted against measured speedup</h3>\n<div id=\"speedups\"></div>")
  # Offline: nothing to load from anywhere (the SVG namespace URL is a name, not a fetch).
  foreach(outside "</script><!--" "src=" "<link" "@import" "url(")
    string(FIND "${html}" "${outside}" at)
    if(NOT at EQUAL -1)
      fail("the page holds '${outside}' (at ${at}): it must be self-contained and its data escaped")
    endif()
  endforeach()
  message(STATUS "page written and self-contained: ${OUT}/index.html")

elseif(MODE STREQUAL "dom")
  find_chromium("the page's script cannot be run")
  write_page("${DATA}" "${OUT}/index.html")
  # The page's link to one case opens its drill-down, which the script renders.
  set(gemm "gemm/fwd/fp16/m=768/n=16384/k=768/ta=T/tb=N/batch=1")
  string(REPLACE "/" "%2F" link "${gemm}")
  string(REPLACE "=" "%3D" link "${link}")
  render_dom("file://${OUT}/index.html#case=${link}" "${OUT}/dom.html")
  expect_all("${dom}" "the DOM (${OUT}/dom.html)"
    "lower is better"
    # area scores, ms: cv_2d and nlp on both bundles (B as a ratio of A too)
    ">cv_2d</td><td class=\"num\">2\\.5464</td><td class=\"num best\">1\\.7598 \\(0\\.691x\\)</td>"
    ">nlp</td><td class=\"num\">10\\.687</td><td class=\"num best\">7\\.443 \\(0\\.696x\\)</td>"
    # a model score with its area and coverage of calls and time (the tables record no traced time: -)
    ">bert_base</td><td>nlp</td><td class=\"num\">10\\.687</td><td class=\"num\">11\\.5%</td><td class=\"num\">-</td>"
    # case times (median us) on both bundles, the rate and the time ratio; a case one bundle skipped
    ">187\\.65</td><td class=\"num\">103 TFLOPS</td><td class=\"num best\">131\\.98</td>"
    # a ratio with three decimals, coloured by the verdict opmark-aggregate embedded (aggregate/verdict.h): the change
    # (-29.67%) is beyond the limit of the two runs' noise (from the repetitions, floored)
    "<td class=\"num faster\" title=\"faster: -29\\.67% in time, beyond the limit 2\\.83% \\(2 x the run-to-run noise 1\\.00% \\(repetitions 0\\.35%, floored\\) before[^\"]*\">0\\.703x</td>"
    # the case's short name, its full name on hover
    "<td class=\"case\" title=\"gemm/fwd/fp16/m=768/n=16384/k=768/ta=T/tb=N/batch=1 \\(click for the details\\)\">fwd/fp16/m=768/n=16384/k=768/ta=T</td>"
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
    "<td class=\"num unclear\" title=\"unclear: measured unstable after \\(-30\\.54% in time\\)\">0\\.695x \\?</td>"
    ">cases ok / unstable / skipped / failed</td><td>7 / 0 / 0 / 0</td><td>5 / 1 / 1 / 1</td>"
    # the charts, drawn by the script: area scores scaled per area, a ratio chart against the reference, a roofline
    # naming each GPU in its legend, and a note where a family has no FLOPs
    "<svg [^>]*aria-label=\"Area scores, ms: lower is better \\(each area scaled to its slowest system\\)\""
    "aria-label=\"gemm: time per case relative to Fixture A [^\"]*\""
    "aria-label=\"conv: roofline, [^\"]*\".*>Fixture A [^<]*NVIDIA H100[^<]*\\([0-9]+ cases\\)</text>.*>Fixture B [^<]*\\([0-9]+ cases\\)</text>"
    "No roofline: no case of pointwise has FLOPs"
    # the reference system can be picked; sortable columns
    "<select id=\"reference-select\">"
    "<th rowspan=\"2\" data-sort=\"0\" class=\"sortable\" title=\"click to sort\">case</th>"
    # energy per operation and GB/s per watt of a memory-bound case, in the family table
    "<th data-sort=\"[0-9]+\" class=\"sortable\" title=\"click to sort\">energy per op</th>"
    ">13\\.9 mJ, 7\\.37 GB/s/W</td>"
    # the predicted against measured speedup, B over A: the fixture's runs measure few of the models' cases, so
    # every score is partial (marked, what it lacks on hover); resnet50's error is beyond the 5% bar; a model the
    # H200 has no measured entry of has no measured ratio, and says why on hover
    "<caption><span class=\"swatch\"[^>]*></span>Fixture B [^<]* \\(B\\) over Fixture A [^<]* \\(A\\)</caption>"
    "<tr><td>resnet50<small class=\"partial\" title=\"partial: the score on Fixture A [^\"]* lacks [0-9]+ case\\(s\\)[^\"]*\"> partial</small></td><td class=\"num\" title=\"score [0-9.]+ ms / [0-9.]+ ms\">0\\.[0-9][0-9][0-9]x</td><td class=\"num\" title=\"real time \\(graph\\) [^\"]*\">0\\.[0-9][0-9][0-9]x</td><td>graph</td><td class=\"num miss\" title=\"beyond the 5% bar of a model\">-[0-9]+\\.[0-9]% ✗</td></tr>"
    "<tr><td>dgcnn<small class=\"partial\"[^<]*</small></td><td class=\"num\" title=\"no score on [^\"]*\">-</td><td class=\"num none\" title=\"no measured speedup: B: the table has no measured time on NVIDIA H200 [^\"]*\"></td>"
    "<tr><td title=\"[0-9]+ of the area's [0-9]+ models have measured times on both GPUs[^\"]*\">area cv_2d \\([0-9]+/[0-9]+\\)<small class=\"partial\"")
  message(STATUS "Chromium rendered the page; the DOM holds the scores, times, the drill-down and the speedup")

elseif(MODE STREQUAL "broken")
  # Each breakage in a copy of the two bundles: the file to spoil, its new text ("" removes it), and what the
  # warning must say after naming the bundle.
  set(cases
    "gpu_b/system.yaml|format: opmark-submission-1\nsystem_name: \"B\"\ngpu: {model: \"X\", count: 1\n|gpu_b/system.yaml:[0-9]+:[0-9]+: .*not valid YAML"
    "gpu_b/system.yaml|format: opmark-submission-1\ngpu: {model: \"X\"}\n|gpu_b/system.yaml:1:1: field 'system_name'"
    "gpu_a/run/results.jsonl|{\"type\":\"context\",\"context\":{}}\n{\"type\":\"run\", oops}\n|gpu_a/run/results.jsonl:2: not a JSON line"
    "gpu_a/run/results.jsonl|{\"type\":\"context\",\"context\":{}}\n{\"type\":\"run\",\"name\":\"c\",\"status\":\"ok\",\"time_us\":\"fast\"}\n|gpu_a/run/results.jsonl:2: field 'time_us': expected a number, got a string"
    "gpu_a/scores.json|{\"models\": [\n  {\"name\": \"x\",}\n]}\n|gpu_a/scores.json:2: not valid JSON"
    "gpu_a/scores.json|{\"models\": [{\"name\": \"x\", \"area\": \"a\"}], \"areas\": []}|gpu_a/scores.json: models\\[0\\]: missing 'score_ms'"
    "gpu_b/scores.json||gpu_b/scores.json: cannot open")
  # JSON nested 100 000 deep (the page crashed on it, after check had passed the bundle), as a case's sets and as the
  # scores; and a bundle's results that are a link to /dev/zero (read until memory ran out).
  string(REPEAT "[" 100000 open)
  string(REPEAT "]" 100000 close)
  list(APPEND cases "gpu_a/run/results.jsonl|DEEP_SETS|gpu_a/run/results.jsonl:2: JSON nested deeper than 64 levels"
                    "gpu_b/scores.json|DEEP_SCORES|gpu_b/scores.json:1: JSON nested deeper than 64 levels"
                    "gpu_b/run/results.jsonl|LINK_TO_DEV_ZERO|gpu_b/run/results.jsonl: a symbolic link, not read")
  set(n 0)
  foreach(entry IN LISTS cases)
    math(EXPR n "${n} + 1")
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 file)
    list(GET parts 1 text)
    list(GET parts 2 expected)
    string(REPLACE "\\n" "\n" text "${text}")
    string(REGEX MATCH "^[^/]+" bundle "${file}")
    set(copy "${OUT}/${n}")
    file(COPY "${DATA}/" DESTINATION "${copy}")
    if(text STREQUAL "")
      file(REMOVE "${copy}/${file}")
    elseif(text STREQUAL "DEEP_SETS")
      file(WRITE "${copy}/${file}" "{\"type\":\"context\",\"context\":{}}\n{\"type\":\"run\",\"name\":\"c\",\"status\":\"ok\",\"time_us\":5,\"sets\":${open}${close}}\n")
    elseif(text STREQUAL "DEEP_SCORES")
      file(WRITE "${copy}/${file}" "{\"models\": ${open}${close}, \"areas\": []}\n")
    elseif(text STREQUAL "LINK_TO_DEV_ZERO")
      file(REMOVE "${copy}/${file}")
      file(CREATE_LINK "/dev/zero" "${copy}/${file}" SYMBOLIC)
    else()
      file(WRITE "${copy}/${file}" "${text}")
    endif()
    execute_process(COMMAND "${AGGREGATE}" page --unchecked "${copy}" "--out=${copy}/index.html"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 60)
    if(NOT rc EQUAL 0)
      fail("a broken ${file} in one bundle stopped the page (exit ${rc}) instead of being skipped:\n${stdout}${stderr}")
    endif()
    if(NOT stderr MATCHES "opmark-aggregate page: warning: skipped the bundle [^\n]*${bundle}: [^\n]*${expected}")
      fail("broken ${file}: expected a warning naming ${bundle} and matching '${expected}', got:\n${stderr}")
    endif()
    if(NOT stdout MATCHES "wrote .*: 1 bundle, [0-9]+ cases in [0-9]+ families; 1 bundle\\(s\\) skipped")
      fail("broken ${file}: the other bundle's page was not written:\n${stdout}")
    endif()
    file(READ "${copy}/index.html" html)
    if(NOT html MATCHES "1 bundle rejected \\(failed <code>opmark-aggregate check</code>, or could not be read\\): not shown as results:</p>\n<ul>\n<li><code>[^<]*${bundle}</code>: ")
      fail("broken ${file}: the page does not name the skipped bundle (${copy}/index.html)")
    endif()
    message(STATUS "broken ${file}: skipped, ${stderr}")
  endforeach()
  # Both bundles broken: no page, and the command fails saying so.
  set(copy "${OUT}/none")
  file(COPY "${DATA}/" DESTINATION "${copy}")
  file(REMOVE "${copy}/gpu_a/scores.json" "${copy}/gpu_b/scores.json")
  execute_process(COMMAND "${AGGREGATE}" page --unchecked "${copy}" "--out=${copy}/index.html"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(rc EQUAL 0 OR NOT stderr MATCHES "none of its 2 bundle\\(s\\) passed the checker or could be read" OR EXISTS "${copy}/index.html")
    fail("with every bundle broken the page must fail (exit ${rc}):\n${stdout}${stderr}")
  endif()

elseif(MODE STREQUAL "links")
  # A bundle outside RESULTS_DIR, linked in: skipped, named; the bundles inside are shown.
  file(COPY "${DATA}/" DESTINATION "${OUT}/results")
  file(COPY "${DATA}/gpu_b/" DESTINATION "${OUT}/outside/gpu_c")
  file(CREATE_LINK "${OUT}/outside/gpu_c" "${OUT}/results/gpu_c" SYMBOLIC)
  execute_process(COMMAND "${AGGREGATE}" page --unchecked "${OUT}/results" "--out=${OUT}/results/index.html"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0 OR NOT stdout MATCHES "wrote .*: 2 bundles, 8 cases in 3 families\n")
    fail("the page over two bundles and a linked one (exit ${rc}):\n${stdout}${stderr}")
  endif()
  if(NOT stderr MATCHES "warning: skipped [^\n]*results/gpu_c: a symbolic link \\(to [^\n]*outside/gpu_c\\); the page shows only the bundles inside")
    fail("the linked bundle was not named as skipped:\n${stderr}")
  endif()
  # A link planted at the page's path: refused, its target unchanged.
  file(WRITE "${OUT}/precious.txt" "precious\n")
  file(REMOVE "${OUT}/results/index.html")
  file(CREATE_LINK "${OUT}/precious.txt" "${OUT}/results/index.html" SYMBOLIC)
  execute_process(COMMAND "${AGGREGATE}" page --unchecked "${OUT}/results"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  file(READ "${OUT}/precious.txt" precious)
  if(rc EQUAL 0 OR NOT stderr MATCHES "index.html: a symbolic link, not written through" OR NOT precious STREQUAL "precious\n")
    fail("the page was written through a link (exit ${rc}):\n${stdout}${stderr}")
  endif()
  message(STATUS "a linked bundle skipped, a linked page refused")

elseif(MODE STREQUAL "bad_case")
  find_chromium("the page's script cannot be run")
  write_page("${DATA}" "${OUT}/index.html")
  # Each fragment, and the name the message must show: a case no bundle has, percent-encoding cut short (which
  # decodeURIComponent throws on), and a name every JavaScript object inherits.
  set(n 0)
  foreach(pair "gemm%2Ffwd%2Ffp16%2Fm%3D1|gemm/fwd/fp16/m=1" "%E0%A4%A|%E0%A4%A" "__proto__|__proto__")
    math(EXPR n "${n} + 1")
    string(REPLACE "|" ";" parts "${pair}")
    list(GET parts 0 fragment)
    list(GET parts 1 shown)
    render_dom("file://${OUT}/index.html#case=${fragment}" "${OUT}/dom_${n}.html")
    string(FIND "${dom}" "no such case: ${shown} (the link names no case of these bundles)</p>" at)
    if(at EQUAL -1 OR dom MATCHES "id=\"case-missing\"[^>]* hidden")
      fail("#case=${fragment}: no 'no such case: ${shown}' shown; DOM in ${OUT}/dom_${n}.html")
    endif()
    if(dom MATCHES "<tr class=\"detail\">")
      fail("#case=${fragment}: a case's details opened")
    endif()
    message(STATUS "#case=${fragment}: no such case, said")
  endforeach()

elseif(MODE STREQUAL "width")
  find_chromium("the page's width cannot be measured")
  file(MAKE_DIRECTORY "${OUT}/profile" "${OUT}/home")
  set(ENV{HOME} "${OUT}/home")
  set(ENV{XDG_CONFIG_HOME} "${OUT}/home/.config")
  set(ENV{XDG_CACHE_HOME} "${OUT}/home/.cache")
  set(chromium "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
               --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage
               "--user-data-dir=${OUT}/profile" --hide-scrollbars --window-size=1400,1000)
  # The committed bundles (the widest tables: 554 convolutions) and the fixture; each as it opens, and with the
  # drill-down of its longest-named case open (the detail row spans the table).
  execute_process(COMMAND "${AGGREGATE}" page --unchecked "${RESULTS}" "--out=${OUT}/results.html"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    fail("opmark-aggregate page ${RESULTS} exited ${rc}:\n${stdout}${stderr}")
  endif()
  write_page("${DATA}" "${OUT}/fixture.html")
  set(conv "conv/bwd_filter/fp16/n=16/c=1/d=1/h=161/w=700/k=32/t=1/r=5/s=20/pad_d=0/pad_h=0/pad_w=0/stride_d=1/stride_h=2/stride_w=2/dil_h=1/dil_w=1/groups=1/layout=NCHW")
  string(REPLACE "/" "%2F" conv "${conv}")
  string(REPLACE "=" "%3D" conv "${conv}")
  set(n 0)
  foreach(url "results.html" "results.html#case=${conv}" "fixture.html"
              "fixture.html#case=gemm%2Ffwd%2Ffp16%2Fm%3D768%2Fn%3D16384%2Fk%3D768%2Fta%3DT%2Ftb%3DN%2Fbatch%3D1")
    math(EXPR n "${n} + 1")
    render_dom("file://${OUT}/${url}" "${OUT}/dom_${n}.html" --hide-scrollbars --window-size=1400,1000)
    if(url MATCHES "#case=" AND NOT dom MATCHES "<tr class=\"detail\">")
      fail("${url}: the case's drill-down did not open; DOM in ${OUT}/dom_${n}.html")
    endif()
    # The page records how wide it laid out (document.documentElement.scrollWidth, aggregate/page/main.js).
    if(NOT dom MATCHES "data-scroll-width=\"([0-9]+)\"")
      fail("${url}: the page did not record its width; DOM in ${OUT}/dom_${n}.html")
    endif()
    set(width "${CMAKE_MATCH_1}")
    if(width GREATER 1400)
      fail("${url}: the page is ${width} px wide in a 1400 px window: something overflows (DOM in ${OUT}/dom_${n}.html)")
    endif()
    message(STATUS "${url}: ${width} px wide in a 1400 px window")
  endforeach()
  expect_speedup_of_scores("${OUT}/dom_1.html")
  # A picture of the committed bundles' page as it opens (a fragment in the address would leave it blank).
  execute_process(COMMAND ${chromium} --virtual-time-budget=20000 "--screenshot=${OUT}/page_1400.png"
                          "file://${OUT}/results.html"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 120)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}/page_1400.png")
    fail("${CHROMIUM} --screenshot exited ${rc}:\n${stderr}")
  endif()
  message(STATUS "screenshot: ${OUT}/page_1400.png")

elseif(MODE STREQUAL "hostile_family")
  find_chromium("the page's script cannot be run")
  # A third bundle, 0_hostile (first by name), gpu_b's run with its GEMM family named "gemm", CR, NUL,
  # "</script><!--", and such a system name. The checker rejects such a bundle (a family not the case name's), so
  # the page is written with --unchecked: the bundle's text reaches the page, which must still render every table.
  file(COPY "${DATA}/gpu_a" "${DATA}/gpu_b" DESTINATION "${OUT}/results")
  file(COPY "${DATA}/gpu_b/" DESTINATION "${OUT}/results/0_hostile")
  set(log "${OUT}/results/0_hostile/run/results.jsonl")
  file(READ "${log}" text)
  string(REPLACE "\"family\":\"gemm\"" "\"family\":\"gemm\\r\\u0000</script><!--\"" text "${text}")
  file(WRITE "${log}" "${text}")
  set(system "${OUT}/results/0_hostile/system.yaml")
  file(READ "${system}" text)
  string(REGEX MATCH "system_name: [^\n]*" name_line "${text}")
  string(REPLACE "${name_line}" "system_name: \"Hostile\\r\\0</script><!-- C\"" text "${text}")
  file(WRITE "${system}" "${text}")
  execute_process(COMMAND "${AGGREGATE}" page --unchecked "${OUT}/results" "--out=${OUT}/index.html"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0 OR NOT stdout MATCHES "wrote .*: 3 bundles, 8 cases in 3 families")
    fail("opmark-aggregate page with a hostile family name (exit ${rc}):\n${stdout}${stderr}")
  endif()
  # A stopped script leaves data-rendered unset: render_dom fails, naming the script's error.
  render_dom("file://${OUT}/index.html" "${OUT}/dom.html")
  # Every family's section holds its table of cases, and gpu_a's times are in them.
  foreach(id family-conv family-pointwise family-2)
    if(NOT dom MATCHES "<div id=\"cases-${id}\"><div><[^>]*>[^\n]*<table")
      fail("the section ${id} has no table of cases; DOM in ${OUT}/dom.html")
    endif()
  endforeach()
  expect_all("${dom}" "the DOM (${OUT}/dom.html)"
    # the area and model scores of both other bundles
    ">cv_2d</td>" ">bert_base</td><td>nlp</td>"
    # gpu_a's GEMM time, in the hostile family's table, and the family's name shown as text
    ">187\\.65</td>"
    "<h2>gemm[^<]*&lt;/script&gt;&lt;!--</h2>")
  message(STATUS "a family named with CR, NUL and </script>: every family's table rendered")

else()
  fail("MODE must be page, dom, broken, links, bad_case, width or hostile_family, not '${MODE}'")
endif()

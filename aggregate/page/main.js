// The page's entry: reads the embedded data, renders every table and chart against the reference system the reader
// picks, and opens the case a #case=<name> link names.

var data = JSON.parse(document.getElementById('opmark-data').textContent);
var bundles = data.bundles;
bundles.forEach(function (b) { b.label = b.system_name + ' / ' + b.gpu; });
var state = {ref: 0};
var rowOf = Object.create(null);  // case name -> its table row; no inherited names: #case=__proto__ is no case

function toggle(name, open) {
  var tr = Object.prototype.hasOwnProperty.call(rowOf, name) ? rowOf[name] : null;
  if (!tr) return false;
  var next = tr.nextSibling;
  var isOpen = next && next.classList && next.classList.contains('detail');
  if (isOpen && open !== true) {
    next.parentNode.removeChild(next);
    tr.classList.remove('open');
    return true;
  }
  if (!isOpen) {
    var span = tr.children.length;
    tr.parentNode.insertBefore(el('tr', {class: 'detail'}, el('td', {colspan: span}, details(tr.opmarkCase, bundles))), next);
    tr.classList.add('open');
  }
  try {  // the address bar links to the open case; some browsers refuse history changes on file:// pages
    history.replaceState(null, '', '#case=' + encodeURIComponent(name));
  } catch (e) {}
  return true;
}

// Each other system's time ratios to the reference over the cases both timed, and their geometric mean.
function ratioSeries(cases, ref) {
  var series = [];
  bundles.forEach(function (b, i) {
    if (i === ref) return;
    var ratios = [], logSum = 0;
    cases.forEach(function (k) {
      var a = k.r[ref], r = k.r[i];
      if (!timed(a) || !timed(r) || !(a.time_us > 0) || !(r.time_us > 0)) return;
      ratios.push({name: k.short, ratio: r.time_us / a.time_us});
      logSum += Math.log(r.time_us / a.time_us);
    });
    if (ratios.length) series.push({i: i, label: b.label, ratios: ratios, geomean: Math.exp(logSum / ratios.length)});
  });
  return series;
}

function renderFamily(f, ref) {
  var cases = data.cases.filter(function (k) { return k.family === f.name; });
  var summary = clear('summary-' + f.id);
  summary.appendChild(el('p', {text: cases.length + ' cases, named by the fields that differ from the family\'s ' +
    'defaults (the full name on hover and in the details). Time: the median over repetitions in us, lower is ' +
    'better. Ratio: time / time on ' + bundles[ref].label + ' (above 1: slower), coloured by the verdict ' +
    '`opmark-aggregate compare` gives: slower or faster only beyond both runs\' run-to-run noise and the least ' +
    'change called, in cycles where the SM clocks differed on a compute-bound case; ? where the noise is too ' +
    'large to call (or a time is unstable). Hover a ratio for its numbers. Click a header to sort.'}));
  var withEnergy = cases.some(function (k) { return k.r.some(function (r) { return timed(r) && energy(r); }); });
  if (withEnergy)
    summary.appendChild(el('p', {text: 'Energy: joules per operation (mJ) as NVML measured them over the timed ' +
                                       'replays, and work per joule (TFLOPS/W, or GB/s/W for memory-bound cases).'}));
  if (cases.some(function (k) { return k.r.some(function (r) { return r && r.status === 'unstable'; }); }))
    summary.appendChild(el('p', {text: '\u26a0 unstable: two measurements of the case disagreed by more than 1.3x ' +
                                       'even after measuring again; its median time is shown, in doubt, and its ' +
                                       'ratios are unclear (?).'}));
  var series = ratioSeries(cases, ref);
  series.forEach(function (s) {
    summary.appendChild(el('p', null, el('span', {class: 'swatch', style: 'background: ' + colourOf(s.i)}),
      s.label + ': geometric mean of the time ratio ' + ratioText(s.geomean) + ' over ' + s.ratios.length +
      ' cases measured on both'));
  });
  var charts = clear('charts-' + f.id);
  if (series.length) charts.appendChild(ratioChart(f.name, series, bundles[ref].label));
  var roofline = rooflineChart(f.name, cases, bundles);
  if (roofline) charts.appendChild(roofline);
  else charts.appendChild(el('p', {text: 'No roofline: no case of ' + f.name + ' has FLOPs (memory bound, see GB/s).'}));
  var t = familyTable(cases, bundles, ref, withEnergy, function (name) { toggle(name); });
  t.rows.forEach(function (row) { rowOf[row.k.name] = row.tr; });
  clear('cases-' + f.id).appendChild(el('div', null, caseFilter(t.rows), t.table));
}

function render() {
  var ref = state.ref;
  rowOf = Object.create(null);
  clear('systems-table').appendChild(systemsTable(bundles, ref));
  clear('scores-precision').textContent = 'Precision of the scores: ' + bundles.map(function (b) {
    return b.label + ': ' + (b.scores.precision || '?');
  }).join('; ') + '.';
  clear('area-scores').appendChild(areaTable(bundles, ref));
  var areas = areaNames(bundles);
  var chartBox = clear('area-chart');
  if (areas.length) chartBox.appendChild(areaChart(bundles, areas));
  clear('model-scores').appendChild(modelTable(bundles, ref));
  var speedups = speedupSection(data.speedups, bundles, ref);
  if (speedups) clear('speedups').appendChild(speedups);
  data.families.forEach(function (f) { renderFamily(f, ref); });
}

// The reference of every ratio: the first system unless the reader picks another.
function referencePicker() {
  var box = clear('reference');
  if (bundles.length < 2) return;
  var select = el('select', {id: 'reference-select'}, bundles.map(function (b, i) {
    return el('option', {value: i, text: b.label + ' (' + b.id + ')'});
  }));
  select.addEventListener('change', function () {
    state.ref = Number(select.value);
    render();
    openFromHash(false);
  });
  box.appendChild(el('label', null, 'Ratios relative to ', select));
}

// A link to a case (#case=<name>) opens it: the page's own links, bookmarks, and the test. A link to no case of
// the page (mistyped, cut short, or not valid percent-encoding) says so where the page starts.
function openFromHash(scroll) {
  var box = document.getElementById('case-missing');
  box.hidden = true;
  var m = /^#case=(.*)$/.exec(location.hash);
  if (!m) return;
  var name;
  try {
    name = decodeURIComponent(m[1]);
  } catch (e) {
    name = m[1];
  }
  if (toggle(name, true)) {
    if (scroll !== false) rowOf[name].scrollIntoView({block: 'center'});
    return;
  }
  box.textContent = 'no such case: ' + name + ' (the link names no case of these bundles)';
  box.hidden = false;
  if (scroll !== false) box.scrollIntoView({block: 'center'});
}

if (bundles.length) {  // a page of plain runs only (--runs) has no bundle tables to draw
  referencePicker();
  render();
  window.addEventListener('hashchange', function () { openFromHash(); });
  openFromHash();
}
// How wide the page laid out, for the test that it fits a 1400 px window (test/aggregate/page_test.cmake, width).
document.documentElement.setAttribute('data-scroll-width', String(document.documentElement.scrollWidth));
document.documentElement.setAttribute('data-rendered', 'ok');

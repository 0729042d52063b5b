// The tables: systems, scores, and per family a row per case. Lower times and scores are better; ratios are over
// the reference system the reader picked (main.js).

function num(text, cls) { return el('td', {class: 'num' + (cls ? ' ' + cls : ''), text: text}); }

function bundleHead(b, i, span, isRef) {
  return el('th', {colspan: span || 1, style: 'border-top: 4px solid ' + colourOf(i),
                   title: isRef ? 'the reference of the ratios' : null},
            b.system_name + (isRef ? ' (ref)' : ''), el('br'), el('small', {text: b.gpu}));
}

function markBest(cells, values) {  // the lowest time or score of a row, when more than one system has one
  var best = -1, count = 0;
  values.forEach(function (v, i) {
    if (typeof v !== 'number') return;
    ++count;
    if (best < 0 || v < values[best]) best = i;
  });
  if (count > 1) cells[best].classList.add('best');
}

function timed(r) { return !!r && (r.status === 'ok' || r.status === 'unstable'); }

// Sorting: a click on a header with a sort key orders the body's rows by it (numbers as numbers, missing values
// last), a second click reverses. A row's open drill-down moves with it.
function makeSortable(thead, tbody, rows) {
  var current = -1, ascending = true;
  [].forEach.call(thead.querySelectorAll('th[data-sort]'), function (th) {
    var col = Number(th.getAttribute('data-sort'));
    th.classList.add('sortable');
    th.title = (th.title ? th.title + '; ' : '') + 'click to sort';
    th.addEventListener('click', function () {
      ascending = current === col ? !ascending : true;
      current = col;
      [].forEach.call(thead.querySelectorAll('th[data-sort]'), function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      var order = rows.slice().sort(function (a, b) {
        var x = a.keys[col], y = b.keys[col];
        var nx = x === null || x === undefined, ny = y === null || y === undefined;
        if (nx || ny) return nx === ny ? a.index - b.index : nx ? 1 : -1;
        var c = typeof x === 'number' && typeof y === 'number' ? x - y : naturalCompare(x, y);
        return (ascending ? c : -c) || a.index - b.index;
      });
      order.forEach(function (row) {
        var detail = row.tr.nextSibling && row.tr.nextSibling.classList &&
                     row.tr.nextSibling.classList.contains('detail') ? row.tr.nextSibling : null;
        tbody.appendChild(row.tr);
        if (detail) tbody.appendChild(detail);
      });
    });
  });
}

// Systems: every field of system.yaml and the run's context ([field, text] pairs in the file's order), a column
// per system.
function systemsTable(bundles, ref) {
  var keys = [];
  var flat = bundles.map(function (b) {
    var f = {};
    b.system.forEach(function (p) {
      if (keys.indexOf(p[0]) < 0) keys.push(p[0]);
      f[p[0]] = p[1];
    });
    return f;
  });
  var head = el('tr', null, el('th', {text: 'field'}), bundles.map(function (b, i) { return bundleHead(b, i, 1, i === ref); }));
  var rows = [el('tr', null, el('td', {text: 'bundle'}),
                 bundles.map(function (b) { return el('td', {class: 'case', text: b.id}); }))];
  keys.forEach(function (k) {
    rows.push(el('tr', null, el('td', {text: k}),
                 flat.map(function (f) { return el('td', {text: k in f ? fieldText(f[k]) : ''}); })));
  });
  var anyUnstable = bundles.some(function (b) { return b.summary.unstable > 0; });
  rows.push(el('tr', null, el('td', {text: 'cases ok / ' + (anyUnstable ? 'unstable / ' : '') + 'skipped / failed'}),
               bundles.map(function (b) {
    var s = b.summary;
    return el('td', {text: s.ok + ' / ' + (anyUnstable ? s.unstable + ' / ' : '') + s.skipped + ' / ' + s.failed});
  })));
  return el('table', {class: 'systems'}, el('thead', null, head), el('tbody', null, rows));
}

function findNamed(list, name) { return list.filter(function (x) { return x.name === name; })[0]; }

function areaNames(bundles) {
  var areas = [];
  bundles.forEach(function (b) {
    b.scores.areas.forEach(function (a) { if (areas.indexOf(a.name) < 0) areas.push(a.name); });
  });
  return areas;
}

// Area scores: ms, and each system's ratio to the reference's.
function areaTable(bundles, ref) {
  var head = el('tr', null, el('th', {text: 'area'}), bundles.map(function (b, i) { return bundleHead(b, i, 1, i === ref); }));
  var rows = areaNames(bundles).map(function (name) {
    var values = bundles.map(function (b) { var a = findNamed(b.scores.areas, name); return a ? a.score_ms : null; });
    var cells = values.map(function (v, i) {
      var text = sig(v, 5);
      if (i !== ref && typeof v === 'number' && values[ref] > 0) text += ' (' + ratioText(v / values[ref]) + ')';
      return num(text);
    });
    markBest(cells, values);
    return el('tr', null, el('td', {text: name}), cells);
  });
  return el('table', null,
    el('caption', {text: 'Area scores, ms (mean of the area\'s model scores): lower is better'}),
    el('thead', null, head), el('tbody', null, rows));
}

function modelTable(bundles, ref) {
  var models = [];
  bundles.forEach(function (b) {
    b.scores.models.forEach(function (m) { if (models.indexOf(m.name) < 0) models.push(m.name); });
  });
  var head1 = el('tr', null, el('th', {rowspan: 2, text: 'model'}), el('th', {rowspan: 2, text: 'area'}),
                 bundles.map(function (b, i) { return bundleHead(b, i, 3, i === ref); }));
  var head2 = el('tr', null, bundles.map(function () {
    return [el('th', {text: 'score ms'}), el('th', {text: 'calls covered'}), el('th', {text: 'time covered'})];
  }));
  var rows = models.map(function (name) {
    var ms = bundles.map(function (b) { return findNamed(b.scores.models, name); });
    var area = ms.filter(function (m) { return m; })[0].area;
    var scoreCells = [], cells = [];
    ms.forEach(function (m) {
      var c = num(m ? sig(m.score_ms, 5) : '-');
      scoreCells.push(c);
      cells.push(c, num(m ? pct(m.coverage_calls) : '-'), num(m ? pct(m.coverage_time) : '-'));
    });
    markBest(scoreCells, ms.map(function (m) { return m ? m.score_ms : null; }));
    return el('tr', null, el('td', {text: name}), el('td', {text: area}), cells);
  });
  return el('table', null,
    el('caption', {text: 'Model scores, ms (sum of calls x measured time of the covered calls): lower is better. ' +
                         'Coverage: the share of the model\'s calls, and of its traced GPU time, that measured cases cover.'}),
    el('thead', null, head1, head2), el('tbody', null, rows));
}

// A case's throughput: TFLOPS where it has FLOPs, else GB/s; {text, value} for the cell and its sort.
function rate(r) {
  var c = r.counters || {};
  if (c.flops > 0 && typeof c.tflops === 'number') return {text: sig(c.tflops, 4) + ' TFLOPS', value: c.tflops};
  if (typeof c.gb_per_s === 'number') return {text: sig(c.gb_per_s, 4) + ' GB/s', value: c.gb_per_s};
  return {text: '-', value: null};
}

// Energy per operation and its efficiency, from the median line's counters (results format 2, with NVML); null
// where the case has none. TFLOPS/W for a case with FLOPs, GB/s/W for a memory-bound one.
function energy(r) {
  var c = (r && r.counters) || {};
  if (typeof c.joules_per_op !== 'number' || !(c.joules_per_op > 0)) return null;
  var text = sig(c.joules_per_op * 1e3, 3) + ' mJ';
  if (typeof c.tflops_per_w === 'number') text += ', ' + sig(c.tflops_per_w, 3) + ' TFLOPS/W';
  else if (typeof c.gb_per_s_per_w === 'number') text += ', ' + sig(c.gb_per_s_per_w, 3) + ' GB/s/W';
  else if (c.flops > 0) text += ', ' + sig(c.flops / c.joules_per_op / 1e12, 3) + ' TFLOPS/W';
  else if (c.bytes > 0) text += ', ' + sig(c.bytes / c.joules_per_op / 1e9, 3) + ' GB/s/W';
  return text;
}

// A time ratio, coloured by the case's verdict against the reference (from the page's data); its title says why.
function ratioCell(r, verdict) {
  if (typeof r !== 'number') return num('-');
  var v = verdictLook(verdict);
  return el('td', {class: 'num' + (v.cls ? ' ' + v.cls : ''), title: v.why, text: ratioText(r) + v.mark});
}

// One family's table: a row per case (its short name; the full name on hover and in the drill-down), per system
// the time, rate and energy, then each other system's time ratio to the reference. Returns {table, rows}.
function familyTable(cases, bundles, ref, withEnergy, onRowClick) {
  var span = withEnergy ? 3 : 2, col = 0;
  var caseHead = el('th', {rowspan: 2, 'data-sort': col++, text: 'case'});
  var head1 = el('tr', null, caseHead, bundles.map(function (b, i) { return bundleHead(b, i, span, i === ref); }),
                 bundles.length > 1 ? el('th', {colspan: bundles.length - 1, text: 'time / time on ' + bundles[ref].system_name}) : null);
  var head2 = el('tr', null, bundles.map(function () {
                   return [el('th', {'data-sort': col++, text: 'time us'}), el('th', {'data-sort': col++, text: 'rate'}),
                           withEnergy ? el('th', {'data-sort': col++, text: 'energy per op'}) : null];
                 }),
                 bundles.map(function (b, i) {
                   if (i === ref) return null;
                   var th = bundleHead(b, i);
                   th.setAttribute('data-sort', col++);
                   return th;
                 }));
  var rows = cases.map(function (k, index) {
    var times = [], sure = [], timeCells = [], cells = [], keys = [index];
    k.r.forEach(function (r) {
      var ok = timed(r), unstable = ok && r.status === 'unstable';
      times.push(ok ? r.time_us : null);
      sure.push(ok && !unstable ? r.time_us : null);  // the best of a row is never a time in doubt
      var t = !r ? num('not run')
            : unstable ? el('td', {class: 'num unstable', title: 'unstable: ' + (r.reason || '')}, sig(r.time_us, 5) + ' \u26a0',
                            el('small', {class: 'reason', text: 'unstable: ' + (r.reason || 'no reason given')}))
            : ok ? num(sig(r.time_us, 5))
            : el('td', {class: 'status', text: r.status, title: r.reason || ''});
      timeCells.push(t);
      var rt = ok ? rate(r) : {text: '', value: null}, en = ok ? energy(r) : null;
      cells.push(t, num(rt.text), withEnergy ? num(ok ? en || '-' : '') : null);
      keys.push(ok ? r.time_us : null, rt.value);
      if (withEnergy) keys.push(en ? r.counters.joules_per_op : null);
    });
    markBest(timeCells, sure);
    k.r.forEach(function (r, i) {
      if (i === ref) return;
      var ratio = typeof times[i] === 'number' && times[ref] > 0 ? times[i] / times[ref] : null;
      cells.push(ratioCell(ratio, k.verdicts && k.verdicts[ref] ? k.verdicts[ref][i] : null));
      keys.push(ratio);
    });
    var tr = el('tr', {class: 'case'}, el('td', {class: 'case', title: k.name + ' (click for the details)', text: k.short}), cells);
    tr.opmarkCase = k;
    tr.addEventListener('click', function () { onRowClick(k.name); });
    return {tr: tr, k: k, keys: keys, index: index};
  });
  var thead = el('thead', null, head1, head2), tbody = el('tbody', null, rows.map(function (row) { return row.tr; }));
  makeSortable(thead, tbody, rows);
  return {table: el('table', {class: 'cases'}, thead, tbody), rows: rows};
}

// Filters a family's rows by words of the case's full name (all must occur).
function caseFilter(rows) {
  var filter = el('input', {class: 'filter', type: 'search', placeholder: 'filter cases: fp16, m=1024, op=relu ...'});
  filter.addEventListener('input', function () {
    var words = filter.value.toLowerCase().split(/\s+/).filter(function (w) { return w; });
    rows.forEach(function (row) {
      var show = words.every(function (w) { return row.k.name.toLowerCase().indexOf(w) >= 0; });
      row.tr.style.display = show ? '' : 'none';
      var next = row.tr.nextSibling;
      if (next && next.classList.contains('detail')) next.style.display = show ? '' : 'none';
    });
  });
  return filter;
}

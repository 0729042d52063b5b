#include "aggregate/page_html.h"

#include <sstream>

#include "aggregate/plots.h"

namespace opmark::aggregate {
namespace {

// The palette of aggregate/plots.cpp: a bundle has the same colour in the tables as in the charts.
const char* kCss = R"CSS(
body { font-family: system-ui, sans-serif; margin: 0 2em 4em; color: #222; }
h1 { margin-bottom: 0.2em; }
nav a { margin-right: 1em; }
.note { background: #f4f8ff; border-left: 4px solid #1f77b4; padding: 0.4em 0.8em; }
#js-error { background: #fee; border: 1px solid #d62728; padding: 0.5em; white-space: pre-wrap; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; vertical-align: top; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { font-weight: bold; background: #eef8ee; }
td.slower { color: #b22; }
td.faster { color: #171; }
td.status { color: #b22; font-style: italic; }
td.unstable { background: #fff3cd; }
td.unsure { color: #8a6d00; font-style: italic; }
small.reason { display: block; white-space: normal; max-width: 18em; color: #8a6d00; text-align: left; }
td.case { font-family: monospace; font-size: 12px; }
tr.case { cursor: pointer; }
tr.case:hover { background: #fafae6; }
tr.case.open { background: #fff4d6; }
tr.detail > td { background: #fffbea; }
.details { display: flex; flex-wrap: wrap; gap: 1.5em; }
.details h4 { margin: 0.4em 0; }
.details table { margin: 0.2em 0; }
.details td:first-child { color: #555; white-space: nowrap; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
.charts svg { border: 1px solid #ddd; }
.filter { margin: 0.4em 0; width: 40em; max-width: 100%; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em; }
)CSS";

// Renders the tables from the inline data; charts are static SVG from C++. Text goes in through textContent,
// never innerHTML, so no result can inject markup.
const char* kScript = R"JS(
(function () {
  'use strict';
  var colours = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
  var data = JSON.parse(document.getElementById('opmark-data').textContent);
  var bundles = data.bundles, ref = 0;

  function el(tag, attrs) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'class') e.className = attrs[k];
      else if (k === 'onclick') e.addEventListener('click', attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    (function add(kids) {  // children: nodes, text, or (nested) lists of them; null and undefined skipped
      for (var i = 0; i < kids.length; ++i) {
        var k = kids[i];
        if (k === null || k === undefined) continue;
        if (Array.isArray(k)) add(k);
        else e.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
      }
    })([].slice.call(arguments, 2));
    return e;
  }
  // d significant digits, no trailing zeros: 187.654 -> "187.65" with d = 5.
  function sig(v, d) {
    if (v === null || v === undefined || typeof v !== 'number' || !isFinite(v)) return '-';
    return String(Number(v.toPrecision(d)));
  }
  function pct(v) { return typeof v === 'number' ? (100 * v).toFixed(1) + '%' : '-'; }
  function num(text, cls) { return el('td', {class: 'num' + (cls ? ' ' + cls : ''), text: text}); }
  function label(i) { return bundles[i].system_name + ' / ' + bundles[i].gpu; }
  function bundleHead(i, span) {
    var attrs = {colspan: span || 1, style: 'border-top: 4px solid ' + colours[i % colours.length]};
    return el('th', attrs, bundles[i].system_name, el('br'), el('small', {text: bundles[i].gpu}));
  }
  function ratioCell(r, unsure) {
    if (typeof r !== 'number') return num('-');
    // A ratio with an unstable time in it is no verdict either way: neither coloured nor called faster or slower.
    if (unsure) {
      var c = num(sig(r, 4) + 'x ?', 'unsure');
      c.title = 'a time measured unstable: no verdict';
      return c;
    }
    return num(sig(r, 4) + 'x', r > 1.005 ? 'slower' : r < 0.995 ? 'faster' : '');
  }
  function markBest(cells, values) {  // the lowest time or score of a row, when more than one bundle has one
    var best = -1, count = 0;
    values.forEach(function (v, i) {
      if (typeof v !== 'number') return;
      ++count;
      if (best < 0 || v < values[best]) best = i;
    });
    if (count > 1) cells[best].classList.add('best');
  }

  // Systems: every field of system.yaml ([field, text] pairs in the file's order), a column per bundle.
  (function systems() {
    var keys = [];
    var flat = bundles.map(function (b) {
      var f = {};
      b.system.forEach(function (p) {
        if (keys.indexOf(p[0]) < 0) keys.push(p[0]);
        f[p[0]] = p[1];
      });
      return f;
    });
    var head = el('tr', null, el('th', {text: 'field'}), bundles.map(function (b, i) { return bundleHead(i); }));
    var rows = [el('tr', null, el('td', {text: 'bundle'}),
                   bundles.map(function (b) { return el('td', {class: 'case', text: b.id}); }))];
    keys.forEach(function (k) {
      rows.push(el('tr', null, el('td', {text: k}),
                   flat.map(function (f) { return el('td', {text: k in f ? f[k] : ''}); })));
    });
    var anyUnstable = bundles.some(function (b) { return b.summary.unstable > 0; });
    rows.push(el('tr', null, el('td', {text: 'cases ok / ' + (anyUnstable ? 'unstable / ' : '') + 'skipped / failed'}),
                 bundles.map(function (b) {
      var s = b.summary;
      return el('td', {text: s.ok + ' / ' + (anyUnstable ? s.unstable + ' / ' : '') + s.skipped + ' / ' + s.failed});
    })));
    document.getElementById('systems-table').appendChild(el('table', null, el('thead', null, head), el('tbody', null, rows)));
  })();

  // Scores: areas, then models with their coverage and area. Lower is better.
  (function scores() {
    var areas = [], models = [];
    bundles.forEach(function (b) {
      b.scores.areas.forEach(function (a) { if (areas.indexOf(a.name) < 0) areas.push(a.name); });
      b.scores.models.forEach(function (m) { if (models.indexOf(m.name) < 0) models.push(m.name); });
    });
    function find(list, name) { return list.filter(function (x) { return x.name === name; })[0]; }
    var precisions = bundles.map(function (b, i) { return label(i) + ': ' + (b.scores.precision || '?'); });
    document.getElementById('scores-precision').textContent = 'Precision of the scores: ' + precisions.join('; ') + '.';

    var head = el('tr', null, el('th', {text: 'area'}), bundles.map(function (b, i) { return bundleHead(i); }));
    var rows = areas.map(function (name) {
      var values = bundles.map(function (b) { var a = find(b.scores.areas, name); return a ? a.score_ms : null; });
      var cells = values.map(function (v, i) {
        var text = sig(v, 5);
        if (i !== ref && typeof v === 'number' && values[ref] > 0) text += ' (' + sig(v / values[ref], 3) + 'x)';
        return num(text);
      });
      markBest(cells, values);
      return el('tr', null, el('td', {text: name}), cells);
    });
    document.getElementById('area-scores').appendChild(el('table', null,
      el('caption', {text: 'Area scores, ms (mean of the area\'s model scores): lower is better'}),
      el('thead', null, head), el('tbody', null, rows)));

    var head1 = el('tr', null, el('th', {rowspan: 2, text: 'model'}), el('th', {rowspan: 2, text: 'area'}),
                   bundles.map(function (b, i) { return bundleHead(i, 3); }));
    var head2 = el('tr', null, bundles.map(function () {
      return [el('th', {text: 'score ms'}), el('th', {text: 'calls covered'}), el('th', {text: 'time covered'})];
    }));
    var mrows = models.map(function (name) {
      var ms = bundles.map(function (b) { return find(b.scores.models, name); });
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
    document.getElementById('model-scores').appendChild(el('table', null,
      el('caption', {text: 'Model scores, ms (sum of calls x measured time of the covered calls): lower is better. ' +
                           'Coverage: the share of the model\'s calls, and of its traced GPU time, that measured cases cover.'}),
      el('thead', null, head1, head2), el('tbody', null, mrows)));
  })();

  // Families: a row per case, a column pair per bundle, the time ratio to the reference bundle; a click opens
  // the case's details under its row.
  var rowOf = Object.create(null);  // no inherited names: #case=__proto__ is no case
  function rate(r) {
    var c = r.counters || {};
    if (c.flops > 0 && typeof c.tflops === 'number') return sig(c.tflops, 4) + ' TFLOPS';
    if (typeof c.gb_per_s === 'number') return sig(c.gb_per_s, 4) + ' GB/s';
    return '-';
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
  function timed(r) { return r && (r.status === 'ok' || r.status === 'unstable'); }
  function list(v) { return v && v.length ? v.join(', ') : '-'; }
  function details(k) {
    var blocks = bundles.map(function (b, i) {
      var r = k.r[i];
      var h = el('h4', {style: 'color: ' + colours[i % colours.length], text: label(i) + ' (' + b.id + ')'});
      if (!r) return el('div', null, h, el('p', {text: 'not in this bundle\'s results'}));
      var rows = [['status', r.status + (r.reason ? ': ' + r.reason : '')],
                  ['median time us', sig(r.median, 6)], ['mean time us', sig(r.mean, 6)],
                  ['repetitions us (iterations)', r.reps.length ? r.reps.map(function (p) {
                    return sig(p.time_us, 6) + (p.iterations ? ' (x' + p.iterations + ')' : '');
                  }).join(', ') : '-'],
                  ['library default us', typeof r.default_us === 'number' ? sig(r.default_us, 6) : '-'],
                  ['energy per op', energy(r) || '-'],
                  ['verification', r.verification || '-'], ['label', r.label || '-'],
                  ['sets', list(r.sets)], ['models', list(r.models)], ['applications', list(r.applications)]];
      var counters = Object.keys(r.counters || {}).sort().map(function (name) {
        return el('tr', null, el('td', {text: name}), num(sig(r.counters[name], 6)));
      });
      return el('div', {class: 'bundle-detail'}, h,
                el('table', null, rows.map(function (p) { return el('tr', null, el('td', {text: p[0]}), el('td', {text: p[1]})); })),
                counters.length ? el('table', null, el('caption', {text: 'counters (median line)'}), counters) : null);
    });
    return el('div', null, el('h3', {class: 'case', text: k.name}), el('div', {class: 'details'}, blocks));
  }
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
      tr.parentNode.insertBefore(el('tr', {class: 'detail'}, el('td', {colspan: span}, details(tr.opmarkCase))), next);
      tr.classList.add('open');
    }
    try {  // the address bar links to the open case; some browsers refuse history changes on file:// pages
      history.replaceState(null, '', '#case=' + encodeURIComponent(name));
    } catch (e) {}
    return true;
  }
  data.families.forEach(function (f) {
    var cases = data.cases.filter(function (k) { return k.family === f.name; });
    var summary = document.getElementById('summary-' + f.name);
    summary.appendChild(el('p', {text: cases.length + ' cases. Time: the median over repetitions in us, lower is better; ' +
                                       'ratio: time / time on ' + label(ref) + ' (above 1: slower).'}));
    var withEnergy = cases.some(function (k) { return k.r.some(function (r) { return timed(r) && energy(r); }); });
    if (withEnergy)
      summary.appendChild(el('p', {text: 'Energy: joules per operation (mJ) as NVML measured them over the timed ' +
                                         'replays, and work per joule (TFLOPS/W, or GB/s/W for memory-bound cases).'}));
    if (cases.some(function (k) { return k.r.some(function (r) { return r && r.status === 'unstable'; }); }))
      summary.appendChild(el('p', {text: '\u26a0 unstable: two measurements of the case disagreed by more than 1.3x ' +
                                         'even after measuring again; its median time is shown, in doubt, and its ' +
                                         'ratios carry no verdict (?).'}));
    var span = withEnergy ? 3 : 2;
    f.geomean.forEach(function (g, i) {
      if (i === ref || !g) return;
      summary.appendChild(el('p', null, el('span', {class: 'swatch', style: 'background: ' + colours[i % colours.length]}),
        label(i) + ': geometric mean of the time ratio ' + sig(g.ratio, 4) + 'x over ' + g.cases + ' cases measured on both'));
    });
    var head1 = el('tr', null, el('th', {rowspan: 2, text: 'case'}), bundles.map(function (b, i) { return bundleHead(i, span); }),
                   bundles.length > 1 ? el('th', {colspan: bundles.length - 1, text: 'time ratio to ' + label(ref)}) : null);
    var head2 = el('tr', null, bundles.map(function () {
                     return [el('th', {text: 'time us'}), el('th', {text: 'rate'}),
                             withEnergy ? el('th', {text: 'energy per op'}) : null];
                   }),
                   bundles.map(function (b, i) { return i === ref ? null : bundleHead(i); }));
    var rows = cases.map(function (k) {
      var times = [], sure = [], timeCells = [], cells = [];
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
        cells.push(t, ok ? num(rate(r)) : num(''), withEnergy ? num(ok ? energy(r) || '-' : '') : null);
      });
      markBest(timeCells, sure);
      k.r.forEach(function (r, i) {
        if (i === ref) return;
        var unsure = (r && r.status === 'unstable') || (k.r[ref] && k.r[ref].status === 'unstable');
        cells.push(ratioCell(typeof times[i] === 'number' && times[ref] > 0 ? times[i] / times[ref] : null, unsure));
      });
      var tr = el('tr', {class: 'case', title: 'click for the details'}, el('td', {class: 'case', text: k.name.slice(f.name.length + 1)}), cells);
      tr.opmarkCase = k;
      tr.addEventListener('click', function () { toggle(k.name); });
      rowOf[k.name] = tr;
      return tr;
    });
    var tbody = el('tbody', null, rows);
    var filter = el('input', {class: 'filter', type: 'search', placeholder: 'filter cases: fp16, m=1024, op=relu ...'});
    filter.addEventListener('input', function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(function (w) { return w; });
      rows.forEach(function (tr) {
        var show = words.every(function (w) { return tr.opmarkCase.name.toLowerCase().indexOf(w) >= 0; });
        tr.style.display = show ? '' : 'none';
        var next = tr.nextSibling;
        if (next && next.classList.contains('detail')) next.style.display = show ? '' : 'none';
      });
    });
    document.getElementById('cases-' + f.name).appendChild(el('div', null, filter,
      el('table', null, el('thead', null, head1, head2), tbody)));
  });

  // A link to a case (#case=<name>) opens it: the page's own links, bookmarks, and the test. A link to no case of
  // the page (mistyped, cut short, or not valid percent-encoding) says so where the page starts.
  function openFromHash() {
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
      rowOf[name].scrollIntoView({block: 'center'});
      return;
    }
    box.textContent = 'no such case: ' + name + ' (the link names no case of these bundles)';
    box.hidden = false;
    box.scrollIntoView({block: 'center'});
  }
  window.addEventListener('hashchange', openFromHash);
  openFromHash();
  document.documentElement.setAttribute('data-rendered', 'ok');
})();
)JS";

}  // namespace

std::string script_json(const nlohmann::json& data) {
  // Replace invalid UTF-8 rather than fail: a label from a library is not worth losing the page over.
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    // "<" appears only inside JSON strings, where "\/" and "\u003c" are the same characters to JSON.parse.
    if (text.compare(i, 2, "</") == 0) out += "<\\/", ++i;
    else if (text.compare(i, 4, "<!--") == 0) out += "\\u003c!--", i += 3;
    else out += text[i];
  }
  return out;
}

std::string page_html(const nlohmann::json& data, const std::string& areas_svg,
                      const std::vector<PageFamily>& families) {
  std::ostringstream h;
  const std::size_t n = data.at("bundles").size();
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>opmark results</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n"
    << "<header>\n<h1>opmark results</h1>\n<p>" << n << " submission bundle" << (n == 1 ? "" : "s") << " under "
    << escape(data.value("source", std::string())) << ", generated by <code>opmark-aggregate page</code>.</p>\n"
    << "<p class=\"note\">Scores are milliseconds, case times microseconds: <strong>lower is better</strong>. "
    << "Click a case for its repetitions, verification, label and counters. A time marked &#9888; was measured "
       "unstable (the reason is under it): shown, but in doubt.</p>\n";
  // Bundles that could not be read are named, with what is wrong, rather than silently missing.
  const nlohmann::json skipped = data.value("skipped", nlohmann::json::array());
  if (!skipped.empty()) {
    h << "<p class=\"note\">" << skipped.size() << " bundle" << (skipped.size() == 1 ? "" : "s")
      << " could not be read and " << (skipped.size() == 1 ? "is" : "are") << " not shown:</p>\n<ul>\n";
    for (const auto& b : skipped)
      h << "<li><code>" << escape(b.value("id", std::string())) << "</code>: " << escape(b.value("reason", std::string()))
        << "</li>\n";
    h << "</ul>\n";
  }
  h << "</header>\n"
    << "<div id=\"js-error\" hidden></div>\n<p id=\"case-missing\" class=\"note\" role=\"status\" hidden></p>\n"
    << "<noscript><p>The tables are rendered by the script in this page: enable JavaScript to see them. The charts "
       "below are static.</p></noscript>\n<nav><a href=\"#systems\">systems</a><a href=\"#scores\">scores</a>";
  for (const auto& f : families) h << "<a href=\"#family-" << escape(f.name) << "\">" << escape(f.name) << "</a>";
  h << "</nav>\n<section id=\"systems\">\n<h2>Systems</h2>\n<div id=\"systems-table\"></div>\n</section>\n"
    << "<section id=\"scores\">\n<h2>Scores (ms, lower is better)</h2>\n<p id=\"scores-precision\"></p>\n"
    << "<div id=\"area-scores\"></div>\n<div class=\"charts\">" << areas_svg << "</div>\n"
    << "<div id=\"model-scores\"></div>\n</section>\n";
  for (const auto& f : families) {
    const std::string id = escape(f.name);
    h << "<section class=\"family\" id=\"family-" << id << "\">\n<h2>" << id << "</h2>\n<div id=\"summary-" << id
      << "\"></div>\n<div class=\"charts\">" << f.ratio_svg << f.roofline_svg << "</div>\n";
    if (f.roofline_svg.empty()) h << "<p>No roofline: no case of " << id << " has FLOPs (memory bound, see GB/s).</p>\n";
    h << "<div id=\"cases-" << id << "\"></div>\n</section>\n";
  }
  // The error box first, so a failure anywhere in the script still shows on the page (and in the test's DOM).
  h << "<script>window.addEventListener('error', function (e) { var b = document.getElementById('js-error'); "
       "b.hidden = false; b.textContent = 'page script error: ' + e.message; });</script>\n"
    << "<script type=\"application/json\" id=\"opmark-data\">" << script_json(data) << "</script>\n"
    << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace opmark::aggregate

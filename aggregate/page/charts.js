// The page's charts, drawn here from the data the page embeds (aggregate/plots.cpp draws only the standalone SVG
// files of --plots): the area scores, and per family the time ratios and a roofline. Each system keeps its colour
// and marker shape (dom.js) everywhere.

var kChartW = 640, kChartH = 400;

// A chart's canvas: title on top, plot area inside the margins; x and y map fractions of the plot area to pixels.
function Frame(title) {
  this.left = 62, this.right = 14, this.top = 36, this.bottom = 46;
  this.svg = svgEl('svg', {xmlns: 'http://www.w3.org/2000/svg', width: kChartW, height: kChartH,
                           viewBox: '0 0 ' + kChartW + ' ' + kChartH, 'font-family': 'sans-serif', 'font-size': 11,
                           role: 'img', 'aria-label': title},
                   svgEl('rect', {width: '100%', height: '100%', fill: 'white'}),
                   svgEl('text', {x: kChartW / 2, y: 20, 'text-anchor': 'middle', 'font-size': 13, text: title}));
}
Frame.prototype.x = function (f) { return this.left + f * (kChartW - this.left - this.right); };
Frame.prototype.y = function (f) { return kChartH - this.bottom - f * (kChartH - this.top - this.bottom); };
Frame.prototype.add = function (node) { this.svg.appendChild(node); return node; };
Frame.prototype.box = function () {
  this.add(svgEl('rect', {x: this.left, y: this.top, width: kChartW - this.left - this.right,
                          height: kChartH - this.top - this.bottom, fill: 'none', stroke: '#333'}));
};
Frame.prototype.gridX = function (f, text) {
  var px = this.x(f);
  this.add(svgEl('line', {x1: px, y1: this.top, x2: px, y2: kChartH - this.bottom, stroke: '#ddd'}));
  this.add(svgEl('text', {x: px, y: kChartH - this.bottom + 14, 'text-anchor': 'middle', text: text}));
};
Frame.prototype.gridY = function (f, text, strong) {
  var py = this.y(f);
  this.add(svgEl('line', {x1: this.left, y1: py, x2: kChartW - this.right, y2: py, stroke: strong ? '#666' : '#ddd'}));
  this.add(svgEl('text', {x: this.left - 5, y: py + 4, 'text-anchor': 'end', text: text}));
};
Frame.prototype.labels = function (xlabel, ylabel) {
  this.add(svgEl('text', {x: kChartW / 2, y: kChartH - 12, 'text-anchor': 'middle', text: xlabel}));
  this.add(svgEl('text', {transform: 'translate(14,' + kChartH / 2 + ') rotate(-90)', 'text-anchor': 'middle',
                          text: ylabel}));
};
// Legend rows (marker and text in the system's colour) from the plot area's top left corner, or its top right.
Frame.prototype.legend = function (rows, right) {
  var self = this;
  rows.forEach(function (row, k) {
    var y = self.top + 14 + 15 * k;
    var x = right ? kChartW - self.right - 10 : self.left + 10;
    self.add(marker(shapeOf(row.i), right ? x - 4 : x + 4, y - 4, 4.5,
                    {fill: colourOf(row.i), 'fill-opacity': 0.6, stroke: colourOf(row.i)}));
    self.add(svgEl('text', {x: right ? x - 14 : x + 14, y: y, fill: colourOf(row.i),
                            'text-anchor': right ? 'end' : 'start', text: row.text}));
  });
};

// A log10 axis over whole decades around [min, max].
function LogAxis(min, max) {
  this.lo = Math.floor(Math.log10(Math.max(min, 1e-12)));
  this.hi = Math.ceil(Math.log10(Math.max(max, 1e-12)));
  if (this.hi <= this.lo) this.hi = this.lo + 1;
}
LogAxis.prototype.frac = function (v) { return (Math.log10(Math.max(v, 1e-12)) - this.lo) / (this.hi - this.lo); };
function decadeText(d) { return d >= -3 && d <= 5 ? String(Number(Math.pow(10, d).toPrecision(1))) : '1e' + d; }
function logGrid(frame, ax, ay) {
  for (var d = ax.lo; d <= ax.hi; ++d) frame.gridX((d - ax.lo) / (ax.hi - ax.lo), decadeText(d));
  for (var e = ay.lo; e <= ay.hi; ++e) frame.gridY((e - ay.lo) / (ay.hi - ay.lo), decadeText(e));
  frame.box();
}

// Area scores side by side. Areas differ a hundredfold (0.1 ms next to 30 ms), so each area's bars are scaled to
// its own slowest system: within an area the bars compare, and every bar is labelled with its milliseconds.
function areaChart(bundles, areas) {
  var f = new Frame('Area scores, ms: lower is better (each area scaled to its slowest system)');
  f.labels('area', 'score / the area\'s highest score');
  // The highest bar (1.00) stops under the legend.
  var legendH = 15 * bundles.length + 14, top = 1 - legendH / (kChartH - f.top - f.bottom);
  for (var t = 0; t <= 4; ++t) f.gridY(top * t / 4, (t / 4).toFixed(2));
  f.box();
  var group = 1 / Math.max(areas.length, 1), bar = group * 0.8 / bundles.length;
  areas.forEach(function (name, a) {
    var scores = bundles.map(function (b) {
      var s = b.scores.areas.filter(function (x) { return x.name === name; })[0];
      return s ? s.score_ms : null;
    });
    var max = Math.max.apply(null, scores.map(function (v) { return v || 0; }));
    f.add(svgEl('text', {x: f.x(group * (a + 0.5)), y: kChartH - f.bottom + 14, 'text-anchor': 'middle', text: name}));
    scores.forEach(function (v, i) {
      if (typeof v !== 'number' || !(max > 0)) return;
      var x0 = f.x(group * a + group * 0.1 + bar * i), x1 = f.x(group * a + group * 0.1 + bar * (i + 1));
      var y = f.y(top * v / max);
      f.add(svgEl('rect', {x: x0, y: y, width: Math.max(x1 - x0 - 1, 1), height: f.y(0) - y, fill: colourOf(i)},
                  svgEl('title', {text: bundles[i].label + ': ' + name + ' ' + sig(v, 5) + ' ms'})));
      f.add(svgEl('text', {x: (x0 + x1) / 2, y: y - 3, 'text-anchor': 'middle', 'font-size': 9, text: sig(v, 3)}));
    });
  });
  f.legend(bundles.map(function (b, i) { return {i: i, text: b.label}; }), true);
  return f.svg;
}

// Per case, time over the reference's time, each system's cases sorted by ratio, on a log2 axis around 1; each
// system's geometric mean dashed across.
function ratioChart(family, series, refLabel) {
  var f = new Frame(family + ': time per case relative to ' + refLabel);
  var span = 1;
  series.forEach(function (s) {
    s.ratios.forEach(function (p) { span = Math.max(span, Math.ceil(Math.abs(Math.log2(p.ratio)) - 1e-9)); });
  });
  var fy = function (r) { return Math.min(Math.max((Math.log2(r) + span) / (2 * span), 0), 1); };
  for (var e = -span; e <= span; ++e) f.gridY(fy(Math.pow(2, e)), sig(Math.pow(2, e), 3) + 'x', e === 0);
  f.box();
  f.labels('cases, sorted by ratio (share of the cases compared)', 'time / reference time (above 1: slower)');
  series.forEach(function (s) {
    var sorted = s.ratios.slice().sort(function (a, b) { return a.ratio - b.ratio; });
    sorted.forEach(function (p, k) {
      f.add(marker(shapeOf(s.i), f.x((k + 0.5) / sorted.length), f.y(fy(p.ratio)), 3.5,
                   {fill: colourOf(s.i), 'fill-opacity': 0.45, stroke: colourOf(s.i), 'stroke-width': 0.8})).appendChild(svgEl('title', {text: s.label + ': ' + p.name + ': ' + ratioText(p.ratio)}));
    });
    if (s.geomean > 0)
      f.add(svgEl('line', {x1: f.left, x2: kChartW - f.right, y1: f.y(fy(s.geomean)), y2: f.y(fy(s.geomean)),
                           stroke: colourOf(s.i), 'stroke-dasharray': '6,4'}));
  });
  f.legend(series.map(function (s) {
    return {i: s.i, text: s.label + ': geometric mean ' + ratioText(s.geomean) + ' over ' + s.ratios.length + ' cases'};
  }));
  return f.svg;
}

// Achieved TFLOPS against FLOPs per byte for every case with FLOPs, all systems on one chart, each under its own
// roofs (dashed: min(peak, bandwidth x intensity) per precision it ran). Half-transparent markers of different
// shapes, so one system's points do not hide the other's. Null when no case has FLOPs.
function rooflineChart(family, cases, bundles) {
  var sets = bundles.map(function (b, i) {
    var points = [], precisions = {};
    cases.forEach(function (k) {
      var r = k.r[i], c = r && r.counters;
      if (!c || typeof r.time_us !== 'number' || !(c.flops > 0) || !(c.bytes > 0)) return;
      var tflops = c.tflops > 0 ? c.tflops : c.flops / (r.time_us * 1e-6) / 1e12;
      points.push({name: k.short, intensity: c.flops / c.bytes, tflops: tflops});
      if (r.precision) precisions[r.precision] = true;
    });
    var roofs = Object.keys(precisions).sort().map(function (p) {
      return {precision: p, tflops: (b.peaks.tflops || {})[p]};
    }).filter(function (roof) { return roof.tflops > 0; });
    return {i: i, label: b.label, points: points, roofs: roofs, gbps: b.peaks.gb_per_s};
  });
  var all = [].concat.apply([], sets.map(function (s) { return s.points; }));
  if (!all.length) return null;
  var imin = Math.min.apply(null, all.map(function (p) { return p.intensity; }));
  var imax = Math.max.apply(null, all.map(function (p) { return p.intensity; }));
  var tmin = Math.min.apply(null, all.map(function (p) { return p.tflops; }));
  var tmax = Math.max.apply(null, all.map(function (p) { return p.tflops; }));
  sets.forEach(function (s) { s.roofs.forEach(function (roof) { tmax = Math.max(tmax, roof.tflops); }); });
  var ax = new LogAxis(imin, imax), ay = new LogAxis(tmin, tmax);
  var f = new Frame(family + ': roofline, achieved TFLOPS (median) against FLOPs per byte');
  logGrid(f, ax, ay);
  f.labels('arithmetic intensity (FLOPs per byte)', 'achieved TFLOPS');
  var labelled = {};
  sets.forEach(function (s) {
    s.roofs.forEach(function (roof) {
      var d = '';
      for (var k = 0; k <= 80; ++k) {
        var intensity = Math.pow(10, ax.lo + (ax.hi - ax.lo) * k / 80);
        var top = s.gbps > 0 ? Math.min(roof.tflops, s.gbps * 1e9 * intensity / 1e12) : roof.tflops;
        d += (k ? ' L' : 'M') + f.x(ax.frac(intensity)).toFixed(1) + ',' +
             f.y(Math.min(Math.max(ay.frac(top), 0), 1)).toFixed(1);
      }
      f.add(svgEl('path', {d: d, fill: 'none', stroke: colourOf(s.i), 'stroke-dasharray': '6,4'},
                  svgEl('title', {text: s.label + ': ' + roof.precision + ' peak ' + sig(roof.tflops, 4) + ' TFLOPS' +
                                        (s.gbps > 0 ? ', ' + sig(s.gbps, 4) + ' GB/s' : '')})));
      var key = roof.precision + ' ' + roof.tflops;
      if (labelled[key]) return;  // the same peak on several systems: one label
      labelled[key] = true;
      f.add(svgEl('text', {x: kChartW - f.right - 4, y: f.y(ay.frac(roof.tflops)) - 4, 'text-anchor': 'end',
                           fill: colourOf(s.i), text: roof.precision + ' peak ' + sig(roof.tflops, 4) + ' TFLOPS'}));
    });
  });
  sets.forEach(function (s) {
    s.points.forEach(function (p) {
      f.add(marker(shapeOf(s.i), f.x(ax.frac(p.intensity)), f.y(ay.frac(p.tflops)), 3.5,
                   {fill: colourOf(s.i), 'fill-opacity': 0.4, stroke: colourOf(s.i), 'stroke-width': 0.8}))
        .appendChild(svgEl('title', {text: s.label + ': ' + p.name + ': ' + sig(p.tflops, 4) + ' TFLOPS at ' +
                                           sig(p.intensity, 4) + ' FLOPs/byte'}));
    });
  });
  f.legend(sets.filter(function (s) { return s.points.length; })
               .map(function (s) { return {i: s.i, text: s.label + ' (' + s.points.length + ' cases)'}; }));
  return f.svg;
}

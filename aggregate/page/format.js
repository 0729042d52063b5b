// Numbers as the page prints them, and how a verdict looks. No DOM here: test/aggregate/page_script_test.js
// runs these functions in Node.

// d significant digits, no trailing zeros: 187.654 -> "187.65" with d = 5; '-' for no number.
function sig(v, d) {
  if (typeof v !== 'number' || !isFinite(v)) return '-';
  return String(Number(v.toPrecision(d)));
}

function pct(v) { return typeof v === 'number' && isFinite(v) ? (100 * v).toFixed(1) + '%' : '-'; }

// A time ratio with three decimals near 1, so a 0.4% change reads 1.004x and not 1x; fewer past 10x.
function ratioText(r) {
  if (typeof r !== 'number' || !isFinite(r)) return '-';
  return (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(2) : r.toFixed(3)) + 'x';
}

// A relative error with its sign and one decimal, as `opmark-aggregate scores` prints it: -0.028 -> "-2.8%".
function errorText(e) {
  if (typeof e !== 'number' || !isFinite(e)) return '-';
  return (e >= 0 ? '+' : '') + (100 * e).toFixed(1) + '%';
}

// A value of system.yaml or the run's context: a number printed with C's %f (six decimals: "989.400000") loses its
// trailing zeros; any other text stays as it is ("13.0" is a version, not a number).
function fieldText(v) {
  var s = String(v);
  return /^-?\d+\.\d{6}$/.test(s) ? String(Number(s)) : s;
}

function median(values) {
  var v = values.slice().sort(function (a, b) { return a - b; });
  var n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A case's relative spread on one system: the run's own `noise` counter (median absolute deviation over the
// median) where it has one, else the same computed from its repetitions (three at least); null when unknown.
function caseNoise(r) {
  if (!r) return null;
  var c = r.counters || {};
  if (typeof c.noise === 'number' && c.noise >= 0) return c.noise;
  var times = (r.reps || []).map(function (p) { return p.time_us; })
                            .filter(function (t) { return typeof t === 'number' && t > 0; });
  if (times.length < 3) return null;
  var m = median(times);
  return median(times.map(function (t) { return Math.abs(t - m); })) / m;
}

// How a ratio cell shows a case's verdict against the reference: {cls, mark, why}. The verdict (same, faster,
// slower, unclear) and its words come in the page's data, computed by opmark-aggregate with compare's rule
// (aggregate/verdict.h); the page judges nothing itself. None (a single system): an uncoloured cell.
function verdictLook(v) {
  if (!v || typeof v.verdict !== 'string') return {cls: '', mark: '', why: ''};
  return {cls: v.verdict === 'same' ? '' : v.verdict, mark: v.verdict === 'unclear' ? ' ?' : '', why: v.detail || ''};
}

// "m=256" before "m=1024": digit runs compare as numbers.
function naturalCompare(a, b) {
  var re = /(\d+)|(\D+)/g, x = String(a).match(re) || [], y = String(b).match(re) || [];
  for (var i = 0; i < Math.min(x.length, y.length); ++i) {
    if (x[i] === y[i]) continue;
    var nx = /^\d/.test(x[i]), ny = /^\d/.test(y[i]);
    if (nx && ny) return Number(x[i]) - Number(y[i]);
    return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

// Numbers as the page prints them, and the verdict on a time ratio. No DOM here: test/aggregate/page_script_test.js
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

// A change counts only beyond kNoiseFactor times the two sides' combined spread, and never under kChangeFloor;
// with a side's spread unknown, only beyond kUnknownNoiseChange (compare's default threshold).
var kNoiseFactor = 3, kChangeFloor = 0.01, kUnknownNoiseChange = 0.05;

// The verdict on ratio = time / reference time: {cls: 'slower' | 'faster' | '', why: text for the cell's title}.
function ratioVerdict(ratio, noise, refNoise) {
  if (typeof ratio !== 'number' || !isFinite(ratio) || ratio <= 0) return {cls: '', why: ''};
  var known = typeof noise === 'number' && typeof refNoise === 'number';
  var limit = known ? Math.max(kChangeFloor, kNoiseFactor * Math.sqrt(noise * noise + refNoise * refNoise))
                    : kUnknownNoiseChange;
  var change = ratio - 1;
  var said = (change >= 0 ? '+' : '') + (100 * change).toFixed(2) + '% ';
  var rule = known ? 'limit ' + (100 * limit).toFixed(2) + '% (' + kNoiseFactor + 'x the spreads ' + pct(noise) +
                     ' and ' + pct(refNoise) + ' combined, at least ' + pct(kChangeFloor) + ')'
                   : 'limit ' + pct(kUnknownNoiseChange) + ' (a spread unknown)';
  if (Math.abs(change) <= limit) return {cls: '', why: said + 'is within the noise: ' + rule};
  return {cls: change > 0 ? 'slower' : 'faster', why: said + (change > 0 ? 'slower' : 'faster') + ': ' + rule};
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

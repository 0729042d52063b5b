// The headline's predicted against measured speedup: each other system over the reference, per model and per area,
// as opmark-aggregate computed it (aggregate/speedup.h, page_speedup.h). The script only shows the numbers; which
// error misses its bar comes in the data too.

function msText(v) { return sig(v, 5) + ' ms'; }

// Why a score is partial: how many cases each side's score lacks.
function partialWhy(r, a, b) {
  var parts = [];
  if (r.missing_a > 0) parts.push('the score on ' + a.label + ' lacks ' + r.missing_a + ' case(s)');
  if (r.missing_b > 0) parts.push('the score on ' + b.label + ' lacks ' + r.missing_b + ' case(s)');
  return 'partial: ' + parts.join(', ') + ' it needs (not measured), so its ratio leaves out part of its time';
}

function speedupRow(r, isArea, bar, a, b) {
  var nameCell = el('td', null, isArea ? 'area ' + r.name : r.name);
  if (isArea) {
    nameCell.appendChild(document.createTextNode(' (' + r.models_with_real + '/' + r.models + ')'));
    nameCell.title = r.models_with_real + ' of the area\'s ' + r.models + ' models have measured times on both ' +
                     'GPUs: the measured ratio is over their mean real times, the error over their scores';
  }
  if (r.partial)
    nameCell.appendChild(el('small', {class: 'partial', title: partialWhy(r, a, b), text: ' partial'}));
  var predicted = typeof r.predicted === 'number'
    ? el('td', {class: 'num', title: 'score ' + msText(r.score_b) + ' / ' + msText(r.score_a),
                text: ratioText(r.predicted)})
    : el('td', {class: 'num', title: 'no score on ' + (r.score_a > 0 ? b.label : a.label) + ': none of the ' +
                                     (isArea ? 'area\'s' : 'model\'s') + ' cases measured', text: '-'});
  var measured = typeof r.real === 'number'
    ? el('td', {class: 'num', title: 'real time (' + r.real_kind + ') ' + msText(r.real_b) + ' / ' + msText(r.real_a),
                text: ratioText(r.real)})
    : el('td', {class: 'num none', title: 'no measured speedup: ' + r.why_not});
  var error = typeof r.error === 'number'
    ? el('td', {class: 'num' + (r.miss ? ' miss' : ''),
                title: (r.miss ? 'beyond' : 'within') + ' the ' + sig(100 * bar, 3) + '% bar of ' +
                       (isArea ? 'an area' : 'a model'),
                text: errorText(r.error) + (r.miss ? ' \u2717' : '')})
    : el('td', {class: 'num none',
                title: typeof r.real === 'number' ? 'no error: a side has no score' : 'no error: no measured speedup'});
  return el('tr', null, nameCell, predicted, measured, el('td', {text: r.real_kind}), error);
}

// One pair: system b (the page's i-th, in its colour) over the reference a.
function speedupTable(pair, bars, a, b, i) {
  var head = el('tr', null, el('th', {text: 'model'}), el('th', {text: 'predicted'}), el('th', {text: 'measured'}),
                el('th', {text: 'real time'}), el('th', {text: 'error'}));
  var rows = pair.models.map(function (r) { return speedupRow(r, false, bars.model, a, b); })
    .concat(pair.areas.map(function (r) { return speedupRow(r, true, bars.area, a, b); }));
  return el('table', {class: 'speedup'},
    el('caption', null, el('span', {class: 'swatch', style: 'background: ' + colourOf(i)}),
       b.label + ' (B) over ' + a.label + ' (A)'),
    el('thead', null, head), el('tbody', null, rows));
}

// Every other system over the reference; null where the page has one system.
function speedupSection(speedups, bundles, ref) {
  if (!speedups || bundles.length < 2) return null;
  var bars = speedups.bars;
  var box = el('div', null, el('p', {text: 'Predicted: the ratio of the scores (each run scored as ' +
    '`opmark-aggregate scores` scores it, with the models of its rules; a checked bundle\'s scores.json holds the ' +
    'same); measured: the ratio of the real ' +
    'models\' times where the model tables have a measured entry of both GPUs (a CUDA-graph replay, or the ' +
    'profiler\'s kernel time; blank otherwise, hover it for why). Ratios of times: below 1, faster than ' +
    bundles[ref].label + '. Error: predicted / measured - 1, marked \u2717 beyond ' + sig(100 * bars.model, 3) +
    '% for a model and ' + sig(100 * bars.area, 3) + '% for an area. An area\'s (k/n): k of its n models have ' +
    'measured times on both GPUs. A partial score lacks cases the model needs (hover it for how many).'}));
  var tables = el('div', {class: 'charts'});
  bundles.forEach(function (b, i) {
    if (i === ref) return;
    var pair = speedups.pairs[ref][i];
    if (pair && pair.error) tables.appendChild(el('p', {class: 'note', text: pair.error}));
    else if (pair) {
      if (pair.commits_note) tables.appendChild(el('p', {class: 'note', text: pair.commits_note}));
      tables.appendChild(speedupTable(pair, bars, bundles[ref], b, i));
    }
  });
  box.appendChild(tables);
  return box;
}

// A case's details, opened under its row: the systems side by side, each with its repetitions, spread, GPU state
// (clock, power, energy), verification, label and every counter of its median line.

function list(v) { return v && v.length ? v.join(', ') : '-'; }

function counterText(c, key, digits, unit) {
  return typeof c[key] === 'number' ? sig(c[key], digits) + (unit ? ' ' + unit : '') : '-';
}

function systemDetail(k, b, i) {
  var r = k.r[i];
  var h = el('h4', {style: 'color: ' + colourOf(i), text: b.label + ' (' + b.id + ')'});
  if (!r) return el('div', {class: 'system-detail'}, h, el('p', {text: 'not in this system\'s results'}));
  var c = r.counters || {};
  var noise = caseNoise(r);
  var rows = [['status', r.status + (r.reason ? ': ' + r.reason : '')],
              ['median time us', sig(r.median, 6)], ['mean time us', sig(r.mean, 6)],
              ['repetitions us (iterations)', r.reps.length ? r.reps.map(function (p) {
                return sig(p.time_us, 6) + (p.iterations ? ' (x' + p.iterations + ')' : '');
              }).join(', ') : '-'],
              ['spread (MAD / median)', noise === null ? '-' : pct(noise) +
                                        (typeof c.noise === 'number' ? '' : ' (from the repetitions)')],
              ['library default us', typeof r.default_us === 'number' ? sig(r.default_us, 6) : '-'],
              ['SM clock MHz', counterText(c, 'sm_clock_mhz', 5)],
              ['power W', counterText(c, 'power_w', 4)],
              ['energy per op', energy(r) || '-'],
              ['verification', r.verification || '-'], ['label', r.label || '-'],
              ['sets', list(r.sets)], ['models', list(r.models)], ['applications', list(r.applications)]];
  var counters = Object.keys(c).sort().map(function (name) {
    return el('tr', null, el('td', {text: name}), num(sig(c[name], 6)));
  });
  return el('div', {class: 'system-detail'}, h,
            el('table', null, rows.map(function (p) { return el('tr', null, el('td', {text: p[0]}), el('td', {text: p[1]})); })),
            counters.length ? el('table', null, el('caption', {text: 'counters (median line)'}), counters) : null);
}

function details(k, bundles) {
  return el('div', null, el('h3', {class: 'case', text: k.name}),
            el('div', {class: 'details', style: 'grid-template-columns: repeat(' + bundles.length + ', minmax(0, 1fr))'},
               bundles.map(function (b, i) { return systemDetail(k, b, i); })));
}

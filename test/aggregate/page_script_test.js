// The results page's script (aggregate/page/*.js) outside a browser: every file compiles (what `node --check` does),
// the files joined as the page joins them compile in strict mode, and the formatting functions of format.js give
// what the page promises, and verdicts are taken from the page's data, not computed. Run as
//   node page_script_test.js aggregate/page/format.js aggregate/page/dom.js ...   (the page's order, format.js first)
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const files = process.argv.slice(2);
if (!files.length || path.basename(files[0]) !== 'format.js') {
  console.error('usage: node page_script_test.js <aggregate/page/format.js> <the other scripts...>');
  process.exit(2);
}

// Syntax: each file alone, then all of them inside the page's function (aggregate/page_html.cpp).
const sources = files.map((f) => fs.readFileSync(f, 'utf8'));
sources.forEach((text, i) => new vm.Script(text, {filename: files[i]}));
new vm.Script("(function () {\n'use strict';\n" + sources.join('\n') + '\n})();', {filename: 'the joined page script'});
// The page embeds the script in a <script> element: text that would end or confuse it must not occur.
sources.forEach((text, i) => {
  for (const bad of ['</script', '<!--']) assert(!text.toLowerCase().includes(bad), files[i] + ' holds ' + bad);
});

// format.js has no DOM: its functions run here as the page runs them.
const f = {};
vm.createContext(f);
vm.runInContext(sources[0], f, {filename: files[0]});
let checks = 0;
function eq(actual, expected, what) {
  assert.deepStrictEqual(actual, expected, what);
  ++checks;
}

eq(f.sig(187.654, 5), '187.65', 'sig');
eq(f.sig(null, 5), '-', 'sig of nothing');
// A 0.4% change must show: three decimals near 1.
eq(f.ratioText(1.0043), '1.004x', 'ratio 1.0043');
eq(f.ratioText(0.70329), '0.703x', 'ratio 0.703');
eq(f.ratioText(1), '1.000x', 'ratio 1');
eq(f.ratioText(12.5), '12.50x', 'ratio past 10');
eq(f.ratioText(250.4), '250x', 'ratio past 100');
// An error as `scores` prints it (%+.1f%%): signed, one decimal, a small negative one still "-0.0%".
eq(f.errorText(-0.028), '-2.8%', 'a negative error');
eq(f.errorText(0.0051), '+0.5%', 'a positive error');
eq(f.errorText(-0.0003), '-0.0%', 'a negative error that rounds to zero');
eq(f.errorText(null), '-', 'no error');
// %f numbers lose their trailing zeros; versions stay as written.
eq(f.fieldText('989.400000'), '989.4', 'a peak');
eq(f.fieldText('13.0'), '13.0', 'a version');
eq(f.fieldText('NVIDIA H200'), 'NVIDIA H200', 'text');
// Spread: the run's noise counter, else MAD / median of the repetitions (three at least).
eq(f.caseNoise({counters: {noise: 0.02}, reps: []}), 0.02, 'noise counter');
eq(f.caseNoise({counters: {}, reps: [100, 101, 99, 100, 102].map((t) => ({time_us: t}))}), 0.01, 'noise of reps');
eq(f.caseNoise({counters: {}, reps: [{time_us: 1}, {time_us: 2}]}), null, 'two reps: unknown');
// Verdicts come in the page's data (aggregate/verdict.h computes them); the script only shows them. (Spread into an
// object of this realm: deepStrictEqual compares prototypes too.)
const look = (v) => ({...f.verdictLook(v)});
eq(look({verdict: 'slower', detail: 'slower: +5.00% in time'}),
   {cls: 'slower', mark: '', why: 'slower: +5.00% in time'}, 'slower coloured, its words in the title');
eq(look({verdict: 'faster', detail: 'x'}).cls, 'faster', 'faster coloured');
eq(look({verdict: 'same', detail: 'x'}).cls, '', 'same uncoloured');
eq(look({verdict: 'unclear', detail: 'x'}), {cls: 'unclear', mark: ' ?', why: 'x'}, 'unclear marked');
eq(look(null), {cls: '', mark: '', why: ''}, 'no verdict (one system)');
assert(!/kNoiseFactor|kChangeFloor|ratioVerdict/.test(sources.join('\n')), 'no threshold of its own in the script');
// Natural order: numbers in names compare as numbers.
eq(f.naturalCompare('m=256', 'm=1024') < 0, true, 'm=256 before m=1024');
eq(f.naturalCompare('fwd/m=2', 'bwd/m=1') > 0, true, 'text first');
console.log('page script: ' + files.length + ' files compile; ' + checks + ' checks of format.js passed');

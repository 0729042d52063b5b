// Building elements. Text goes in through textContent or text nodes, never innerHTML, so no result can inject markup.

// One colour and one marker shape per system, by its position in the bundles (not by the reference chosen), so a
// GPU looks the same in every table and chart. The colours are aggregate/plots.cpp's palette.
var colours = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
var markerShapes = ['circle', 'square', 'triangle', 'diamond', 'cross', 'triangle-down'];
function colourOf(i) { return colours[i % colours.length]; }
function shapeOf(i) { return markerShapes[i % markerShapes.length]; }

function appendKids(e, kids) {  // children: nodes, text, or (nested) lists of them; null and undefined skipped
  for (var i = 0; i < kids.length; ++i) {
    var k = kids[i];
    if (k === null || k === undefined) continue;
    if (Array.isArray(k)) appendKids(e, k);
    else e.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
  }
}

function setAttrs(e, attrs) {
  for (var k in attrs || {}) {
    if (attrs[k] === null || attrs[k] === undefined) continue;
    if (k === 'text') e.textContent = attrs[k];
    else if (k === 'class') e.setAttribute('class', attrs[k]);
    else if (k === 'onclick') e.addEventListener('click', attrs[k]);
    else if (k === 'onchange') e.addEventListener('change', attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
}

// el('td', {class: 'num', text: '1.5'}) or el('tr', null, cell, [cells], ...).
function el(tag, attrs) {
  var e = document.createElement(tag);
  setAttrs(e, attrs);
  appendKids(e, [].slice.call(arguments, 2));
  return e;
}

// The same for SVG: svgEl('circle', {cx: 1, cy: 2, r: 3}, svgEl('title', {text: '...'})).
function svgEl(tag, attrs) {
  var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttrs(e, attrs);
  appendKids(e, [].slice.call(arguments, 2));
  return e;
}

// A marker of `shape` centred at (x, y), radius about r.
function marker(shape, x, y, r, attrs) {
  var pts = function (list) {
    return list.map(function (p) { return (x + p[0] * r).toFixed(1) + ',' + (y + p[1] * r).toFixed(1); }).join(' ');
  };
  var e;
  if (shape === 'square') e = svgEl('rect', {x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7});
  else if (shape === 'triangle') e = svgEl('polygon', {points: pts([[0, -1.2], [1.05, 0.7], [-1.05, 0.7]])});
  else if (shape === 'triangle-down') e = svgEl('polygon', {points: pts([[0, 1.2], [1.05, -0.7], [-1.05, -0.7]])});
  else if (shape === 'diamond') e = svgEl('polygon', {points: pts([[0, -1.25], [1.25, 0], [0, 1.25], [-1.25, 0]])});
  else if (shape === 'cross')
    e = svgEl('polygon', {points: pts([[-0.35, -1.1], [0.35, -1.1], [0.35, -0.35], [1.1, -0.35], [1.1, 0.35],
                                       [0.35, 0.35], [0.35, 1.1], [-0.35, 1.1], [-0.35, 0.35], [-1.1, 0.35],
                                       [-1.1, -0.35], [-0.35, -0.35]])});
  else e = svgEl('circle', {cx: x, cy: y, r: r});
  setAttrs(e, attrs);
  return e;
}

function clear(id) {
  var box = document.getElementById(id);
  while (box.firstChild) box.removeChild(box.firstChild);
  return box;
}

// The graph page of `irlite inspect --html` and `irlite bench --profile --html`: draws the
// model document (the JSON of `inspect --json`, in the element #irlite-model) as SVG, laid out
// by d3-dag's Sugiyama layout. Every text taken from the model reaches the page through
// textContent or setAttribute, never as markup.
'use strict';
(function () {
  const started = performance.now();
  const timings = {};
  const doc = JSON.parse(document.getElementById('irlite-model').textContent);
  timings.parse = performance.now() - started;
  const layers = doc.layers;
  const SVG = 'http://www.w3.org/2000/svg';
  const WIDTH = 210, LINE = 15, PAD = 6, NAME_CHARS = 30;

  // Control characters and the marks that reorder text shown as escapes, as the command's
  // terminal output shows them.
  function visible(text) {
    return String(text).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, (c) => {
      const named = {'\n': '\\n', '\r': '\\r', '\t': '\\t'};
      if (c in named) return named[c];
      const code = c.charCodeAt(0);
      return code < 0x100 ? '\\x' + code.toString(16).padStart(2, '0')
                          : '\\u' + code.toString(16).padStart(4, '0');
    });
  }
  function clip(text, n) {
    const v = visible(text);
    return v.length > n ? v.slice(0, n - 1) + '\u2026' : v;
  }
  function el(name, attrs, text) {
    const e = document.createElement(name);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(name, attrs, text) {
    const e = document.createElementNS(SVG, name);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function typeOf(l) {
    if (l.version > 0) return l.type + '-' + l.version;
    return l.opset ? l.type + ' (' + l.opset + ')' : l.type;
  }
  function where(d) {
    let s = d.file || '';
    if (d.line !== null) s += ':' + d.line + (d.column !== null ? ':' + d.column : '');
    return s;
  }

  // The layers by id, who reads each, and which Consts are drawn as labels of their readers.
  const index = new Map();
  layers.forEach((l, i) => index.set(l.id, i));
  const readers = layers.map(() => []);
  layers.forEach((l, i) => {
    for (const input of l.inputs) {
      const from = index.get(input.from_layer);
      if (from !== undefined) readers[from].push(i);
    }
  });
  const asLabel = layers.map((l, i) => l.type === 'Constant' && readers[i].length > 0 &&
                                       readers[i].every((r) => layers[r].type !== 'Result'));
  function outputOf(i, port) {
    for (const o of layers[i].outputs) if (o.port === port) return o;
    return null;
  }

  // Problems and warnings by layer; the others go to the banner.
  const notes = layers.map(() => []);
  const loose = [];
  for (const kind of ['problems', 'warnings']) {
    for (const d of doc[kind]) {
      const i = d.layer_id !== null ? index.get(d.layer_id) : undefined;
      (i !== undefined ? notes[i] : loose).push({kind: kind === 'problems' ? 'problem' : 'warning', d});
    }
  }

  // The profile (bench --profile --html): each layer's median time and share of the run.
  const timing = new Map();
  let maxShare = 0;
  if (doc.profile) {
    for (const p of doc.profile.layers) {
      const i = index.get(p.id);
      if (i === undefined) continue;
      timing.set(i, p);
      maxShare = Math.max(maxShare, p.share);
    }
  }
  function formatTime(ns) {
    if (ns < 1e3) return ns.toFixed(0) + ' ns';
    if (ns < 1e6) return (ns / 1e3).toFixed(1) + ' us';
    if (ns < 1e9) return (ns / 1e6).toFixed(2) + ' ms';
    return (ns / 1e9).toFixed(2) + ' s';
  }

  // What a layer's box says and how it is marked.
  function status(i) {
    const l = layers[i];
    const s = [];
    const problems = notes[i].filter((n) => n.kind === 'problem');
    if (l.version === 0 || problems.some((n) => n.d.code === 'unsupported')) s.push('unsupported');
    if (problems.length) s.push('problem');
    if (notes[i].some((n) => n.kind === 'warning')) s.push('warning');
    if (l.outputs.some((o) => 'declared_shape' in o)) s.push('declared');
    if (l.folded && l.type !== 'Constant') s.push('folded');
    if (!l.reaches_result) s.push('dead');
    if (l.fused_into !== null) s.push('fused');
    return s;
  }
  function boxLines(i) {
    const l = layers[i];
    const lines = [{text: clip(typeOf(l), NAME_CHARS), cls: 'type'},
                   {text: clip(l.name, NAME_CHARS), cls: 'name'}];
    const consts = l.inputs.map((input) => index.get(input.from_layer))
                       .filter((c) => c !== undefined && asLabel[c]);
    consts.slice(0, 3).forEach((c) => {
      const o = layers[c].outputs[0];
      lines.push({text: clip((o ? o.element_type + ' ' + o.shape : '') + ' ' + layers[c].name, NAME_CHARS + 4), cls: 'const'});
    });
    if (consts.length > 3) lines.push({text: '+' + (consts.length - 3) + ' Consts', cls: 'const'});
    for (const o of l.outputs)
      if ('declared_shape' in o) lines.push({text: clip('declared ' + o.declared_shape + ', inferred ' + o.shape, NAME_CHARS + 4), cls: 'note'});
    if (l.folded && l.type !== 'Constant') lines.push({text: 'folded at load', cls: 'note'});
    if (!l.reaches_result) lines.push({text: 'not run: reaches no Result', cls: 'note'});
    if (l.fused_into !== null) lines.push({text: 'fused into ' + l.fused_into, cls: 'note'});
    for (const n of notes[i].slice(0, 2)) lines.push({text: clip(n.kind + ' ' + where(n.d), NAME_CHARS + 4), cls: 'note ' + n.kind});
    if (timing.has(i)) {
      const p = timing.get(i);
      lines.push({text: formatTime(p.median_ns) + ', ' + p.share.toFixed(1) + '%', cls: 'time'});
    }
    return lines;
  }

  // The layout: Consts drawn as labels leave the graph; each edge once per pair of layers.
  const drawn = [];
  layers.forEach((l, i) => { if (!asLabel[i]) drawn.push(i); });
  const lines = new Map();
  const data = drawn.map((i) => {
    lines.set(i, boxLines(i));
    const parents = new Set();
    for (const input of layers[i].inputs) {
      const from = index.get(input.from_layer);
      if (from !== undefined && !asLabel[from]) parents.add(String(from));
    }
    return {id: String(i), parentIds: [...parents]};
  });
  timings.prepare = performance.now() - started - timings.parse;

  // Where everything lies, in the graph's coordinates: each laid-out layer's box (its centre and
  // height) by layer index, and each edge (its points, the shapes it carries, its bounds).
  const boxes = new Map();
  const edges = [];
  let size = {width: 0, height: 0};
  if (data.length) {
    let before = performance.now();
    const dag = d3.graphStratify()(data);
    timings.stratify = performance.now() - before;
    // Two-layer crossing reduction is the better picture; on thousands of layers the depth-first
    // order keeps the layout within a second.
    const decross = data.length > 1500 ? d3.decrossDfs() : d3.decrossTwoLayer();
    const layout = d3.sugiyama()
                       .layering(d3.layeringLongestPath())
                       .decross(decross)
                       .coord(d3.coordGreedy())
                       .nodeSize((node) => [WIDTH, lines.get(Number(node.data.id)).length * LINE + 2 * PAD])
                       .gap([22, 34]);
    before = performance.now();
    size = layout(dag);
    timings.layout = performance.now() - before;

    before = performance.now();
    for (const node of dag.nodes()) {
      const i = Number(node.data.id);
      boxes.set(i, {x: node.x, y: node.y, h: lines.get(i).length * LINE + 2 * PAD});
    }
    // Moves pts[end], the centre of box `b`, to where the segment towards pts[other] leaves it.
    function border(pts, end, other, b) {
      if (other < 0 || other >= pts.length) return;
      const dx = pts[other][0] - b.x, dy = pts[other][1] - b.y;
      const t = Math.min(dx ? WIDTH / 2 / Math.abs(dx) : Infinity, dy ? b.h / 2 / Math.abs(dy) : Infinity);
      if (t < 1) pts[end] = [b.x + dx * t, b.y + dy * t];
    }
    for (const link of dag.links()) {
      const from = Number(link.source.data.id), to = Number(link.target.data.id);
      // The ends cut back to the boxes' borders, so that the arrowhead shows.
      const pts = link.points.map((p) => [p[0], p[1]]);
      border(pts, 0, 1, boxes.get(from));
      border(pts, pts.length - 1, pts.length - 2, boxes.get(to));
      // The shape of the output read, beside the edge's first stretch.
      const shapes = [];
      for (const input of layers[to].inputs) {
        if (index.get(input.from_layer) !== from) continue;
        const o = outputOf(from, input.from_port);
        if (o && !shapes.includes(o.shape)) shapes.push(o.shape);
      }
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const [x, y] of pts) {
        x0 = Math.min(x0, x); x1 = Math.max(x1, x);
        y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
      let label = null;
      if (shapes.length) {
        label = {x: (pts[0][0] + pts[1][0]) / 2 + 4, y: (pts[0][1] + pts[1][1]) / 2 + 4, text: clip(shapes.join(' '), 40)};
        x1 = Math.max(x1, label.x + 7 * label.text.length);  // 10px monospace, ~6px a character, with room
      }
      edges.push({from, to, pts, label, bounds: [x0 - 8, y0 - 8, x1 + 8, y1 + 8]});
    }
    timings.geometry = performance.now() - before;
  }

  // Only what lies in or near the window is in the DOM: the boxes and edges whose bounds meet
  // the view grown by half its size on each side, found through bands of the graph's height.
  // When that is more than DETAIL_LIMIT boxes (zoomed far out), the boxes are drawn as bare
  // rectangles and the edges as lines, a few paths in all, and a click zooms in on a box.
  const BAND = 400, DETAIL_LIMIT = 1000;
  const boxBands = [], edgeBands = [];
  function addToBands(bands, y0, y1, item) {
    for (let b = Math.max(0, Math.floor(y0 / BAND)), last = Math.floor(y1 / BAND); b <= last; ++b)
      (bands[b] || (bands[b] = [])).push(item);
  }
  for (const [i, b] of boxes) addToBands(boxBands, b.y - b.h / 2, b.y + b.h / 2, i);
  edges.forEach((e, n) => addToBands(edgeBands, e.bounds[1], e.bounds[3], n));

  const graphLayer = document.getElementById('graph');
  const overviewLayer = svg('g', {class: 'overview'});
  const edgeLayer = svg('g', {class: 'edges'});
  const nodeLayer = svg('g', {class: 'nodes'});
  graphLayer.append(overviewLayer, edgeLayer, nodeLayer);
  const shownBoxes = new Map();  // layer index -> its <g class="layer">
  const shownEdges = new Map();  // edge number -> its path and shape label
  let overview = false;
  let selected = null;
  let matchSet = new Set();

  function heatStyle(i) {
    if (!timing.has(i) || maxShare <= 0) return null;
    const heat = timing.get(i).share / maxShare;
    return 'fill: hsl(' + (50 - 50 * heat).toFixed(0) + ', 95%, ' + (92 - 30 * heat).toFixed(0) + '%)';
  }
  function boxElement(i) {
    const b = boxes.get(i);
    const ls = lines.get(i);
    const cls = ['layer', ...status(i)];
    if (matchSet.has(i)) cls.push('match');
    if (selected === i) cls.push('selected');
    const g = svg('g', {class: cls.join(' '), 'data-index': i,
                        transform: 'translate(' + (b.x - WIDTH / 2).toFixed(1) + ',' + (b.y - b.h / 2).toFixed(1) + ')'});
    const rect = svg('rect', {width: WIDTH, height: b.h, rx: 4});
    const heat = heatStyle(i);
    if (heat) rect.setAttribute('style', heat);
    g.append(rect);
    ls.forEach((line, n) => g.append(svg('text', {x: PAD, y: PAD + LINE * (n + 1) - 4, class: line.cls}, line.text)));
    g.append(svg('title', null, visible(typeOf(layers[i]) + ' ' + layers[i].name)));
    return g;
  }
  function edgeElements(n) {
    const e = edges[n];
    const made = [svg('path', {d: 'M' + e.pts.map((p) => p[0].toFixed(1) + ',' + p[1].toFixed(1)).join('L'),
                               class: 'edge', 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to})];
    if (e.label) made.push(svg('text', {x: e.label.x.toFixed(1), y: e.label.y.toFixed(1), class: 'shape'}, e.label.text));
    return made;
  }
  // The boxes and edges whose bounds meet the rectangle [x0, y0, x1, y1].
  function within(x0, y0, x1, y1) {
    const found = {boxes: new Set(), edges: new Set()};
    const first = Math.max(0, Math.floor(y0 / BAND));
    for (let b = first, last = Math.floor(y1 / BAND); b <= last && b < boxBands.length; ++b)
      for (const i of boxBands[b] || []) {
        const q = boxes.get(i);
        if (q.x + WIDTH / 2 >= x0 && q.x - WIDTH / 2 <= x1 && q.y + q.h / 2 >= y0 && q.y - q.h / 2 <= y1) found.boxes.add(i);
      }
    for (let b = first, last = Math.floor(y1 / BAND); b <= last && b < edgeBands.length; ++b)
      for (const n of edgeBands[b] || []) {
        const r = edges[n].bounds;
        if (r[2] >= x0 && r[0] <= x1 && r[3] >= y0 && r[1] <= y1) found.edges.add(n);
      }
    return found;
  }
  function drawOverview(found) {
    const groups = new Map();  // class and fill -> the rectangles' path
    for (const i of found.boxes) {
      const b = boxes.get(i);
      const keys = [['lod ' + status(i).join(' '), heatStyle(i)]];
      if (matchSet.has(i)) keys.push(['lod match', null]);
      if (selected === i) keys.push(['lod selected', null]);
      for (const [cls, style] of keys) {
        const key = cls + '|' + style;
        if (!groups.has(key)) groups.set(key, {cls, style, d: []});
        groups.get(key).d.push('M' + (b.x - WIDTH / 2).toFixed(0) + ',' + (b.y - b.h / 2).toFixed(0) + 'h' + WIDTH + 'v' + b.h.toFixed(0) + 'h-' + WIDTH + 'z');
      }
    }
    const strokes = [];
    for (const n of found.edges) strokes.push('M' + edges[n].pts.map((p) => p[0].toFixed(0) + ',' + p[1].toFixed(0)).join('L'));
    const made = [svg('path', {class: 'lod-edges', d: strokes.join('')})];
    // The marked boxes last, on top.
    const marked = (g) => g.cls === 'lod match' || g.cls === 'lod selected';
    for (const g of [...groups.values()].sort((a, b) => marked(a) - marked(b))) {
      const p = svg('path', {class: g.cls, d: g.d.join('')});
      if (g.style) p.setAttribute('style', g.style);
      made.push(p);
    }
    overviewLayer.replaceChildren(...made);
  }
  // Puts in the DOM what the view shows, and takes out what it no longer shows.
  function render() {
    renderPending = false;
    const w = view.clientWidth || 800, h = view.clientHeight || 600;
    const found = within((-tx - w / 2) / k, (-ty - h / 2) / k, (1.5 * w - tx) / k, (1.5 * h - ty) / k);
    if (found.boxes.size > DETAIL_LIMIT) {
      for (const g of shownBoxes.values()) g.remove();
      for (const made of shownEdges.values()) for (const e of made) e.remove();
      shownBoxes.clear();
      shownEdges.clear();
      overview = true;
      drawOverview(found);
      return;
    }
    if (overview) overviewLayer.replaceChildren();
    overview = false;
    for (const [i, g] of shownBoxes)
      if (!found.boxes.has(i)) { g.remove(); shownBoxes.delete(i); }
    for (const [n, made] of shownEdges)
      if (!found.edges.has(n)) { for (const e of made) e.remove(); shownEdges.delete(n); }
    const newBoxes = document.createDocumentFragment(), newEdges = document.createDocumentFragment();
    for (const i of found.boxes) {
      if (shownBoxes.has(i)) continue;
      const g = boxElement(i);
      shownBoxes.set(i, g);
      newBoxes.append(g);
    }
    for (const n of found.edges) {
      if (shownEdges.has(n)) continue;
      const made = edgeElements(n);
      shownEdges.set(n, made);
      newEdges.append(...made);
    }
    nodeLayer.append(newBoxes);
    edgeLayer.append(newEdges);
  }
  // The class of the boxes that are in the DOM, and the overview's marks, after a change.
  function mark(i, cls, on) {
    if (shownBoxes.has(i)) shownBoxes.get(i).classList.toggle(cls, on);
  }

  // Zoom and pan: one transform on the graph's group; what is drawn follows at the next frame.
  const view = document.getElementById('view');
  let k = 1, tx = 0, ty = 0;
  let renderPending = false;
  function apply(now) {
    graphLayer.setAttribute('transform', 'translate(' + tx + ',' + ty + ') scale(' + k + ')');
    if (now) render();
    else if (!renderPending) {
      renderPending = true;
      requestAnimationFrame(() => { if (renderPending) render(); });
    }
  }
  function fitView() {
    const w = view.clientWidth || 800, h = view.clientHeight || 600;
    k = Math.min(1.2, (w - 20) / Math.max(size.width, 1), (h - 20) / Math.max(size.height, 1));
    tx = (w - size.width * k) / 2;
    ty = (h - size.height * k) / 2;
  }
  function fit() {
    fitView();
    apply(true);
  }
  function centerOn(i) {
    const b = boxes.get(i);
    if (!b) return;
    if (k < 0.6) k = 1;
    tx = (view.clientWidth || 800) / 2 - b.x * k;
    ty = (view.clientHeight || 600) / 2 - b.y * k;
    apply(true);
  }
  view.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = view.getBoundingClientRect();
    const mx = e.clientX - r.left, my = e.clientY - r.top;
    const f = Math.exp(-e.deltaY * 0.0015);
    const nk = Math.min(8, Math.max(1e-4, k * f));
    tx = mx - (mx - tx) * (nk / k);
    ty = my - (my - ty) * (nk / k);
    k = nk;
    apply();
  }, {passive: false});
  let drag = null;
  view.addEventListener('pointerdown', (e) => {
    drag = {x: e.clientX - tx, y: e.clientY - ty, moved: false};
  });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    tx = e.clientX - drag.x;
    ty = e.clientY - drag.y;
    drag.moved = true;
    apply();
  });
  window.addEventListener('pointerup', () => { setTimeout(() => { drag = null; }, 0); });
  window.addEventListener('resize', () => apply());
  document.getElementById('fit').addEventListener('click', fit);

  // The details of a layer: every attribute, input, output, note and time.
  const details = document.getElementById('details');
  function table(rows, head) {
    const t = el('table');
    if (head) {
      const tr = el('tr');
      for (const h of head) tr.append(el('th', null, h));
      t.append(tr);
    }
    for (const row of rows) {
      const tr = el('tr');
      for (const cell of row) tr.append(el('td', null, cell));
      t.append(tr);
    }
    return t;
  }
  function layerName(i) { return layers[i].id + ' ' + visible(layers[i].name); }
  function select(i) {
    if (selected !== null) mark(selected, 'selected', false);
    selected = i;
    mark(i, 'selected', true);
    if (overview) render();
    const l = layers[i];
    details.replaceChildren();
    details.append(el('h2', null, typeOf(l)), el('p', {class: 'name'}, visible(l.name)));
    const facts = [['id', String(l.id)], ['line', doc.source + ':' + l.line]];
    if (l.folded) facts.push(['folded', 'computed while loading']);
    if (!l.reaches_result) facts.push(['not run', 'no Result depends on it']);
    if (l.fused_into !== null) facts.push(['fused into', String(l.fused_into)]);
    if (timing.has(i)) {
      const p = timing.get(i);
      facts.push(['time', formatTime(p.median_ns) + ' (median), ' + p.share.toFixed(1) + '% of the run']);
    }
    details.append(table(facts));
    for (const n of notes[i]) details.append(el('p', {class: 'diag ' + n.kind}, visible(n.d.text)));
    details.append(el('h3', null, 'attributes'));
    const attrs = Object.entries(l.attributes).map(([key, v]) => [visible(key), visible(v)]);
    details.append(attrs.length ? table(attrs) : el('p', null, 'none'));
    details.append(el('h3', null, 'inputs'));
    const ins = l.inputs.map((input) => {
      const from = index.get(input.from_layer);
      if (from === undefined) return [String(input.port), '?', ''];
      const o = outputOf(from, input.from_port);
      return [String(input.port), layerName(from) + ':' + input.from_port,
              o ? o.element_type + ' ' + o.shape : ''];
    });
    details.append(ins.length ? table(ins, ['port', 'from', 'type and shape']) : el('p', null, 'none'));
    for (const input of l.inputs) {
      const from = index.get(input.from_layer);
      if (from === undefined || !asLabel[from]) continue;
      const values = Object.entries(layers[from].attributes).map(([key, v]) => [visible(key), visible(v)]);
      details.append(el('h4', null, 'Const ' + layerName(from)), table(values));
    }
    details.append(el('h3', null, 'outputs'));
    const outs = l.outputs.map((o) => [String(o.port), o.element_type + ' ' + o.shape,
                                       'declared_shape' in o ? (o.declared_element_type || '') + ' ' + o.declared_shape : '',
                                       visible(o.tensor_names.join(', '))]);
    details.append(outs.length ? table(outs, ['port', 'inferred', 'declared (differs)', 'names']) : el('p', null, 'none'));
    const readBy = readers[i].map((r) => layerName(r));
    if (readBy.length) details.append(el('h3', null, 'read by'), el('p', null, readBy.join(', ')));
  }
  graphLayer.addEventListener('click', (e) => {
    if (drag && drag.moved) return;
    const g = e.target.closest('g.layer');
    if (g) {
      select(Number(g.getAttribute('data-index')));
      return;
    }
    if (!overviewLayer.contains(e.target)) return;
    // Zoomed out: the box under the pointer, selected and shown at full size.
    const r = view.getBoundingClientRect();
    const x = (e.clientX - r.left - tx) / k, y = (e.clientY - r.top - ty) / k;
    const slack = 3 / k;
    const near = within(x - slack, y - slack, x + slack, y + slack).boxes;
    if (!near.size) return;
    let best = null, bestDistance = Infinity;
    for (const i of near) {
      const b = boxes.get(i);
      const distance = Math.hypot(b.x - x, b.y - y);
      if (distance < bestDistance) { best = i; bestDistance = distance; }
    }
    centerOn(best);
    select(best);
  });

  // Search by name or type: every match marked, Enter goes to the next.
  const search = document.getElementById('search');
  const found = document.getElementById('found');
  let matches = [], current = -1;
  function find(query) {
    for (const i of matches) mark(i, 'match', false);
    matches = [];
    current = -1;
    const q = query.trim().toLowerCase();
    if (q) {
      const hit = new Set();
      layers.forEach((l, i) => {
        if (!(l.name.toLowerCase().includes(q) || typeOf(l).toLowerCase().includes(q))) return;
        // A Const drawn as a label is found at its readers.
        if (asLabel[i]) readers[i].forEach((r) => hit.add(r));
        else hit.add(i);
      });
      matches = [...hit].filter((i) => boxes.has(i)).sort((a, b) => a - b);
      for (const i of matches) mark(i, 'match', true);
    }
    matchSet = new Set(matches);
    if (overview) render();
    found.textContent = q ? matches.length + ' found' : '';
    return matches.length;
  }
  function next() {
    if (!matches.length) return;
    current = (current + 1) % matches.length;
    centerOn(matches[current]);
    select(matches[current]);
    found.textContent = (current + 1) + ' of ' + matches.length;
  }
  search.addEventListener('input', () => find(search.value));
  search.addEventListener('keydown', (e) => { if (e.key === 'Enter') next(); });

  // The header: the model's name, counts, and the problems that name no layer.
  document.title = 'irlite: ' + visible(doc.name || doc.source);
  document.getElementById('title').textContent = visible(doc.name || '(no model)');
  document.getElementById('source').textContent = visible(doc.source);
  document.getElementById('counts').textContent =
      layers.length + ' layers, ' + drawn.length + ' drawn (Consts as labels), ' +
      doc.problems.length + ' problems, ' + doc.warnings.length + ' warnings';
  const banner = document.getElementById('banner');
  for (const n of loose) banner.append(el('p', {class: 'diag ' + n.kind}, visible(n.d.text)));

  // The profile's table beside the graph, slowest first.
  if (doc.profile) {
    const side = document.getElementById('profile');
    side.hidden = false;
    side.append(el('h3', null, 'profile: median of ' + doc.profile.runs + ' runs, ' + formatTime(doc.profile.total_ns)));
    const t = table([], ['id', 'layer', 'type', 'time', 'share']);
    const rows = [...doc.profile.layers].sort((a, b) => b.median_ns - a.median_ns);
    for (const p of rows) {
      const i = index.get(p.id);
      if (i === undefined) continue;
      const tr = el('tr', {'data-index': i});
      for (const cell of [String(p.id), visible(layers[i].name), typeOf(layers[i]), formatTime(p.median_ns), p.share.toFixed(1) + '%'])
        tr.append(el('td', null, cell));
      tr.addEventListener('click', () => { centerOn(i); select(i); });
      t.append(tr);
    }
    side.append(t);
  }

  // The first view: the whole graph when it is legible so, else its top at full size.
  const first = performance.now();
  fitView();
  if (k < 0.35 && size.width > 0) {
    // Centred on the middle box of the top row: a wide graph's middle may be empty at its top.
    let top = Infinity;
    for (const b of boxes.values()) top = Math.min(top, b.y);
    const row = [...boxes.values()].filter((b) => b.y === top).map((b) => b.x).sort((a, b) => a - b);
    k = 1;
    tx = (view.clientWidth || 800) / 2 - row[Math.floor(row.length / 2)];
    ty = 10;
  }
  apply(true);
  timings.draw = performance.now() - first;
  const styled = performance.now();
  view.getBoundingClientRect();  // style and layout, counted in the drawing time
  timings.style = performance.now() - styled;
  const drawMs = performance.now() - started;
  document.body.setAttribute('data-draw-ms', drawMs.toFixed(1));
  document.body.setAttribute('data-since-start-ms', performance.now().toFixed(1));
  // For tests and the console: `drawn` counts the layers laid out as boxes, each with a place
  // (position(i)); `inDom()` the boxes in the DOM now, those in or near the view; show(i) moves
  // the view to layer i and tells whether its box is then in the DOM.
  window.irliteGraph = {
    layers: layers.length, drawn: boxes.size, edges: edges.length, drawMs, timings, select, find, next, fit,
    position: (i) => (boxes.has(i) ? {x: boxes.get(i).x, y: boxes.get(i).y, width: WIDTH, height: boxes.get(i).h} : null),
    show: (i) => { centerOn(i); return shownBoxes.has(i); },
    inDom: () => shownBoxes.size,
    overview: () => overview,
  };
})();

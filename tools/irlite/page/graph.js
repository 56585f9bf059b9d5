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
  const graphLayer = document.getElementById('graph');
  const edgeLayer = svg('g', {class: 'edges'});
  const nodeLayer = svg('g', {class: 'nodes'});
  graphLayer.append(edgeLayer, nodeLayer);
  const boxes = new Map();
  let size = {width: 0, height: 0};
  if (data.length) {
    const dag = d3.graphStratify()(data);
    // Two-layer crossing reduction is the better picture; on thousands of layers the depth-first
    // order keeps the layout within a second.
    const decross = data.length > 1500 ? d3.decrossDfs() : d3.decrossTwoLayer();
    const layout = d3.sugiyama()
                       .layering(d3.layeringLongestPath())
                       .decross(decross)
                       .coord(d3.coordGreedy())
                       .nodeSize((node) => [WIDTH, lines.get(Number(node.data.id)).length * LINE + 2 * PAD])
                       .gap([22, 34]);
    const before = performance.now();
    size = layout(dag);
    timings.layout = performance.now() - before;

    const heightOf = (node) => lines.get(Number(node.data.id)).length * LINE + 2 * PAD;
    // Moves pts[end], the centre of `node`, to where the segment towards pts[other] leaves
    // its box.
    function border(pts, end, other, node) {
      if (other < 0 || other >= pts.length) return;
      const dx = pts[other][0] - node.x, dy = pts[other][1] - node.y;
      const t = Math.min(dx ? WIDTH / 2 / Math.abs(dx) : Infinity,
                         dy ? heightOf(node) / 2 / Math.abs(dy) : Infinity);
      if (t < 1) pts[end] = [node.x + dx * t, node.y + dy * t];
    }
    const edges = document.createDocumentFragment();
    for (const link of dag.links()) {
      const from = Number(link.source.data.id), to = Number(link.target.data.id);
      // The ends cut back to the boxes' borders, so that the arrowhead shows.
      const pts = link.points.map((p) => [p[0], p[1]]);
      border(pts, 0, 1, link.source);
      border(pts, pts.length - 1, pts.length - 2, link.target);
      edges.append(svg('path', {d: 'M' + pts.map((p) => p[0].toFixed(1) + ',' + p[1].toFixed(1)).join('L'),
                                class: 'edge', 'marker-end': 'url(#arrow)'}));
      // The shape of the output read, beside the edge's first stretch.
      const shapes = [];
      for (const input of layers[to].inputs) {
        if (index.get(input.from_layer) !== from) continue;
        const o = outputOf(from, input.from_port);
        if (o && !shapes.includes(o.shape)) shapes.push(o.shape);
      }
      if (shapes.length) {
        const [x0, y0] = pts[0], [x1, y1] = pts[1];
        edges.append(svg('text', {x: ((x0 + x1) / 2 + 4).toFixed(1), y: ((y0 + y1) / 2 + 4).toFixed(1),
                                  class: 'shape'}, clip(shapes.join(' '), 40)));
      }
    }
    edgeLayer.append(edges);

    const nodes = document.createDocumentFragment();
    for (const node of dag.nodes()) {
      const i = Number(node.data.id);
      const ls = lines.get(i);
      const h = ls.length * LINE + 2 * PAD;
      const g = svg('g', {class: 'layer ' + status(i).join(' '), 'data-index': i,
                          transform: 'translate(' + (node.x - WIDTH / 2).toFixed(1) + ',' + (node.y - h / 2).toFixed(1) + ')'});
      const rect = svg('rect', {width: WIDTH, height: h, rx: 4});
      if (timing.has(i) && maxShare > 0) {
        const heat = timing.get(i).share / maxShare;
        rect.setAttribute('style', 'fill: hsl(' + (50 - 50 * heat).toFixed(0) + ', 95%, ' + (92 - 30 * heat).toFixed(0) + '%)');
      }
      g.append(rect);
      ls.forEach((line, k) => g.append(svg('text', {x: PAD, y: PAD + LINE * (k + 1) - 4, class: line.cls}, line.text)));
      g.append(svg('title', null, visible(typeOf(layers[i]) + ' ' + layers[i].name)));
      nodes.append(g);
      boxes.set(i, {g, x: node.x, y: node.y, h});
    }
    nodeLayer.append(nodes);
  }

  // Zoom and pan: one transform on the graph's group.
  const view = document.getElementById('view');
  let k = 1, tx = 0, ty = 0;
  function apply() { graphLayer.setAttribute('transform', 'translate(' + tx + ',' + ty + ') scale(' + k + ')'); }
  function fit() {
    const w = view.clientWidth || 800, h = view.clientHeight || 600;
    k = Math.min(1.2, (w - 20) / Math.max(size.width, 1), (h - 20) / Math.max(size.height, 1));
    tx = (w - size.width * k) / 2;
    ty = (h - size.height * k) / 2;
    apply();
  }
  function centerOn(i) {
    const b = boxes.get(i);
    if (!b) return;
    if (k < 0.6) k = 1;
    tx = (view.clientWidth || 800) / 2 - b.x * k;
    ty = (view.clientHeight || 600) / 2 - b.y * k;
    apply();
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
  document.getElementById('fit').addEventListener('click', fit);

  // The details of a layer: every attribute, input, output, note and time.
  const details = document.getElementById('details');
  let selected = null;
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
    if (selected !== null && boxes.has(selected)) boxes.get(selected).g.classList.remove('selected');
    selected = i;
    if (boxes.has(i)) boxes.get(i).g.classList.add('selected');
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
  nodeLayer.addEventListener('click', (e) => {
    if (drag && drag.moved) return;
    const g = e.target.closest('g.layer');
    if (g) select(Number(g.getAttribute('data-index')));
  });

  // Search by name or type: every match marked, Enter goes to the next.
  const search = document.getElementById('search');
  const found = document.getElementById('found');
  let matches = [], current = -1;
  function find(query) {
    for (const i of matches) if (boxes.has(i)) boxes.get(i).g.classList.remove('match');
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
      for (const i of matches) boxes.get(i).g.classList.add('match');
    }
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
  fit();
  if (k < 0.35 && size.width > 0) {
    k = 1;
    tx = ((view.clientWidth || 800) - size.width) / 2;
    ty = 10;
    apply();
  }
  const styled = performance.now();
  view.getBoundingClientRect();  // style and layout, counted in the drawing time
  timings.style = performance.now() - styled;
  const drawMs = performance.now() - started;
  document.body.setAttribute('data-draw-ms', drawMs.toFixed(1));
  document.body.setAttribute('data-since-start-ms', performance.now().toFixed(1));
  window.irliteGraph = {layers: layers.length, drawn: drawn.length, drawMs, timings, select, find, next, fit};
})();

/* Interactive figures (pe_book/interactive.py): draws widget NAME into each hidden
 * <div class="pe-interactive" data-interactive="NAME" data-defaults="{…}"> and shows it;
 * without JavaScript, and in print, the static figure stands alone. Classic script,
 * nothing fetched (file:// too). peInteractive.math mirrors the library's formulas
 * (tests/test_interactive.py: 1e-9 relative); scripts of other widgets use its kit.
 */
(function () {
  "use strict";

  // --- the mathematics: mirrors of pe_explained

  const range = (n) => Array.from({ length: n }, (_, i) => i);
  const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);

  // sinusoidal_frequencies: omega_i = base^(-2i / d_model).
  function sinusoidalFrequencies(dModel, base) {
    return range(dModel / 2).map((i) => Math.pow(base, (-2 * i) / dModel));
  }

  // sinusoidal (interleaved): PE[pos, 2i] = sin(pos·omega_i), PE[pos, 2i+1] = cos(…).
  function sinusoidal(positions, dModel, base) {
    const omega = sinusoidalFrequencies(dModel, base);
    return range(positions).map((p) => omega.flatMap((w) => [Math.sin(p * w), Math.cos(p * w)]));
  }

  // PE(pos)·PE(pos+k) = sum_i cos(k·omega_i): the same for every pos.
  function dotByOffset(dModel, base, k) {
    return sinusoidalFrequencies(dModel, base).reduce((s, w) => s + Math.cos(k * w), 0);
  }

  // rope_frequencies without scaling: inv_freq_i = base^(-2i / head_dim).
  function ropeFrequencies(headDim, base) {
    return range(headDim / 2).map((i) => Math.pow(base, -(2 * i) / headDim));
  }

  // The dimensions of every pair: (2i, 2i+1) interleaved, (i, i + d/2) halves.
  function ropePairs(headDim, layout) {
    const half = headDim / 2;
    return range(half).map((i) => (layout === "interleaved" ? [2 * i, 2 * i + 1] : [i, i + half]));
  }

  // apply_rope for one vector: every pair turned by position·inv_freq_i.
  function applyRope(x, position, invFreq, layout, attentionFactor = 1) {
    const out = x.slice();
    ropePairs(x.length, layout).forEach(([a, b], i) => {
      const theta = position * invFreq[i];
      const c = attentionFactor * Math.cos(theta);
      const s = attentionFactor * Math.sin(theta);
      out[a] = x[a] * c - x[b] * s;
      out[b] = x[a] * s + x[b] * c;
    });
    return out;
  }

  // q rotated at m, dotted with k rotated at n.
  function ropeScore(q, k, m, n, invFreq, layout) {
    return dot(applyRope(q, m, invFreq, layout), applyRope(k, n, invFreq, layout));
  }

  // ntk_aware_base: base · factor^(d / (d − 2)).
  function ntkAwareBase(base, factor, headDim) {
    return base * Math.pow(factor, headDim / (headDim - 2));
  }

  // Dynamic NTK's base at seqLen: base · (factor·(len − L)/L + 1)^(d/(d−2)).
  function dynamicBase(base, factor, headDim, context, seqLen) {
    const length = Math.max(seqLen, context);
    const alpha = factor * ((length - context) / context) + 1;
    return base * Math.pow(alpha, headDim / (headDim - 2));
  }

  // yarn_correction_range: the pairs turning betaFast and betaSlow times within L.
  function yarnCorrectionRange(headDim, base, context, betaFast = 32, betaSlow = 1,
    truncate = true) {
    // the (fractional) pair whose wavelength fits r times into L
    const pair = (r) => (headDim * Math.log(context / (r * 2 * Math.PI))) / (2 * Math.log(base));
    let low = pair(betaFast);
    let high = pair(betaSlow);
    if (truncate) [low, high] = [Math.floor(low), Math.ceil(high)];
    return [Math.max(low, 0), Math.min(high, headDim - 1)];
  }

  // YaRN's attention factor sqrt(1/t) = 0.1 ln s + 1 (1 for s <= 1).
  function yarnAttentionFactor(factor) {
    return factor <= 1 ? 1 : 0.1 * Math.log(factor) + 1;
  }

  // One context-extension method's frequencies and attention factor; method: default,
  // linear, ntk, dynamic, yarn, llama3; p: headDim, base, factor, context (L), seqLen,
  // lowFreqFactor, highFreqFactor, betaFast, betaSlow.
  function scaledFrequencies(method, p) {
    const inv = ropeFrequencies(p.headDim, p.base);
    const factor = p.factor;
    if (method === "default") return { invFreq: inv, attentionFactor: 1 };
    if (method === "linear") return { invFreq: inv.map((w) => w / factor), attentionFactor: 1 };
    if (method === "ntk") {
      return {
        invFreq: ropeFrequencies(p.headDim, ntkAwareBase(p.base, factor, p.headDim)),
        attentionFactor: 1,
      };
    }
    if (method === "dynamic") {
      const base = dynamicBase(p.base, factor, p.headDim, p.context, p.seqLen);
      return { invFreq: ropeFrequencies(p.headDim, base), attentionFactor: 1 };
    }
    if (method === "yarn") {
      let [low, high] = yarnCorrectionRange(p.headDim, p.base, p.context, p.betaFast, p.betaSlow);
      if (low === high) high += 0.001;
      const invFreq = inv.map((w, i) => {
        const ramp = Math.min(Math.max((i - low) / (high - low), 0), 1);
        return (w / factor) * ramp + w * (1 - ramp);
      });
      return { invFreq, attentionFactor: yarnAttentionFactor(factor) };
    }
    if (method === "llama3") {
      const [lowF, highF, L] = [p.lowFreqFactor, p.highFreqFactor, p.context];
      const invFreq = inv.map((w) => {
        const wavelength = (2 * Math.PI) / w;
        const out = wavelength > L / lowF ? w / factor : w;
        if (highF === lowF || wavelength < L / highF || wavelength > L / lowF) return out;
        const smooth = (L / wavelength - lowF) / (highF - lowF);
        return ((1 - smooth) * w) / factor + smooth * w;
      });
      return { invFreq, attentionFactor: 1 };
    }
    throw new Error(`unknown method ${method}`);
  }

  // alibi_slopes: the ladder of the closest power of two c <= n, then every other
  // slope of 2c for the remaining heads.
  function alibiSlopes(numHeads) {
    const ladder = (n) => range(n).map((k) => Math.pow(2, (-8 * (k + 1)) / n));
    let closest = 1;
    while (closest * 2 <= numHeads) closest *= 2;
    const extra = ladder(2 * closest).filter((_, i) => i % 2 === 0);
    return ladder(closest).concat(extra.slice(0, numHeads - closest));
  }

  // alibi_bias (causal, float64): bias[h][i][j] = −m_h (i − j), −Infinity for j > i.
  function alibiBias(numHeads, length) {
    return alibiSlopes(numHeads).map((m) =>
      range(length).map((i) => range(length).map((j) => (j <= i ? m * (0 - (i - j)) : -Infinity)))
    );
  }

  // rope_pair_groups: [kept, blended, divided], a pair kept where its scaled frequency
  // equals the plain one, divided where it equals plain ÷ factor (both to 1e-12 relative).
  function pairGroups(invFreq, plain, factor) {
    const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b);
    const kept = invFreq.filter((w, i) => close(w, plain[i])).length;
    const divided = invFreq.filter((w, i) => !close(w, plain[i]) &&
      close(w, plain[i] / factor)).length;
    return [kept, invFreq.length - kept - divided, divided];
  }

  const math = {
    sinusoidalFrequencies, sinusoidal, dotByOffset, ropeFrequencies, ropePairs, applyRope,
    ropeScore, ntkAwareBase, dynamicBase, yarnCorrectionRange, yarnAttentionFactor,
    scaledFrequencies, pairGroups, alibiSlopes, alibiBias,
  };


  // --- drawing: elements, axes and heatmaps in inline SVG

  const SVG = "http://www.w3.org/2000/svg";
  let uid = 0;

  function node(ns, tag, attrs, children) {
    const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => v !== undefined && el.setAttribute(k, v));
    (children || []).forEach((c) => el.append(c));
    return el;
  }
  const h = (tag, attrs, ...children) => node(null, tag, attrs, children);
  // An SVG element appended to parent, with text content if given.
  const s = (parent, tag, attrs, text) => {
    const el = node(SVG, tag, attrs, text === undefined ? [] : marked(text, true));
    parent.append(el);
    return el;
  };
  const line = (parent, x1, y1, x2, y2, cls) => s(parent, "line", { x1, y1, x2, y2, class: cls });
  // A square (side 2r) or a circle (radius r) centred on (cx, cy).
  const marker = (parent, square, cx, cy, r, cls) => (square
    ? s(parent, "rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, class: cls })
    : s(parent, "circle", { cx, cy, r, class: cls }));

  // A label's number: integers exact, else 4 significant digits; a true minus.
  function fmt(v, digits = 4) {
    if (!isFinite(v)) return v > 0 ? "∞" : "−∞";
    const a = Math.abs(v);
    let text;
    if (Number.isInteger(v) && a < 1e9) text = v.toLocaleString("en");
    else if (a !== 0 && (a < 1e-3 || a >= 1e9)) text = v.toExponential(2).replace("e", "·10^");
    else text = Number(v.toPrecision(digits)).toLocaleString("en", { maximumFractionDigits: 6 });
    return text.replace("-", "−");
  }

  // Tick values: 1, 2 or 5 times a power of ten; on a log axis powers of 10 (or of 2).
  function ticks(min, max, log) {
    if (log) {
      const step = Math.log10(max / min) >= 3 ? 10 : 2;
      const out = [];
      let e = Math.ceil(Math.log(min) / Math.log(step) - 1e-9);
      for (; Math.pow(step, e) <= max * (1 + 1e-9); e++) out.push(Math.pow(step, e));
      const every = Math.ceil(out.length / 6);
      return out.filter((_, i) => i % every === 0);
    }
    const raw = (max - min) / 5;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const r = raw / mag;
    const step = mag * (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10);
    const out = [];
    for (let t = Math.ceil(min / step - 1e-9) * step; t <= max + step * 1e-9; t += step) {
      out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
    }
    return out;
  }

  // A new SVG in box, of the given size, with a frame, ticks and axis labels.
  // o: x, y ([min, max]), xlog, ylog, yreverse, xticks, yticks, xformat, yformat,
  // xlabel, ylabel, label (what the figure shows, for assistive technology), margins.
  function axes(box, width, height, o) {
    const svg = node(SVG, "svg", {
      viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": o.label,
    });
    box.replaceChildren(svg);
    const x0 = o.left || 56;
    const x1 = width - (o.right || 12);
    const y0 = height - (o.bottom || 42);
    const y1 = o.top || 12;
    const scale = ([a, b], lo, hi, log, reverse) => {
      const f = log ? Math.log : (v) => v;
      return (v) => {
        const t = (f(v) - f(a)) / (f(b) - f(a));
        return reverse ? hi + (lo - hi) * t : lo + (hi - lo) * t;
      };
    };
    const sx = scale(o.x, x0, x1, o.xlog, false);
    const sy = scale(o.y, y0, y1, o.ylog, o.yreverse);
    const g = s(svg, "g", { class: "pe-i-axes" });
    (o.xticks || ticks(o.x[0], o.x[1], o.xlog)).forEach((t) => {
      line(g, sx(t), y0, sx(t), y0 + 5);
      s(g, "text", { x: sx(t), y: y0 + 17, "text-anchor": "middle" }, (o.xformat || fmt)(t));
    });
    (o.yticks || ticks(o.y[0], o.y[1], o.ylog)).forEach((t) => {
      line(g, x0 - 5, sy(t), x0, sy(t));
      if (o.grid !== false) line(g, x0, sy(t), x1, sy(t), "pe-i-grid");
      s(g, "text", { x: x0 - 8, y: sy(t) + 4, "text-anchor": "end" }, (o.yformat || fmt)(t));
    });
    s(g, "rect", { class: "pe-i-frame", x: x0, y: y1, width: x1 - x0, height: y0 - y1 });
    s(g, "text", { x: (x0 + x1) / 2, y: y0 + 36, "text-anchor": "middle" }, o.xlabel);
    const middle = (y0 + y1) / 2;
    s(g, "text", { transform: `translate(13 ${middle}) rotate(-90)`, "text-anchor": "middle" },
      o.ylabel);
    return { svg, g, sx, sy, x0, x1, y0, y1 };
  }

  function path(parent, points, cls) {
    const d = points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`);
    return s(parent, "path", { d: d.join(""), class: cls });
  }

  // A heatmap (rows × columns; infinities transparent) coloured by linear interpolation
  // between colour stops, as a PNG data URL.
  function heatmapImage(rows, vmin, vmax, stops) {
    const rgb = stops.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
    const canvas = h("canvas", { width: rows[0].length, height: rows.length });
    const context = canvas.getContext("2d");
    const image = context.createImageData(rows[0].length, rows.length);
    rows.forEach((row, r) => row.forEach((v, c) => {
      if (!isFinite(v)) return;
      const t = Math.min(Math.max((v - vmin) / (vmax - vmin || 1), 0), 1) * (rgb.length - 1);
      const i = Math.min(Math.floor(t), rgb.length - 2);
      const at = 4 * (r * row.length + c);
      for (let ch = 0; ch < 3; ch++) {
        image.data[at + ch] = rgb[i][ch] + (rgb[i + 1][ch] - rgb[i][ch]) * (t - i);
      }
      image.data[at + 3] = 255;
    }));
    context.putImageData(image, 0, 0);
    return canvas.toDataURL();
  }

  // A heatmap filling the frame of a (axes drawn on top), with a colour bar to its right;
  // stops holds the colours of each palette ({light, dark}), book.css shows one pair.
  function heatmap(a, rows, vmin, vmax, stops, label) {
    const x = a.x1 + 12;
    const column = range(64).map((i) => [vmax - ((vmax - vmin) * i) / 63]);
    Object.entries(stops).forEach(([palette, colours]) => {
      const pixels = (data, left, width) => node(SVG, "image", {
        href: heatmapImage(data, vmin, vmax, colours), x: left, y: a.y1, width,
        height: a.y0 - a.y1, preserveAspectRatio: "none", class: `pe-i-pixels pe-i-${palette}`,
      });
      a.svg.insertBefore(pixels(rows, a.x0, a.x1 - a.x0), a.g);
      a.svg.append(pixels(column, x, 12));
    });
    const g = s(a.svg, "g", { class: "pe-i-axes" });
    s(g, "text", { x: x + 16, y: a.y1 + 9 }, fmt(vmax));
    s(g, "text", { x: x + 16, y: a.y0 }, fmt(vmin));
    const middle = (a.y0 + a.y1) / 2;
    const turn = `translate(${x + 22} ${middle}) rotate(90)`;
    s(g, "text", { transform: turn, "text-anchor": "middle" }, label);
  }

  // --- controls: native, labelled, keyboard-operable

  // The text of a label without its marks (for aria-label).
  const plain = (text) => text.replace(/[*{}]|[_^](?=\{)/g, "");

  // A control's box: its label (with the value shown) over the input(s).
  function control(form, label, output, id, ...inputs) {
    const parts = [...marked(label), ...(output ? [" ", output] : [])];
    const text = h(id ? "label" : "span", id ? { for: id } : { id: `pe-i-${++uid}` }, ...parts);
    const box = h("div", { class: "pe-i-control" }, text, ...inputs);
    form.append(box);
    return [box, text];
  }

  // A range input over a list of values (steps may be uneven), its value shown in an
  // <output> and announced as aria-valuetext; set(v, list) moves it (list: new values).
  function slider(form, label, values, value, format, change) {
    const id = `pe-i-${++uid}`;
    const output = h("output", { for: id });
    const input = h("input", { type: "range", id, min: 0, step: 1 });
    control(form, label, output, id, input);
    const ctl = {
      values,
      get value() {
        return ctl.values[+input.value];
      },
      set(v, list) {
        if (list) ctl.values = list;
        input.max = ctl.values.length - 1;
        const gaps = ctl.values.map((c) => Math.abs(c - v));
        input.value = gaps.indexOf(Math.min(...gaps));
        output.value = format(ctl.value);
        input.setAttribute("aria-valuetext", output.value);
      },
    };
    ctl.set(value);
    input.addEventListener("input", () => {
      ctl.set(ctl.value);
      change(ctl.value);
    });
    return ctl;
  }

  // − and + buttons stepping through a list of values; set(v, list) as for a slider.
  function stepper(form, label, values, value, format, change) {
    const output = h("output", {});
    const ctl = { values, value };
    const buttons = [[-1, "−", "previous"], [1, "+", "next"]].map(([by, sign, word]) => {
      const b = h("button", { type: "button", "aria-label": `${word} ${plain(label)}` }, sign);
      b.addEventListener("click", () => {
        ctl.set(ctl.values[ctl.values.indexOf(ctl.value) + by]);
        change(ctl.value);
      });
      return b;
    });
    const [, text] = control(form, label, output, null,
      h("div", { class: "pe-i-buttons" }, ...buttons));
    buttons.forEach((b) => b.setAttribute("aria-describedby", text.id));
    ctl.set = (v, list) => {
      if (list) ctl.values = list;
      ctl.value = ctl.values.includes(v) ? v : ctl.values[0];
      output.value = format(ctl.value);
      const at = ctl.values.indexOf(ctl.value);
      buttons[0].disabled = at === 0;
      buttons[1].disabled = at === ctl.values.length - 1;
    };
    ctl.set(value);
    return ctl;
  }

  // A group of radio buttons drawn as segments: [value, text, class of its swatch].
  function segments(form, label, options, value, change) {
    const name = `pe-i-${++uid}`;
    const group = h("div", { class: "pe-i-segments", role: "radiogroup" });
    options.forEach(([v, text, swatch], i) => {
      const id = `${name}-${i}`;
      const input = h("input", { type: "radio", name, id, value: i });
      input.checked = v === value;
      input.addEventListener("change", () => change(v));
      group.append(input, h("label", { for: id, class: swatch }, ...marked(text)));
    });
    const [box, text] = control(form, label, null, null, group);
    group.setAttribute("aria-labelledby", text.id);
    return box;
  }

  // Plots (side by side where there is room), controls under them, a readout. size(i):
  // plot i's width and height, from shapes[i] = [height ÷ width, min, max] (shapes[0]
  // for all side by side).
  function frame(root, shapes) {
    const form = h("div", { class: "pe-i-controls" });
    const plots = shapes.map(() => h("div", { class: "pe-i-plot" }));
    const readout = h("p", { class: "pe-i-readout", "aria-live": "polite" });
    root.append(h("div", { class: "pe-i-plots" }, ...plots), form, readout);
    const size = (i) => {
      const width = Math.max(240, Math.floor(plots[i].clientWidth || 320));
      const side = plots.length > 1 && plots[0].offsetTop === plots[1].offsetTop;
      const [ratio, lo, hi] = shapes[side ? 0 : i];
      return [width, Math.min(hi, Math.max(lo, Math.round(width * ratio)))];
    };
    return { form, plots, readout, size };
  }

  const steps = (lo, hi, step = 1) => range(Math.round((hi - lo) / step) + 1)
    .map((i) => lo + i * step);
  const minus = (text) => String(text).replace(/-/g, "−");
  // Numbers as the prose's Python formats write them: fixed(v, 2) is "{:,.2f}",
  // sig(v, 6) is "{:.6g}" (for 1e-4 <= |v| < 1e6); a true minus.
  const fixed = (v, digits) => minus(v.toLocaleString("en",
    { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  const sig = (v, digits) => minus(String(Number(v.toPrecision(digits))));
  // A stretch as the prose writes one: two decimals under 10, whole numbers above.
  const times = (v) => fixed(v, v < 10 ? 2 : 0);

  // Text set as the prose sets symbols: x^{…} raised, x_{…} lowered, x_{…}^{…} both
  // (stacked, as q_m^⊤), *v* in italics (a variable), everything else as plain text
  // (never parsed as HTML). The nodes are HTML (sup, sub, var) or, with svg, tspans.
  function marked(text, svg) {
    const scripts = /^_\{([^{}]*)\}\^\{([^{}]*)\}$/;
    const parts = String(text)
      .split(/(_\{[^{}]*\}\^\{[^{}]*\}|\^\{[^{}]*\}|_\{[^{}]*\}|\*[^*\s][^*]*\*)/);
    const script = (raised, inner, back) => node(SVG, "tspan", {
      "baseline-shift": raised ? "super" : "sub", "font-size": "75%", dx: back,
    }, marked(inner, true));
    return parts.filter((x) => x !== "").flatMap((x) => {
      const both = x.match(scripts);
      if (both) {
        const [, lower, upper] = both;
        if (!svg) {
          const sup = h("sup", {}, ...marked(upper)), sub = h("sub", {}, ...marked(lower));
          return [h("span", { class: "pe-i-scripts" }, sup, sub)];
        }
        // the raised script steps back over the lowered one, about 0.55 em a character
        const back = `${(-0.55 * lower.replace(/\*/g, "").length).toFixed(2)}em`;
        return [script(false, lower), script(true, upper, back)];
      }
      if (/^[\^_]\{/.test(x)) {
        const inner = x.slice(2, -1);
        if (!svg) return [h(x[0] === "^" ? "sup" : "sub", {}, ...marked(inner))];
        return [script(x[0] === "^", inner)];
      }
      if (/^\*.+\*$/.test(x)) {
        const name = x.slice(1, -1);
        return [svg ? node(SVG, "tspan", { "font-style": "italic" }, [name]) : h("var", {}, name)];
      }
      return [document.createTextNode(x)];
    });
  }

  // Sets a readout's text, marked as for :func:`marked`.
  function write(el, text) {
    el.replaceChildren(...marked(text, false));
  }

  // fmt for a readout: a power of ten as a raised exponent (1.2·10^{−5}).
  const num = (v, digits) => fmt(v, digits).replace(/·10\^\+?(−?\d+)/, "·10^{$1}");

  // --- the widgets: each takes its container and parameters, returns its draw()

  const widgets = {};
  // set(key)(v): state[key] = v, then redraw.
  const setter = (state, draw) => (key) => (v) => {
    state[key] = v;
    draw();
  };

  widgets.sinusoidal = function (root, d) {
    const st = { dModel: d.d_model, base: d.base, positions: d.positions };
    const f = frame(root, [[0.62, 190, 300], [0.45, 150, 300]]);
    const set = setter(st, draw);
    slider(f.form, "*d*_{model}", steps(2, 256, 2), st.dModel, String, set("dModel"));
    stepper(f.form, "base", [10, 100, 1000, 10000, 100000, 500000, 1000000], st.base, fmt,
      set("base"));
    slider(f.form, "positions", steps(10, 400, 10), st.positions, String, set("positions"));

    function draw() {
      const { dModel, base, positions } = st;
      const [w, ht] = f.size(0);
      const a = axes(f.plots[0], w, ht, {
        x: [-0.5, dModel - 0.5], y: [-0.5, positions - 0.5], yreverse: true, right: 64,
        grid: false, xticks: ticks(0, dModel - 1).filter((t) => t % 1 === 0),
        yticks: ticks(0, positions - 1), xlabel: "dimension index *j*", ylabel: "position *pos*",
        label: `Heatmap of the sinusoidal table: ${positions} positions by ${dModel} ` +
          `dimensions, base ${fmt(base)}.`,
      });
      heatmap(a, math.sinusoidal(positions, dModel, base), -1, 1, d.colormap, "PE(*pos*, *j*)");

      const dots = range(positions).map((k) => math.dotByOffset(dModel, base, k));
      const last = fmt(dots[positions - 1]);
      const top = dModel / 2;
      const [w2, h2] = f.size(1);
      const b = axes(f.plots[1], w2, h2, {
        x: [0, positions - 1], y: [Math.min(0, ...dots) - 0.05 * top, top * 1.05],
        xlabel: "offset *k* (positions)", ylabel: "PE(*pos*) · PE(*pos* + *k*)",
        label: `The dot product of two encodings against their offset k, from ${top} at ` +
          `k = 0 to ${last} at k = ${positions - 1}; the same for every pos.`,
      });
      line(b.svg, b.x0, b.sy(0), b.x1, b.sy(0), "pe-i-zero");
      path(b.svg, dots.map((v, k) => [b.sx(k), b.sy(v)]), "pe-i-line pe-i-c1");
      // the wavelengths 2π/ω_i, written as the prose writes them ({:.2f}, {:,.0f})
      const slowest = (2 * Math.PI) / math.sinusoidalFrequencies(dModel, base)[top - 1];
      const pairs = top === 1 ? "1 pair, turning once every 2π ≈ 6.28 positions" :
        `${top} pairs: the fastest turns once every 2π ≈ 6.28 positions, the slowest once ` +
        `every ${fixed(slowest, 0)}`;
      write(f.readout, `${pairs}. PE(*pos*) · PE(*pos* + *k*) = Σ_{*i*} cos(*k* *ω*_{*i*}), ` +
        `the same at every *pos*: ${top} at *k* = 0, ${last} at *k* = ${positions - 1}.`);
    }
    return draw;
  };

  // Each method: key, name, colour and dashes of Figure 15.1 (plain RoPE: c1).
  const METHODS = [
    ["linear", "position interpolation", 2, "7 3"], ["ntk", "NTK-aware", 3, "10 3 2 3"],
    ["dynamic", "dynamic NTK", 4, "2 3"], ["yarn", "YaRN", 5, ""],
    ["llama3", "Llama 3 rule", 6, "7 3"],
  ];

  widgets.context = function (root, d) {
    const st = {
      method: d.method, factor: d.factor, headDim: d.head_dim, base: d.base,
      context: d.context, lengthRatio: d.factor,
    };
    const f = frame(root, [[0.62, 190, 300], [0.38, 120, 300]]);
    const set = setter(st, draw);
    segments(f.form, "method", METHODS.map(([k, name, c]) => [k, name, `pe-i-m${c}`]),
      st.method, set("method")).classList.add("pe-i-wide");
    slider(f.form, "factor *s*", [1, 1.5, 2, 3, 4, 6, 8, 12, 16, 32, 64], st.factor, fmt,
      set("factor"));
    slider(f.form, "trained length *L*", range(9).map((i) => 1024 * 2 ** i), st.context, fmt,
      set("context"));
    slider(f.form, "base", [10000, 100000, 500000, 1000000, 10000000], st.base, fmt,
      set("base"));
    segments(f.form, "head width *d*_{*k*}", [32, 64, 80, 96, 128, 256].map((v) => [v, v]),
      st.headDim, set("headDim")).classList.add("pe-i-wide");
    slider(f.form, "length *ℓ* ÷ *L* (dynamic NTK)", [1, 1.5, 2, 4, 8, 16, 32],
      st.lengthRatio, fmt, set("lengthRatio"));
    const lengthControl = f.form.lastChild;

    function draw() {
      const p = {
        headDim: st.headDim, base: st.base, factor: st.factor, context: st.context,
        seqLen: Math.round(st.lengthRatio * st.context), lowFreqFactor: d.low_freq_factor,
        highFreqFactor: d.high_freq_factor, betaFast: d.beta_fast, betaSlow: d.beta_slow,
      };
      lengthControl.hidden = st.method !== "dynamic";
      const plain = math.ropeFrequencies(p.headDim, p.base);
      const { invFreq, attentionFactor } = math.scaledFrequencies(st.method, p);
      const stretch = invFreq.map((w, i) => plain[i] / w); // new ÷ original wavelength
      const last = plain.length - 1;
      const [, name, colour, dashes] = METHODS.find(([k]) => k === st.method);
      const [w, ht] = f.size(0);
      const a = axes(f.plots[0], w, ht, {
        x: [0, last], y: [1 / 1.3, Math.max(2, st.factor, ...stretch) * 1.3], ylog: true,
        left: 60, xlabel: "pair *i* (fast → slow)", ylabel: "stretch (new ÷ original *λ*)",
        label: `Per-pair stretch of ${name}: from ${fmt(stretch[0])} at pair 0 to ` +
          `${fmt(stretch[last])} at pair ${last}.`,
      });
      const [kept, blended, divided] = math.pairGroups(invFreq, plain, st.factor);
      const ruled = st.method === "yarn" || st.method === "llama3";
      if (ruled && blended) { // the band where the rule leaves plain RoPE for division by s
        const [i0, i1] = [Math.max(kept - 1, 0), Math.min(kept + blended, last)];
        const width = Math.max(1, a.sx(i1) - a.sx(i0));
        a.svg.insertBefore(s(a.svg, "rect", {
          class: "pe-i-band", x: a.sx(i0), y: a.y1, width, height: a.y0 - a.y1,
        }), a.g);
        s(a.svg, "text", { x: a.sx(i0) + width / 2, y: a.y1 + 14, "text-anchor": "middle" },
          st.method === "yarn" ? "ramp" : "blend");
      }
      line(a.svg, a.x0, a.sy(st.factor), a.x1, a.sy(st.factor), "pe-i-zero");
      s(a.svg, "text", { x: a.x1 - 4, y: a.sy(st.factor) - 4, "text-anchor": "end" },
        `*s* = ${fmt(st.factor)}`);
      const beyond = plain.findIndex((w) => (2 * Math.PI) / w > p.context);
      if (beyond >= 0) {
        line(a.svg, a.sx(beyond), a.y0, a.sx(beyond), a.y1, "pe-i-zero");
        s(a.svg, "text", { x: a.sx(beyond) + 4, y: a.y0 - 6 }, "*λ* > *L*");
      }
      path(a.svg, [[a.x0, a.sy(1)], [a.x1, a.sy(1)]], "pe-i-line pe-i-c1");
      s(a.svg, "text", { x: a.x0 + 4, y: a.sy(1) - 5 }, "original");
      path(a.svg, stretch.map((v, i) => [a.sx(i), a.sy(v)]), `pe-i-line pe-i-c${colour}`)
        .style.strokeDasharray = dashes;

      const yarn = math.yarnAttentionFactor;
      const [w2, h2] = f.size(1);
      const b = axes(f.plots[1], w2, h2, {
        x: [1, 64], y: [1, 1.45], xlog: true, xticks: [1, 2, 4, 8, 16, 32, 64],
        yticks: [1, 1.2, 1.4],
        left: 60, xlabel: "factor *s*", ylabel: "attention factor",
        label: st.method === "yarn" ? `YaRN’s attention factor 0.1 ln s + 1 against s; at ` +
          `s = ${fmt(st.factor)} it is ${fmt(attentionFactor)}.`
          : `${name} has no attention factor: nothing is drawn.`,
      });
      if (st.method === "yarn") {
        const curve = range(61).map((i) => Math.pow(64, i / 60));
        path(b.svg, curve.map((v) => [b.sx(v), b.sy(yarn(v))]), "pe-i-line pe-i-c5");
        marker(b.svg, false, b.sx(st.factor), b.sy(attentionFactor), 5, "pe-i-dot pe-i-c5");
        s(b.svg, "text", { x: b.x1 - 6, y: b.y0 - 8, "text-anchor": "end" },
          "YaRN: 0.1 ln *s* + 1");
      } else {
        s(b.svg, "text", { x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2, "text-anchor": "middle" },
          `none for ${name}`);
      }

      // in the prose's words: YaRN and Llama 3 keep, blend and divide; NTK changes the base
      let what;
      if (st.method === "ntk" || st.method === "dynamic") {
        const base = st.method === "ntk" ? math.ntkAwareBase(p.base, p.factor, p.headDim)
          : math.dynamicBase(p.base, p.factor, p.headDim, p.context, p.seqLen);
        what = `${st.method === "ntk" ? "" : `at ℓ = ${fixed(p.seqLen, 0)} positions `}the ` +
          `base becomes ${fixed(base, 0)}; the fastest pair is stretched ` +
          `${times(stretch[0])}×, the slowest ${times(stretch[last])}×`;
      } else {
        const [lo, hi] = [stretch[kept], stretch[kept + blended - 1]].map((v) => v && times(v));
        what = [
          kept && `keeps ${kept > last ? "all" : "the first"} ${kept} pairs`,
          blended && `blends pairs ${kept} to ${kept + blended - 1} by ` +
            `${lo === hi ? lo : `${lo}\u2060–\u2060${hi}`}×`, // the range on one line
          divided && `divides ${divided > last ? "every pair by *s*" : `the last ${divided}`}`,
        ].filter(Boolean).join(", ").replace(/, (?!.*, )/, " and ");
      }
      const factor = st.method === "yarn" ? `Attention factor ${fixed(attentionFactor, 4)}: ` +
        `the logits are multiplied by its square, ${fixed(attentionFactor ** 2, 4)}.`
        : "No attention factor: the logits are unchanged.";
      write(f.readout, `${name}, *s* = ${fmt(st.factor)}, *d*_{*k*} = ${p.headDim} ` +
        `(${last + 1} pairs), base ${fixed(p.base, 0)}, *L* = ${fixed(p.context, 0)}: ` +
        `${what}. ${factor}`);
    }
    return draw;
  };

  widgets.alibi = function (root, d) {
    const st = { heads: d.num_heads, head: d.head || 1, length: d.length };
    const f = frame(root, [[0.7, 200, 300], [0.45, 150, 300]]);
    const set = setter(st, draw);
    const headControl = stepper(f.form, "head *h*", steps(1, st.heads), st.head, String,
      set("head"));
    slider(f.form, "number of heads", steps(1, 64), st.heads, String, (v) => {
      st.head = Math.min(st.head, v);
      headControl.set(st.head, steps(1, v));
      set("heads")(v);
    });
    f.form.prepend(f.form.lastChild); // the head count first, then the head
    slider(f.form, "positions", steps(2, 32), st.length, String, set("length"));

    function draw() {
      const { heads: n, head, length } = st;
      const slopes = math.alibiSlopes(n);
      const m = slopes[head - 1];
      const [w, ht] = f.size(0);
      const a = axes(f.plots[0], w, ht, {
        x: [-0.5, length - 0.5], y: [-0.5, length - 0.5], yreverse: true, right: 72,
        grid: false, xticks: ticks(0, length - 1), yticks: ticks(0, length - 1),
        xlabel: "key position *j*", ylabel: "query position *i*",
        label: `The bias matrix of head ${head} of ${n}: 0 on the diagonal, −m (i − j) ` +
          `below it with m = ${fmt(m)}, masked above; colours on head 1’s scale.`,
      });
      const bias = math.alibiBias(n, length)[head - 1];
      // one colour scale for all heads, head 1's (the steepest): a gentler one shows paler
      heatmap(a, bias, -slopes[0] * (length - 1), 0, d.colormap, "bias −*m* (*i* − *j*)");

      let closest = 1;
      while (closest * 2 <= n) closest *= 2;
      const [w2, h2] = f.size(1);
      const b = axes(f.plots[1], w2, h2, {
        x: [0.5, n + 0.5], y: [Math.pow(2, -8.5), 1.4], ylog: true,
        xticks: ticks(1, n).filter((t) => t % 1 === 0), yticks: [1, 1 / 4, 1 / 16, 1 / 64, 1 / 256],
        yformat: (t) => (t === 1 ? "1" : `1/${Math.round(1 / t)}`),
        xlabel: "head *h*", ylabel: "slope *m*_{*h*} (log scale)",
        label: `The slopes of ${n} heads, from ${fmt(slopes[0])} to ${fmt(Math.min(...slopes))}.`,
      });
      slopes.forEach((v, i) => {
        const filled = i >= closest;
        const cls = `pe-i-dot ${filled ? "pe-i-c2" : "pe-i-c1"}`;
        marker(b.svg, filled, b.sx(i + 1), b.sy(v), 3.5, cls);
      });
      s(b.svg, "circle", { class: "pe-i-ring", cx: b.sx(head), cy: b.sy(m), r: 8 });
      const recipe = n === closest ? `${n} is a power of two: one ladder 2^{−8*h*/${n}}.`
        : `${n} is not a power of two: heads 1–${closest} (circles) take the ladder of ` +
          `${closest}, heads ${closest + 1}–${n} (squares) every other slope of ${2 * closest}.`;
      // the slope and its power of two as Table 12.1 writes them ({:.6g}, 2^{:g})
      write(f.readout, `Head ${head}: *m*_{${head}} = 2^{${sig(Math.log2(m), 6)}} = ` +
        `${sig(m, 6)}; the colours are on head 1’s scale, 0 to ` +
        `${fmt(-slopes[0] * (length - 1))}. ${recipe}`);
    }
    return draw;
  };

  // --- build each widget as its figure nears the screen; redraw when its width changes

  function build(root) {
    const make = widgets[root.dataset.interactive];
    if (!make) root.dataset.waiting = "1"; // its script (data-script) registers it later
    if (!make || root.dataset.ready) return;
    delete root.dataset.waiting;
    const title = root.querySelector(".pe-interactive__title");
    root.setAttribute("role", "group");
    if (title) root.setAttribute("aria-labelledby", title.id);
    root.hidden = false;
    const draw = make(root, JSON.parse(root.dataset.defaults));
    draw();
    root.dataset.ready = "1";
    let width = root.clientWidth;
    new ResizeObserver(() => {
      if (root.clientWidth === width) return;
      width = root.clientWidth;
      draw();
    }).observe(root);
  }

  // Each widget is built when the figure before it comes within a screen of view.
  function start() {
    const roots = [...document.querySelectorAll(".pe-interactive[data-interactive]")];
    if (!("IntersectionObserver" in window)) return roots.forEach(build);
    const widgetAfter = new Map();
    const near = new IntersectionObserver((entries) => entries.forEach((entry) => {
      if (!entry.isIntersecting) return;
      near.unobserve(entry.target);
      build(widgetAfter.get(entry.target));
    }), { rootMargin: "100% 0px" });
    roots.forEach((root) => {
      const before = root.previousElementSibling;
      if (!before) return build(root);
      widgetAfter.set(before, root);
      near.observe(before);
    });
  }

  // Adds widget NAME (its own script) and builds its containers already near.
  function register(name, make) {
    widgets[name] = make;
    document.querySelectorAll(`[data-interactive="${name}"][data-waiting]`).forEach(build);
  }
  const kit = { h, s, line, marker, fmt, ticks, axes, path, heatmap, control, slider,
    stepper, segments, frame, steps, fixed, sig, times, write, num, setter, range, minus };
  window.peInteractive = { math, widgets, kit, register };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

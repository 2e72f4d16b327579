/* The config inspector (docs/appendix/inspector.md): pick a gallery model, paste a
 * config.json or drop one, and see what it does to positions, computed in the page by
 * window.peInspector.inspect (inspector-rope.js, inspector-layers.js, inspector-reading.js,
 * inspector-report.js: the report of `python -m pe_explained inspect --json`): the layer strip, per layer type
 * its settings, its wavelengths against the context lengths, its stretch per pair and its
 * attention factor, and the warnings. Drawn with the core's kit (interactive.js). Bad
 * input shows one sentence, never a blank panel. Classic script, nothing fetched.
 */
(function () {
  "use strict";

  const { h, s, line, axes, path, fmt, write, range } = window.peInteractive.kit;
  const SVG = "http://www.w3.org/2000/svg";
  let uid = 0;

  // A model's config as the CLI reads a file: a gallery file's "config", or the object.
  function configOf(text) {
    let data;
    try {
      data = window.peInspector.parse(text);
    } catch (error) {
      throw new Error(`This is not JSON: ${error.message}.`);
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      const kind = Array.isArray(data) ? "a list" : data === null ? "null" : `a ${typeof data}`;
      throw new Error(`A config.json holds one JSON object (a model’s config); this holds ${kind}.`);
    }
    const wrapped = data.config;
    const gallery = ("model" in data || "hf_repo" in data) && wrapped && typeof wrapped === "object"
      && !Array.isArray(wrapped);
    return gallery ? wrapped : data;
  }

  // The library's error as one sentence.
  function sentence(error) {
    const text = error.message.replace(/\.?$/, ".");
    if (!/Error$/.test(error.name) || error.name === "Error") return text;
    return error.name === "TypeError" || error.name === "ValueError"
      ? `The inspector cannot read this config: ${text}`
      : `The inspector failed on this config (${error.name}): ${text}`;
  }

  // --- the layer strip: one cell per layer, its letter and its colour by kind

  const KINDS = { n: "pe-i-kn", "~": "pe-i-kr", a: "pe-i-ka", b: "pe-i-ka", "-": "pe-i-ka",
    "?": "pe-i-ku" };
  const kindClass = (letter, letters) => KINDS[letter] ||
    `pe-i-k${(letters.indexOf(letter) % 4) + 1}`;

  function drawStrip(box, report, width) {
    const { strip, legend, counts } = report.layer_strip;
    const letters = Object.keys(legend);
    const cell = 15;
    const columns = Math.max(8, Math.floor((width - 2) / (cell + 2)));
    const rows = Math.ceil(strip.length / columns);
    const total = strip.length;
    const said = Object.entries(legend).map(([letter, meaning]) =>
      `${[...strip].filter((c) => c === letter).length} ${meaning}`).join("; ");
    const svg = document.createElementNS(SVG, "svg");
    const height = rows * (cell + 2) + 14;
    const svgWidth = Math.min(width, columns * (cell + 2) + 2);
    Object.entries({ viewBox: `0 0 ${svgWidth} ${height}`, width: svgWidth, height, role: "img",
      "aria-label": `${total} layers, from the first to the last: ${said}.` })
      .forEach(([k, v]) => svg.setAttribute(k, v));
    [...strip].forEach((letter, i) => {
      const x = 1 + (i % columns) * (cell + 2);
      const y = 1 + Math.floor(i / columns) * (cell + 2);
      s(svg, "rect", { x, y, width: cell, height: cell, rx: 2,
        class: `pe-i-cell ${kindClass(letter, letters)}` });
      s(svg, "text", { x: x + cell / 2, y: y + cell - 4, "text-anchor": "middle" }, letter);
    });
    s(svg, "text", { x: 1, y: height - 2, class: "pe-i-small" }, "layer 0");
    if (total > 1) {
      const last = total - 1;
      s(svg, "text", { x: 1 + (last % columns) * (cell + 2) + cell, y: height - 2,
        "text-anchor": "end", class: "pe-i-small" }, rows > 1 ? "" : `layer ${last}`);
    }
    const rotary = counts.rotary;
    const assumed = report.layer_strip.assumed ? ` (${report.layer_strip.assumed} assumed, ` +
      "not read)" : "";
    const heading = report.positions ? `${total} layers, none rotary:`
      : `${total} layers: ${rotary} rotary${assumed}, ${counts.nope} attention without ` +
        `rotation, ${counts.recurrence} without attention` +
        `${counts.none ? `, ${counts.none} without token mixing` : ""}.`;
    const items = Object.entries(legend).map(([letter, meaning]) => h("li", {},
      h("span", { class: `pe-i-swatch ${kindClass(letter, letters)}`, "aria-hidden": "true" },
        letter), ` ${meaning}`));
    box.replaceChildren(h("p", { class: "pe-i-readout" }, heading), h("div", { class: "pe-i-plot" },
      svg), h("ul", { class: "pe-i-legend" }, ...items));
  }

  // --- one layer type: its plot of wavelengths, its stretch, its settings

  const wavelengths = (inv) => inv.map((w) => (w > 0 ? (2 * Math.PI) / w : Infinity));

  function drawWavelengths(box, name, b, width) {
    const sets = b.short ? [["short factors", b.short], ["long factors", b.long]] : [["", b]];
    const plain = b.stretch.map((st, i) => (st === null ? null : (2 * Math.PI) / b.inv_freq[i] / st));
    const lengths = [["original context", b.original_max_position_embeddings],
      ["max_position_embeddings", b.max_position_embeddings],
      ["sliding window", b.sliding_window]].filter(([, v]) => v);
    const finite = sets.flatMap(([, x]) => wavelengths(x.inv_freq)).concat(plain)
      .filter((v) => v !== null && isFinite(v));
    const values = finite.concat(lengths.map(([, v]) => v));
    const lo = Math.max(Math.min(...values) / 1.5, 1e-3);
    const hi = Math.max(...values) * 4;
    const pairs = b.pairs;
    const height = Math.min(260, Math.max(190, Math.round(width * 0.5)));
    const a = axes(box, width, height, {
      x: [0, Math.max(1, pairs - 1)], y: [lo, hi], ylog: true, left: 56,
      xticks: ticksOf(pairs), yformat: power, xlabel: "pair *i*", ylabel: "wavelength (positions)",
      label: `${name}: the wavelength 2π/ω of each of ${pairs} pairs, from ` +
        `${fmt(b.wavelength_min ?? NaN)} to ${fmt(b.wavelength_max ?? NaN)} positions` +
        lengths.map(([what, v]) => `; ${what} ${fmt(v)}`).join("") + ".",
    });
    lengths.forEach(([what, v], i) => {
      line(a.svg, a.x0, a.sy(v), a.x1, a.sy(v), i ? "pe-i-grid pe-i-mark" : "pe-i-zero pe-i-mark");
      s(a.svg, "text", { x: a.x0 + 4, y: a.sy(v) - 4, class: "pe-i-small" }, `${what} ${fmt(v)}`);
    });
    const x = (i) => a.sx(pairs > 1 ? i : 0.5);
    const trace = (list, cls) => {
      const points = list.map((v, i) => [x(i), v]).filter(([, v]) => v !== null && isFinite(v));
      if (points.length) path(a.svg, points.map(([px, v]) => [px, a.sy(v)]), `pe-i-line ${cls}`);
    };
    if (b.stretch.some((st) => st !== null && Math.abs(st - 1) > 1e-12)) trace(plain, "pe-i-muted pe-i-dash");
    sets.forEach(([, set], k) => {
      const list = wavelengths(set.inv_freq);
      trace(list, `pe-i-c${k + 1}`);
      list.forEach((v, i) => {  // a pair at frequency 0 never turns: a mark at the top
        if (!isFinite(v)) s(a.svg, "path", { d: `M${x(i) - 3} ${a.y1 + 1}l3 5l3 -5z`, class: "pe-i-c2" });
      });
    });
  }

  // a tick of a log axis: 10, 1,000, then powers of ten as 10^k
  const power = (t) => (t < 1e4 ? fmt(t) : `10^{${Math.round(Math.log10(t))}}`);

  function ticksOf(n) {
    if (n <= 1) return [0];
    const step = [1, 2, 4, 8, 16, 32, 64, 128, 256].find((t) => (n - 1) / t <= 6) || 512;
    return range(Math.floor((n - 1) / step) + 1).map((i) => i * step);
  }

  function drawStretch(box, name, b, width) {
    const list = b.stretch.map((st) => (st === null ? NaN : st));
    const finite = list.filter(isFinite);
    const hi = Math.max(...finite);
    const lo = Math.min(...finite);
    const a = axes(box, width, 150, {
      x: [0, Math.max(1, b.pairs - 1)], y: [Math.min(1, lo) / 1.2, hi * 1.2], ylog: true,
      left: 56, xticks: ticksOf(b.pairs), xlabel: "pair *i*", ylabel: "stretch",
      label: `${name}: the stretch of each pair against plain RoPE with the same base, from ` +
        `${fmt(lo)} to ${fmt(hi)}.`,
    });
    const points = list.map((v, i) => [a.sx(b.pairs > 1 ? i : 0.5), v]).filter(([, v]) => isFinite(v));
    path(a.svg, points.map(([px, v]) => [px, a.sy(v)]), "pe-i-line pe-i-c1");
  }

  const count = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`;
  const layersText = (list) => (list === null ? "every layer" : list.length > 8
    ? `${list.length} layers (${list.slice(0, 3).join(", ")}, …, ${list[list.length - 1]})`
    : count(list.length, "layer", "layers") + (list.length ? ` (${list.join(", ")})` : ""));

  function settingsTable(b) {
    const rows = [
      ["rope_type", b.rope_type],
      ["rope_theta (θ)", fmt(b.rope_theta)],
      ["head_dim", fmt(b.head_dim)],
      ["rotated dims", `${fmt(b.rotary_dim)} (partial_rotary_factor ${fmt(b.partial_rotary_factor)})`],
      ["pairs", `${fmt(b.pairs)}, ${b.layout}` + (b.zero_frequency_pairs
        ? `; ${fmt(b.zero_frequency_pairs)} at frequency 0` : "")],
      ["max_position_embeddings", b.max_position_embeddings === null ? "—" : fmt(b.max_position_embeddings)],
      ["original context", b.original_max_position_embeddings === null ? "—"
        : fmt(b.original_max_position_embeddings)],
      ["sliding window", b.sliding_window === null ? "—" : fmt(b.sliding_window)],
      ["attention factor", b.short ? `${fmt(b.short.attention_factor, 6)} (short), ` +
        `${fmt(b.long.attention_factor, 6)} (long)` : fmt(b.attention_factor, 6)],
    ];
    if (b.scaling) {
      const keys = Object.entries(b.scaling).filter(([k, v]) => k !== "rope_type" && !Array.isArray(v));
      rows.push(["scaling", keys.map(([k, v]) => `${k} ${typeof v === "number" ? fmt(v) : v}`).join(", ")]);
    }
    return h("table", { class: "pe-i-table" }, h("tbody", {}, ...rows.map(([k, v]) =>
      h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, String(v))))));
  }

  function turns(b) {
    const within = [["the original context", b.pairs_turning_within_original,
      b.original_max_position_embeddings], ["max_position_embeddings",
      b.pairs_turning_within_context, b.max_position_embeddings], ["the sliding window",
      b.pairs_turning_within_window, b.sliding_window]].filter(([, n]) => n !== null);
    const stretched = b.stretch.filter((st) => st !== null && Math.abs(st - 1) > 1e-12).length;
    const said = within.map(([what, n, length]) => `${fmt(n)} within ${what} (${fmt(length)})`);
    return `Pairs completing a turn: ${said.length ? said.join(", ") : "—"}. ` +
      (stretched ? `${count(stretched, "pair is", "pairs are")} stretched against plain RoPE ` +
        "with the same base (the dashed line), up to " +
        `${fmt(Math.max(...b.stretch.filter((x) => x !== null)))}×.`
        : "No pair is stretched: plain RoPE’s ladder.");
  }

  function drawType(box, name, b, width, letter) {
    const plot = h("div", { class: "pe-i-plot" });
    const parts = [h("p", { class: "pe-i-type" }, `${letter ? `${letter}: ` : ""}${name}, ` +
      layersText(b.layers)), plot];
    const stretch = b.stretch.some((st) => st !== null && Math.abs(st - 1) > 1e-12);
    const stretchPlot = h("div", { class: "pe-i-plot" });
    if (stretch) parts.push(stretchPlot);
    const said = h("p", { class: "pe-i-readout" });
    write(said, turns(b));
    parts.push(said, settingsTable(b));
    box.replaceChildren(...parts);
    drawWavelengths(plot, name, b, width);
    if (stretch) drawStretch(stretchPlot, name, b, width);
  }

  // --- the widget

  window.peInteractive.register("inspector", (root, defaults) => {
    const models = defaults.models;
    const form = h("div", { class: "pe-i-controls" });
    const pick = h("select", { id: `pe-insp-${++uid}` },
      ...models.map(([name], i) => h("option", { value: String(i) }, name)),
      h("option", { value: "own" }, "your config (below)"));
    const seq = h("input", { type: "number", min: "1", step: "1", id: `pe-insp-${++uid}`,
      placeholder: "as loaded", inputmode: "numeric" });
    const text = h("textarea", { id: `pe-insp-${++uid}`, rows: "6", spellcheck: "false",
      placeholder: "{\"model_type\": …}" });
    const file = h("input", { type: "file", accept: ".json,application/json", id: `pe-insp-${++uid}` });
    const read = h("button", { type: "button" }, "Inspect this config");
    const box = (label, input, wide) => h("div", { class: `pe-i-control${wide ? " pe-i-wide" : ""}` },
      h("label", { for: input.id }, label), input);
    form.append(box("Model of the gallery", pick, true), box("Sequence length (seq_len)", seq));
    const own = h("details", { class: "pe-i-own" }, h("summary", {}, "Your own config.json"),
      h("div", { class: "pe-i-controls" },
        box("Paste a config.json here, or drop its file on this box", text, true),
        box("or choose a file", file, true), read));
    const message = h("p", { class: "pe-i-error", role: "alert" });
    const stripBox = h("div", { class: "pe-i-strip" });
    const types = h("div", { class: "pe-i-types" });
    const after = h("div", { class: "pe-i-after" });
    root.append(form, own, message, stripBox, types, after);
    const start = Math.max(0, models.findIndex(([name]) => name === defaults.start));
    pick.value = String(start);
    let config = models[start][1];
    let report = null;

    function run() {
      message.textContent = "";
      message.hidden = true;
      try {
        const raw = seq.value.trim();
        const seqLen = raw === "" ? null : Number(raw);
        report = window.peInspector.inspect(config, seqLen);
      } catch (error) {
        report = null;
        message.textContent = sentence(error);
        message.hidden = false;
      }
      draw();
    }

    function fromText(source) {
      pick.value = "own";
      try {
        config = configOf(source);
      } catch (error) {
        config = null;
        report = null;
        message.textContent = error.message;
        message.hidden = false;
        return draw();
      }
      return run();
    }

    function draw() {
      const width = Math.max(240, Math.floor(root.clientWidth - 24));
      if (!report) return [stripBox, types, after].forEach((el) => el.replaceChildren());
      if (report.layer_strip) drawStrip(stripBox, report, width);
      else stripBox.replaceChildren(h("p", { class: "pe-i-readout" }, "The config gives no " +
        "num_hidden_layers: the report has no layer strip, only each layer type’s RoPE."));
      const letters = report.layer_strip ? Object.fromEntries(Object.entries(report.layer_strip
        .legend).map(([letter, meaning]) => [meaning.replace(/^rotary \((.*)\)$/, "$1"), letter])) : {};
      types.replaceChildren(...Object.entries(report.layer_types).map(([name, b]) => {
        const section = h("section", { class: "pe-i-layer-type", "aria-label": `layer type ${name}` });
        drawType(section, name, b, width, letters[name]);
        return section;
      }));
      const lines = [];
      if (report.positions) lines.push(["", nonrotary(report.positions)]);
      if (!Object.keys(report.layer_types).length && !report.positions) {
        lines.push(["", "No layer rotates: there are no RoPE frequencies to show."]);
      }
      if (report.temperature) {
        const t = report.temperature;
        lines.push(["", `Attention temperature: queries × (1 + ${fmt(t.beta)} · ln(1 + ⌊(p + ` +
          `${t.offset}) / ${fmt(t.floor_scale)}⌋)) on ${layersText(t.layers)}.`]);
      }
      if (report.mla) {
        lines.push(["", `MLA: ${report.mla.qk_rope_head_dim} rotated and ` +
          `${report.mla.qk_nope_head_dim} unrotated dims per head; softmax scale ` +
          `${fmt(report.mla.softmax_scale, 6)} (plain 1/√d: ${fmt(report.mla.plain_softmax_scale, 6)}).`]);
      }
      report.warnings.forEach((w) => lines.push(["Warning: ", w]));
      report.not_modelled.forEach((w) => lines.push(["Not modelled: ", w]));
      report.notes.forEach((w) => lines.push(["Note: ", w]));
      after.replaceChildren(h("ul", { class: "pe-i-notes" }, ...lines.map(([what, said]) =>
        h("li", { class: what === "Warning: " ? "pe-i-warning" : "" },
          ...(what ? [h("strong", {}, what)] : []), said))));
    }

    const nonrotary = (p) => (p.kind === "learned"
      ? `No rotary embedding: learned absolute positions, a table of ${fmt(p.positions)} ` +
        "positions added to the input once."
      : p.kind === "alibi" ? `No rotary embedding: ALiBi’s linear bias on every layer’s ` +
        `scores, ${p.num_heads} heads, slopes from ${fmt(p.slopes[0])} to ` +
        `${fmt(p.slopes[p.slopes.length - 1])}.`
        : `No rotary embedding: T5’s bucketed relative bias, ${p.num_buckets} buckets, ` +
          `max_distance ${p.max_distance}: keys ${fmt(p.shared_bucket_from.encoder)} or ` +
          "more positions before the query share one bucket in the encoder, " +
          `${fmt(p.shared_bucket_from.decoder)} or more in the decoder.`);

    pick.addEventListener("change", () => {
      if (pick.value === "own") return fromText(text.value);
      config = models[+pick.value][1];
      text.value = JSON.stringify(config, null, 1);
      return run();
    });
    seq.addEventListener("change", () => (config ? run() : undefined));
    read.addEventListener("click", () => fromText(text.value));
    const load = (f) => {
      if (!f) return;
      const reader = new FileReader();
      reader.onload = () => {
        text.value = String(reader.result);
        fromText(text.value);
      };
      reader.onerror = () => fromText("");
      reader.readAsText(f);
    };
    file.addEventListener("change", () => load(file.files[0]));
    text.addEventListener("dragover", (event) => event.preventDefault());
    text.addEventListener("drop", (event) => {
      event.preventDefault();
      load(event.dataTransfer.files[0]);
    });
    text.value = JSON.stringify(config, null, 1);
    run();
    return draw;
  });
})();

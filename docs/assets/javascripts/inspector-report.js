/* The config inspector, part 4: the report (model_report.py) of a config's reading
 * (inspector-reading.js), as window.peInspector.inspect(config, seqLen).
 * One of the parts of the config inspector (docs/appendix/inspector.md), loaded in order
 * before inspector.js: together they compute the report of `python -m pe_explained
 * inspect --json` (pe_explained.model_report.inspect_config) as window.peInspector.inspect;
 * tests/test_inspector.py compares the two. Classic script, nothing fetched.
 */
(function () {
  "use strict";

  const {
    isMap, isInt, num, has, get, truthy, range, typeName, repr, g, fail, checkInt, checkConfigInt,
    checkFloat, checkBool, checkMapping,
    key, mscale, ropeFrequencies, frequencies, SOURCES, settingsFrequencies, read,
  } = window.peInspector;

  // --- model_report.py: the report of a config's reading (read, inspector-reading.js)

  const FACTOR_TYPES = ["linear", "dynamic", "yarn", "llama3", "longrope"];
  const STRIP = { nope: "n", recurrence: "~", absolute: "a", bias: "b", none: "-" };
  // a layer whose family's code is not read
  const ASSUMED = "?";
  const ASSUMED_LEGEND = "not read: assumed rotary with the file's settings";
  const NONROTARY_LEGEND = {
    learned: "attention; positions from a learned table added to the input",
    alibi: "attention with ALiBi's linear bias on its scores",
    t5_bias: "attention with T5's bucketed relative bias on its scores",
  };

  function summary(inv, attention, plain, original, context, window) {
    if (plain.length !== inv.length) fail("zip() arguments differ in length");
    const turning = inv.map((w) => w > 0);
    const wavelengths = inv.map((w) => (w > 0 ? (2 * Math.PI) / w : Infinity));
    const finite = wavelengths.filter((l, i) => turning[i]);
    const out = {
      inv_freq: inv, attention_factor: attention, pairs: inv.length,
      zero_frequency_pairs: turning.filter((t) => !t).length,
      wavelength_min: finite.length ? Math.min(...finite) : null,
      wavelength_max: finite.length ? Math.max(...finite) : null,
      stretch: inv.map((w, i) => (w > 0 ? plain[i] / w : null)),
    };
    const span = window === null ? null : Math.min(num(window), num(truthy(context) ? context : window));
    [["original", original], ["context", context], ["window", span]].forEach(([name, length]) => {
      out[`pairs_turning_within_${name}`] = length === null ? null
        : wavelengths.filter((l) => l <= length).length;
    });
    return out;
  }

  function layerReport(s, layers, seqLen, window) {
    const original = s.original_max_position_embeddings;
    const context = s.max_position_embeddings;
    const plain = ropeFrequencies(s.head_dim, s.rope_theta, null, null,
      s.rope_type === "proportional" ? 1 : s.partial_rotary_factor)[0];
    const block = {
      layers, rope_type: s.rope_type, rope_theta: s.rope_theta, head_dim: s.head_dim,
      rotary_dim: s.rotary_dim, partial_rotary_factor: s.partial_rotary_factor, layout: s.layout,
      original_max_position_embeddings: original, max_position_embeddings: context,
      scaling: s.scaling, sliding_window: window, ...s.extra,
    };
    const [inv, factor] = settingsFrequencies(s, seqLen);
    Object.assign(block, summary(inv, factor, plain, original, context, window));
    if (s.rope_type === "longrope") {
      [["short", original], ["long", original + 1]].forEach(([name, length]) => {
        const [w, a] = settingsFrequencies(s, length);
        block[name] = summary(w, a, plain, original, context, window);
      });
    }
    return block;
  }

  function warnings(s, seqLen) {
    const out = [];
    const [type, original, context] = [s.rope_type, s.original_max_position_embeddings,
      s.max_position_embeddings];
    const factor = get(s.scaling || {}, "factor");
    if (FACTOR_TYPES.includes(type) && truthy(factor) && truthy(original) && truthy(context) &&
      context !== original) {
      const ratio = context / original;
      if (Math.abs(num(factor) - ratio) > 1e-9 * Math.max(Math.abs(num(factor)), Math.abs(ratio))) {
        out.push(`factor ${g(factor)} differs from max_position_embeddings / ` +
          `original_max_position_embeddings = ${context} / ${original} = ${g(ratio)}; ` +
          "the frequencies use the factor as given");
      }
    }
    if (type === "dynamic") {
      out.push("dynamic scaling recomputes the frequencies from the current length: keys " +
        "already in a KV cache keep the rotation of the length they were cached at");
    }
    if (type === "yarn") {
      out.push("YaRN here is static: the stretched frequencies and the attention factor apply " +
        `at every length, also to inputs shorter than ${original} tokens`);
    }
    if (type === "longrope") {
      out.push(`LongRoPE switches from the short to the long factors past ${original} tokens: ` +
        "keys cached before the switch keep the short rotation");
    }
    if (seqLen !== null && context !== null && seqLen > context) {
      out.push(`seq_len ${seqLen} is beyond max_position_embeddings = ${context}`);
    }
    return out;
  }

  // block_keys: a layer's block, its RoPE key, split by window where one key has several
  function blockKeys(positions) {
    const windows = {}, byType = {};
    const add = (table, key, p) => { (table[key] = table[key] || new Set()).add(String(p.window)); };
    positions.filter((p) => p.rope !== null).forEach((p) => {
      add(windows, p.rope, p);
      add(byType, JSON.stringify([p.rope, p.layer_type]), p);
    });
    return positions.map((p) => {
      if (p.rope === null || windows[p.rope].size === 1) return p.rope;
      const typed = Object.entries(byType).filter(([k]) => JSON.parse(k)[0] === p.rope);
      if (typed.every(([, w]) => w.size === 1)) return p.layer_type;
      return p.window ? `${p.rope}, window ${p.window}` : `${p.rope}, no window`;
    });
  }

  function stripLetters(positions) {
    const keys = [...new Set(blockKeys(positions).filter((k) => k !== null))];
    if (keys.length <= 1) return Object.fromEntries(keys.map((k) => [k, "R"]));
    let letters = Object.fromEntries(keys.map((k) => [k, k[0].toUpperCase()]));
    if (new Set(Object.values(letters)).size < keys.length) {
      letters = Object.fromEntries(keys.map((k, i) => [k, String(i)]));
    }
    return letters;
  }

  function layerStrip(positions, kind = null) {
    const letters = stripLetters(positions);
    const blocks = blockKeys(positions);
    const strip = positions.map((p, i) => (p.assumed ? ASSUMED
      : blocks[i] ? letters[blocks[i]] : STRIP[p.source])).join("");
    const read = new Set(blocks.filter((k, i) => k && !positions[i].assumed));
    const legend = {};
    Object.entries(letters).forEach(([k, letter]) => {
      if (read.has(k)) legend[letter] = `rotary (${k})`;
    });
    if (positions.some((p) => p.assumed)) legend[ASSUMED] = ASSUMED_LEGEND;
    const mixers = [...new Set(positions.filter((p) => p.source === "recurrence")
      .map((p) => p.mixer))].sort();
    if (positions.some((p) => p.source === "nope")) legend.n = "attention without rotation (NoPE)";
    if (mixers.length) legend["~"] = `no attention (${mixers.join(", ")}): order from the recurrence`;
    const alone = [...new Set(positions.filter((p) => p.source === "none").map((p) => p.mixer))]
      .sort();
    if (alone.length) legend["-"] = `no token mixing (${alone.join(", ")}): position does not enter`;
    ["absolute", "bias"].forEach((source) => {
      if (kind !== null && positions.some((p) => p.source === source)) {
        legend[STRIP[source]] = NONROTARY_LEGEND[kind];
      }
    });
    const counts = Object.fromEntries(SOURCES.map((x) => [x, positions
      .filter((p) => p.source === x).length]));
    return { strip, legend, counts, assumed: positions.filter((p) => p.assumed).length };
  }

  // _t5_shared: the smallest distance before the query in T5's last bucket, per stack,
  // with t5_relative_bucket's logarithm in float32 (both were checked by nonrotary)
  function t5Shared(s) {
    const f = Math.fround;
    const bucket = (n, perDirection) => {
      const exact = Math.floor(perDirection / 2);
      if (n < exact) return n;
      const scaled = f(f(f(Math.log(f(f(Math.max(n, exact)) / f(exact)))) /
        f(Math.log(s.max_distance / exact))) * f(perDirection - exact));
      return Math.min(exact + Math.trunc(scaled), perDirection - 1);
    };
    // by bisection, as the library does: a bucket never decreases with the distance
    const first = (perDirection) => {
      const last = bucket(s.max_distance, perDirection);
      let low = 0, high = s.max_distance;
      while (low < high) {
        const middle = Math.floor((low + high) / 2);
        if (bucket(middle, perDirection) === last) high = middle; else low = middle + 1;
      }
      return low;
    };
    return { encoder: first(Math.floor(s.num_buckets / 2)), decoder: first(s.num_buckets) };
  }

  // _mla: MLA's head split and softmax scale, every value checked under its config name
  function mla(cfg, path) {
    const nope = checkConfigInt(key(path, "qk_nope_head_dim"), cfg.qk_nope_head_dim, "head_dim", 0);
    const rope = checkConfigInt(key(path, "qk_rope_head_dim"), cfg.qk_rope_head_dim, "head_dim", 2);
    const k = truthy(get(cfg, "rope_scaling")) ? "rope_scaling" : "rope_parameters";
    const where = key(path, k);
    const scaling = isMap(get(cfg, k)) ? cfg[k] : null;
    const kind = scaling === null ? null : get(scaling, "rope_type", get(scaling, "type", "default"));
    if (kind !== "default" && scaling !== null && truthy(get(scaling, "mscale_all_dim"))) {
      if (get(scaling, "factor") === null) {
        fail(`${where}['factor'] is needed with ${where}['mscale_all_dim'] (MLA)`);
      }
      const factor = checkFloat(`${where}['factor']`, scaling.factor, { gt: 0 });
      const all = checkFloat(`${where}['mscale_all_dim']`, scaling.mscale_all_dim);
      if (factor > 1 && Math.abs(0.1 * all * Math.log(factor) + 1) >= 1e150) {
        fail(`${where}['mscale_all_dim'] = ${g(all)} with factor ${g(factor)} puts MLA's ` +
          "softmax scale beyond float64");
      }
    }
    return { qk_nope_head_dim: nope, qk_rope_head_dim: rope,
      softmax_scale: mlaScale(nope, rope, scaling), plain_softmax_scale: 1 / Math.sqrt(nope + rope) };
  }

  function mlaScale(nope, rope, scaling) {
    nope = checkInt("qk_nope_head_dim", nope, 0);
    rope = checkInt("qk_rope_head_dim", rope, 2);
    const scale = 1 / Math.sqrt(nope + rope);
    if (scaling === null) return scale;
    const type = get(scaling, "rope_type", get(scaling, "type", "default"));
    if (type === "default" || !truthy(get(scaling, "mscale_all_dim"))) return scale;
    if (get(scaling, "factor") === null) {
      fail("scaling['factor'] is needed with scaling['mscale_all_dim']");
    }
    const factor = checkFloat("scaling['factor']", scaling.factor, { gt: 0 });
    const all = checkFloat("scaling['mscale_all_dim']", scaling.mscale_all_dim);
    return scale * mscale(factor, all) ** 2;
  }

  function nonrotaryReport(model) {
    const positions = model.layers, scheme = model.nonrotary;
    const keys = "kind where num_heads positions offset slopes num_buckets max_distance read_from";
    return {
      model_type: model.model_type, config_shape: model.config_shape, read_from: model.read_from,
      num_hidden_layers: positions.length, layers: positions,
      layer_strip: layerStrip(positions, scheme.kind), layer_types: {}, nope_layers: [],
      recurrent_layers: [], notes: model.notes, not_modelled: model.not_modelled,
      warnings: [], temperature: null, mla: null,
      positions: { ...Object.fromEntries(keys.split(" ").map((k) => [k, scheme[k]])),
        shared_bucket_from: scheme.kind === "t5_bias" ? t5Shared(scheme) : null },
    };
  }

  // inspect_config(config, seq_len=): the report of the config's reading, a plain object
  function inspect(config, seqLen = null) {
    if (seqLen !== null) checkConfigInt("seq_len", seqLen, "length");
    const model = read(config);
    if (model.nonrotary) return nonrotaryReport(model);
    const positions = model.layers;
    const settings = model.rotates ? model.rope : {};
    const indices = (source) => positions && positions.filter((p) => p.source === source)
      .map((p) => p.index);
    const report = {
      model_type: model.model_type, config_shape: model.config_shape, read_from: model.read_from,
      num_hidden_layers: positions && positions.length, layers: positions,
      layer_strip: positions && layerStrip(positions), layer_types: {},
      nope_layers: indices("nope"), recurrent_layers: indices("recurrence"),
      notes: model.notes, not_modelled: model.not_modelled, warnings: [], positions: null,
    };
    const blocks = positions ? blockKeys(positions) : [];
    Object.entries(settings).forEach(([type, entry]) => {
      if (entry === null) return;
      if (!positions) {
        report.layer_types[type] = { ...layerReport(entry, null, seqLen, null), rope: type };
      }
      // one block per window of the type's layers (gpt-oss: one RoPE, two windows)
      const groups = new Map();
      (positions || []).forEach((p, i) => {
        if (p.rope !== type) return;
        if (!groups.has(blocks[i])) groups.set(blocks[i], []);
        groups.get(blocks[i]).push(p);
      });
      groups.forEach((members, key) => {
        const window = members[0].window === null ? null : num(members[0].window);
        report.layer_types[key] = {
          ...layerReport(entry, members.map((p) => p.index), seqLen, window), rope: type };
      });
      if (!positions || groups.size) {
        report.warnings.push(...warnings(entry, seqLen).map((w) => `${type}: ${w}`));
      }
    });
    report.temperature = model.temperature;
    report.mla = null;
    const cfg = model.text;
    if (get(cfg, "qk_rope_head_dim") !== null && get(cfg, "qk_nope_head_dim") !== null) {
      report.mla = mla(cfg, model.read_from);
    }
    // plain numbers from here on (the Floats of the file become JSON numbers)
    return JSON.parse(JSON.stringify(report));
  }

  Object.assign(window.peInspector, {
    inspect,
  });
})();

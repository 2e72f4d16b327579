/* The config inspector, part 3: a config read once (model_reading.py), as
 * window.peInspector.read(config): one description of where every layer's positions come
 * from, which the report (inspector-report.js) reads instead of the file.
 * One of the parts of the config inspector (docs/appendix/inspector.md), loaded in order
 * before inspector.js: together they compute the report of `python -m pe_explained
 * inspect --json` (pe_explained.model_report.inspect_config) as window.peInspector.inspect;
 * tests/test_inspector.py compares the two. Classic script, nothing fetched.
 */
(function () {
  "use strict";

  const {
    isMap, isInt, num, has, get, truthy, typeName, repr, g, fail, checkConfigInt, checkBool,
    checkMapping, key, standardise, INTERLEAVED, HALVES, statesRope, textPart, readRope,
    readLayers, nonrotaryLayers, readTemperature, nonrotary, family,
  } = window.peInspector;

  // Keys that change positions and that the library does not model, with what they do.
  const NOT_MODELLED = {
    dual_chunk_attention_config: "Dual Chunk Attention (Qwen2.5-1M) remaps positions inside " +
      "and across chunks at inference in the runtimes that ran it (vLLM up to 0.10, in its V0 " +
      "engine; vLLM 0.33.0 and transformers 5.23 do not): the frequencies above are " +
      "unchanged, the distances a query sees are not",
    use_fope: "FoPE replaces RoPE's frequencies with learned Fourier series",
    xdrope_section: "XD-RoPE splits the rotated pairs into sections of other positions",
    position_embedding_xdrope: "XD-RoPE (Hunyuan's remote code) splits the rotated pairs into " +
      "sections of other positions",
  };
  // what the config sets that changes positions and is not in the numbers
  const notModelled = (cfg, path) => Object.entries(NOT_MODELLED)
    .filter(([k]) => truthy(get(cfg, k)))
    .map(([k, what]) => `${key(path, k)}: ${what}${k === DCA ? dualChunkDetail(cfg, path) : ""}`);

  // dual_chunk_config's checks and defaults, then dual_chunk_largest_distance over the
  // context with the code's query positions (pe_explained/dual_chunk.py)
  const DCA = "dual_chunk_attention_config";
  const DCA_DEFAULTS = { chunk_size: 8192, local_size: 1024, original_max_position_embeddings: 0,
    sparse_attention_config: null, sparse_attention_enabled: null,
    sparse_attention_threshold: 32768, sparse_attention_last_q: 64 };
  function dualChunkDetail(cfg, path) {
    if (get(cfg, "max_position_embeddings") === null) return "";
    const dca = cfg[DCA];
    if (!isMap(dca)) {
      fail(`config must be a dict (a dual_chunk_attention_config), got ${typeName(dca)}`,
        "TypeError");
    }
    const unknown = Object.keys(dca).filter((k) => !has(DCA_DEFAULTS, k)).sort();
    if (unknown.length) {
      fail(`config has unknown key(s) ${repr(unknown)}; ${DCA} takes ` +
        repr(Object.keys(DCA_DEFAULTS).sort()));
    }
    const v = { ...DCA_DEFAULTS, ...dca };
    const int = (k, least) => checkConfigInt(`config['${k}']`, v[k], "length", least);
    const chunk = int("chunk_size", 1), local = int("local_size", 0);
    if (local >= chunk) {
      fail(`config['local_size'] must be < config['chunk_size'] (${chunk}), got ${local}`);
    }
    const sparse = v.sparse_attention_config;
    if (sparse !== null && !Array.isArray(sparse)) {
      fail("config['sparse_attention_config'] must be a list (one entry per layer), got " +
        typeName(sparse), "TypeError");
    }
    int("original_max_position_embeddings", 0);
    const enabled = v.sparse_attention_enabled;
    checkBool("config['sparse_attention_enabled']", enabled === null ? sparse !== null : enabled);
    int("sparse_attention_threshold", 0);
    int("sparse_attention_last_q", 1);
    const context = checkConfigInt(key(path, "max_position_embeddings"),
      cfg.max_position_embeddings, "length");
    const len = chunk - local;
    let largest = Math.min(context, len) - 1; // within the first chunk
    if (context > len) { // the second chunk's last query to key 0, then any later chunk's
      largest = Math.max(largest, Math.min(Math.min(context - 1 - len, len - 1) + len, chunk));
      if (context > 2 * len) largest = Math.max(largest, Math.min(2 * len - 1, chunk));
    }
    return `; with chunk_size ${chunk} and local_size ${local} the largest distance any ` +
      `query sees over ${context} tokens is ${largest} (pe_explained.dual_chunk)`;
  }

  // what the reader should know about the family's code that the numbers do not say
  function familyNotes(cfg, path, positions) {
    const out = [];
    const type = get(cfg, "model_type");
    let scaling = [get(cfg, "rope_scaling"), get(cfg, "rope_parameters")].find(truthy) || {};
    if (isMap(scaling) && get(scaling, "rope_type", get(scaling, "type")) === "yarn" &&
      get(scaling, "beta_fast") !== null && num(scaling.beta_fast) === num(get(scaling, "beta_slow"))) {
      out.push(`beta_fast = beta_slow = ${g(scaling.beta_fast)}: YaRN's ramp has no width, so ` +
        "every pair is either kept or divided by the factor, a step (Kimi K2's setting)");
    }
    const entry = family(type); // its keys not read, and its notes
    Object.entries((entry && entry.unread) || {}).forEach(([k, why]) => {
      if (has(cfg, k)) out.push(`${key(path, k)} = ${repr(cfg[k])} is not read: ${why}`);
    });
    if (entry) out.push(...entry.notes);
    if (get(cfg, "num_kv_shared_layers") !== null) {
      checkConfigInt(key(path, "num_kv_shared_layers"), cfg.num_kv_shared_layers, "layers", 0);
    }
    if (truthy(get(cfg, "num_kv_shared_layers"))) {
      out.push(`the last ${cfg.num_kv_shared_layers} layers rotate their ` +
        "queries only and reuse keys (already rotated) from an earlier layer of their type " +
        "(num_kv_shared_layers)");
    }
    const tuning = get(cfg, "attn_temperature_tuning");
    if (isInt(tuning)) {
      out.push(`${key(path, "attn_temperature_tuning")} = ${tuning}: the modeling code tests ` +
        "only its truth; transformers 5.23's config class accepts only true or false");
    }
    // without num_hidden_layers (positions null) the model is read as rotating
    if ((!positions || positions.some((p) => p.source === "rotary")) && !HALVES.has(type) &&
      !INTERLEAVED.has(type) && get(cfg, "rope_interleave") === null) {
      out.push(`model_type ${repr(type)} is not one whose code this library has read: its ` +
        "pairing is assumed 'halves' (rotate_half, as most transformers models); check its " +
        "apply_rotary_pos_emb");
    }
    return out;
  }

  // read_model(config): the description every consumer reads
  function read(config) {
    checkMapping(config);
    const scheme = statesRope(config) ? null : nonrotary(config);
    if (scheme) return nonrotaryModel(config, scheme);
    const [raw, path] = textPart(config);
    const [cfg, notes] = standardise(raw, path);
    // what the family's class fills in where the file is silent (a window, a pattern)
    const entry = family(get(cfg, "model_type"));
    Object.entries((entry && entry.defaults) || {}).forEach(([k, value]) => {
      if (has(cfg, k)) return;
      cfg[k] = value;
      notes.push(`${path} states no ${k}: ${value} (class default of ${repr(cfg.model_type)} ` +
        "in transformers)");
    });
    let settings;
    const rope = () => {
      if (settings === undefined) settings = readRope(cfg, path);
      return settings;
    };
    const layers = get(cfg, "num_hidden_layers") === null ? null : readLayers(cfg, path, rope);
    const refused = {};
    let ropeRead = null;
    if (layers === null || layers.some((p) => p.source === "rotary")) {
      ropeRead = rope();
    } else {
      try {
        ropeRead = rope();
      } catch (error) { // no layer needs them
        if (error.name !== "TypeError" && error.name !== "ValueError") throw error;
        refused.rope = error;
      }
    }
    notes.push(...familyNotes(cfg, path, layers));
    const unmodelled = notModelled(cfg, path);
    let temperature = null;
    try {
      temperature = readTemperature(cfg, path, layers);
    } catch (error) { // it needs the layers the config does not give
      if (layers !== null || (error.name !== "TypeError" && error.name !== "ValueError")) {
        throw error;
      }
      refused.temperature = error;
    }
    return {
      model_type: get(cfg, "model_type", get(config, "model_type")),
      read_from: path,
      config_shape: has(raw, "rope_parameters") && !truthy(get(raw, "rope_scaling")) ? "v5" : "v4",
      text: cfg, rope: ropeRead, refused, layers, nonrotary: null, temperature, notes,
      not_modelled: unmodelled, family: family(get(cfg, "model_type")),
      rotates: layers === null || layers.some((p) => p.source === "rotary"),
    };
  }

  function nonrotaryModel(config, scheme) {
    const notes = [];
    if (scheme.note !== null) notes.push(scheme.note);
    if (scheme.family === "mpt" && truthy(get(config, "learned_pos_emb"))) {
      notes.push("learned_pos_emb is true: MosaicML's own code (llm-foundry's modeling_mpt.py) " +
        "then also adds a learned table of max_seq_len rows to the input; transformers' " +
        "MptModel has no such table and reads ALiBi alone");
    }
    if (!has(config, "model_type")) {
      notes.push(`config gives no model_type: read as ${repr(scheme.family)} by its architectures`);
    }
    return {
      model_type: scheme.family, read_from: "config", config_shape: "v4", text: config,
      rope: null, refused: {}, layers: nonrotaryLayers(scheme), nonrotary: scheme,
      temperature: null, notes, not_modelled: notModelled(config, "config"), family: null,
      rotates: false,
    };
  }

  Object.assign(window.peInspector, { read });
})();

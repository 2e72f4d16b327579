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
    isMap, isInt, isReal, num, has, get, pop, truthy, range, set, typeName, repr, g, fail,
    checkConfigInt, checkFloat, checkBase, checkBool, checkMapping, key, standardise, ropeDict,
    INTERLEAVED, HALVES, statesRope, textPart, readRope, readLayers, nonrotaryLayers,
    readTemperature, nonrotary, family,
  } = window.peInspector;

  // --- hf_families.py, the rules of the families read last: the end of standardise()

  // Mistral 4: head_dim is qk_nope_head_dim + qk_rope_head_dim; the share of it rotated
  // must be the qk_rope_head_dim dims of MLA (read as all of them); YaRN without a RoPE dict
  const MISTRAL4_ROPE = { rope_type: "yarn", rope_theta: 1e4, factor: 128,
    original_max_position_embeddings: 8192, beta_fast: 32, beta_slow: 1, mscale_all_dim: 1,
    mscale: 1, llama_4_scaling_beta: 0.1 };
  function mistral4(cfg, path, notes) {
    const ropeDim = num(checkConfigInt(key(path, "qk_rope_head_dim"),
      get(cfg, "qk_rope_head_dim", 64), "head_dim", 2));
    const nope = num(checkConfigInt(key(path, "qk_nope_head_dim"),
      get(cfg, "qk_nope_head_dim", 64), "head_dim", 0));
    const head = ropeDim + nope;
    let [k, rope] = ropeDict(cfg);
    if (rope === null) {
      k = "rope_parameters";
      rope = { ...MISTRAL4_ROPE };
      if (get(cfg, "max_position_embeddings") !== null) {
        rope.max_position_embeddings = cfg.max_position_embeddings;
      }
      notes.push(`${path} gives no RoPE dict: Mistral4Config installs 'yarn' with its defaults`);
    }
    const where = `${key(path, k)}['partial_rotary_factor']`;
    let share = checkFloat(where, get(rope, "partial_rotary_factor", ropeDim / head),
      { gt: 0, le: 1 });
    // Mistral4RotaryEmbedding's own default RoPE reads no share: the whole head
    const plain = get(rope, "rope_type", get(rope, "type", "default")) === "default";
    const rotated = plain ? head : Math.floor(head * share);
    if (rotated !== ropeDim) {
      const what = plain ? `${key(path, k)}: rope_type 'default' (which reads no share)`
        : `${where} = ${g(share)}`;
      fail(`${what} rotates ${rotated} dims of head_dim ${head} (qk_nope_head_dim + ` +
        `qk_rope_head_dim), not the qk_rope_head_dim = ${ropeDim} dims MLA rotates: ` +
        "Mistral4Attention cannot run it");
    }
    if (plain) share = ropeDim / head;
    cfg[k] = { ...rope, partial_rotary_factor: 1 };
    delete cfg.partial_rotary_factor;
    notes.push(`Mistral4Config makes head_dim qk_nope_head_dim + qk_rope_head_dim = ${head} ` +
      `and rotates ${g(share)} of it: the qk_rope_head_dim = ${ropeDim} dims of MLA, read ` +
      "here as all of qk_rope_head_dim");
  }

  // layer_rope_theta (0: NoPE) as no_rope_layers: Granite SWA rotates each layer by its own
  // base; Muse Glimmer's text model by rope_parameters' (without the list: every 4th NoPE
  // counted back from the last)
  const LAYER_ROPE_THETA = set("granite_swa granitemoe_swa muse_glimmer_text");
  function layerRopeTheta(cfg, path, notes) {
    const muse = cfg.model_type === "muse_glimmer_text";
    let thetas = get(cfg, "layer_rope_theta");
    const name = key(path, "layer_rope_theta");
    if (get(cfg, "num_hidden_layers") === null) return;
    const count = num(checkConfigInt(key(path, "num_hidden_layers"), cfg.num_hidden_layers,
      "layers"));
    if (thetas === null) {
      if (muse) {
        cfg.no_rope_layers = range(count).map((i) => ((count - 1 - i) % 4 !== 0 ? 1 : 0));
        notes.push(`${path} gives no layer_rope_theta: MuseGlimmerTextConfig makes every 4th ` +
          "layer counted back from the last NoPE");
      }
      return;
    }
    if (!Array.isArray(thetas)) {
      fail(`${name} must be a list of bases (0: NoPE), got ${repr(thetas)}`, "TypeError");
    }
    if (thetas.length < count) {
      fail(`${name} has ${thetas.length} entries, fewer than ` +
        `${key(path, "num_hidden_layers")} = ${count}`);
    }
    thetas = thetas.slice(0, count).map((t) => (isReal(t) && num(t) === 0 ? 0
      : checkBase(name, t)));
    cfg.no_rope_layers = thetas.map((t) => (t !== 0 ? 1 : 0));
    const bases = [...new Set(thetas.filter((t) => t !== 0))].sort((a, b) => a - b);
    const listed = bases.map((t) => g(t)).join(", ");
    const [, rope] = ropeDict(cfg);
    if (rope !== null && Object.values(rope).every(isMap)) return; // one dict per layer type
    const base = get(rope || {}, "rope_theta", get(cfg, "rope_theta", 1e4));
    if (muse) {
      const others = bases.filter((t) => isReal(base) && t !== num(base)).map((t) => g(t));
      if (others.length) {
        notes.push(`${name} holds bases (${others.join(", ")}) other than rope_theta ` +
          `${g(base)}: MuseGlimmerTextModel rotates every layer whose entry is not 0 by ` +
          "rope_parameters' base; those values are not read as bases");
      }
      return;
    }
    if (!bases.length) return;
    const given = { ...(rope || { rope_type: "default" }) };
    if (bases.length === 1) {
      cfg.rope_parameters = { ...given, rope_theta: bases[0] };
    } else {
      const types = get(cfg, "layer_types");
      const readable = Array.isArray(types) && types.every((t) => typeof t === "string");
      const byType = {};
      if (readable) {
        thetas.forEach((theta, i) => {
          if (theta && i < types.length) (byType[types[i]] ||= new Set()).add(theta);
        });
      }
      if (!readable || Object.values(byType).some((found) => found.size > 1)) {
        fail(`${name} gives layers of one type different bases (${listed}): the model rotates ` +
          "each layer by its own base, and this library reads one RoPE per layer type");
      }
      cfg.rope_parameters = Object.fromEntries([...new Set(types.slice(0, count))].map((kind) =>
        [kind, { ...given, rope_theta: has(byType, kind) ? [...byType[kind]][0] : base }]));
    }
    delete cfg.rope_scaling;
    delete cfg.rope_theta;
    notes.push(`${name} gives each layer its base (${listed}; 0: NoPE): one rotary embedding ` +
      "per base");
  }

  // ModernBERT: one RoPE per layer type, bases from the legacy global_rope_theta and
  // local_rope_theta, a flat rope_scaling on both; its window is local_attention // 2
  function modernbert(cfg, path, notes, decoder = false) {
    const rope = get(cfg, "rope_parameters");
    const nested = isMap(rope) && Object.values(rope).some(isMap);
    const byType = nested ? { ...rope } : {};
    const scaling = pop(cfg, "rope_scaling");
    if (truthy(scaling) && !isMap(scaling)) {
      fail(`${key(path, "rope_scaling")} must be a dict, got ${typeName(scaling)}`, "TypeError");
    }
    [["full_attention", "global_rope_theta", 16e4], ["sliding_attention", "local_rope_theta", 1e4]]
      .forEach(([kind, legacy, theta]) => {
        let entry = get(byType, kind);
        if (entry !== null && !isMap(entry)) return; // refused where the RoPE is read
        entry = { ...(entry || { rope_type: "default" }), ...(scaling || {}) };
        if (!has(entry, "rope_theta")) {
          entry.rope_theta = get(cfg, legacy, theta);
          if (has(cfg, legacy)) {
            notes.push(`${key(path, legacy)} = ${repr(cfg[legacy])} is the ${kind} layers' base`);
          }
        }
        byType[kind] = entry;
      });
    cfg.rope_parameters = byType;
    if (get(cfg, "sliding_window") === null) {
      const local = num(checkConfigInt(key(path, "local_attention"),
        get(cfg, "local_attention", 128), "length"));
      cfg.sliding_window = Math.floor(local / 2);
      notes.push(`${key(path, "local_attention")} = ${local}: ` +
        `ModernBert${decoder ? "Decoder" : ""}Config's sliding_window is half of it, ` +
        `${Math.floor(local / 2)} ${decoder ? "keys back" : "keys on each side"}`);
    }
  }

  // NeoMME: one RoPE per layer type filled in from rope_theta (both) or the class's bases
  // and shares; without per_layer_config, every second sliding layer's window is 1024
  function neomme(cfg, path, notes) {
    const rope = get(cfg, "rope_parameters");
    const byType = isMap(rope) ? { ...rope } : {};
    const theta = pop(cfg, "rope_theta");
    if (theta !== null) {
      notes.push(`${key(path, "rope_theta")} = ${repr(theta)} is both layer types' base ` +
        "(NeoMMEConfig)");
    }
    [["full_attention", 1e6, 0.25], ["sliding_attention", 1e4, 1]].forEach(([kind, base, share]) => {
      const entry = get(byType, kind, {});
      if (!isMap(entry)) return; // refused where the RoPE is read
      byType[kind] = { partial_rotary_factor: share, rope_type: "default",
        rope_theta: theta === null ? base : theta, ...entry };
    });
    cfg.rope_parameters = byType;
    if (has(cfg, "per_layer_config") || get(cfg, "num_hidden_layers") === null) return;
    const count = num(checkConfigInt(key(path, "num_hidden_layers"), cfg.num_hidden_layers,
      "layers"));
    let types = get(cfg, "layer_types");
    if (!Array.isArray(types)) {
      types = range(count).map((i) => ((i + 1) % 6 === 0 || i === count - 1 ? "full_attention"
        : "sliding_attention"));
    }
    const sliding = range(Math.min(count, types.length))
      .filter((i) => types[i] === "sliding_attention");
    cfg.per_layer_config = Object.fromEntries(sliding.filter((_, j) => j % 2 === 1)
      .map((i) => [String(i), { sliding_window: 1024 }]));
    notes.push(`${path} gives no per_layer_config: NeoMMEConfig gives every second sliding ` +
      "layer a window of 1024");
  }

  // UltraBERT's legacy lists (a rope_theta per layer, attention_windows): refused
  function ultrabert(cfg, path) {
    ["rope_theta", "attention_windows"].forEach((k) => {
      if (Array.isArray(get(cfg, k))) {
        fail(`${key(path, k)} is a list, the legacy form UltrabertConfig turns into one RoPE ` +
          "per layer type: this library does not read it (a config saved by transformers 5 " +
          "gives rope_parameters and layer_types)");
      }
    });
  }

  // EmbeddingGemma 2, Gemma 4 Unified: full-attention heads of global_head_dim (512)
  function globalHeadDim(cfg, path, notes) {
    if (!has(cfg, "per_layer_config") && get(cfg, "global_head_dim") === null) {
      cfg.global_head_dim = 512;
      notes.push(`${path} gives no per_layer_config or global_head_dim: the class gives the ` +
        "full-attention layers heads of 512");
    }
  }

  // LongCat-Flash: two attention sublayers in each of its num_layers decoder layers; a
  // stated num_hidden_layers sets num_layers to half of it, rounded down, and wins
  function longcatFlash(cfg, path, notes) {
    if (get(cfg, "num_hidden_layers") !== null) {
      const name = key(path, "num_hidden_layers");
      const given = num(checkConfigInt(name, cfg.num_hidden_layers, "layers"));
      if (given < 2) fail(`${name} = ${given}: LongcatFlashConfig keeps num_layers = 0`);
      const half = Math.floor(given / 2);
      if (given % 2) {
        notes.push(`${name} = ${given}: LongcatFlashConfig keeps num_layers = ${half}, ` +
          `so ${2 * half} attention sublayers`);
      }
      cfg.num_hidden_layers = 2 * half;
      return;
    }
    const name = key(path, "num_layers");
    const layers = num(checkConfigInt(name, get(cfg, "num_layers", 28), "layers"));
    cfg.num_hidden_layers = 2 * layers;
    const given = has(cfg, "num_layers") ? `${name} = ${layers}` : `${path} states no num_layers`;
    notes.push(`${given}: ${layers} decoder layers of two attention sublayers each, ` +
      `${2 * layers} attention layers (LongcatFlashDecoderLayer)`);
  }

  // Zamba2: a layer per entry of layers_block_type, else the class's 54, as many as
  // num_hidden_layers (54 where the file gives none); heads twice the hidden size over the
  // heads wide; use_long_context makes the context 16,384
  const ZAMBA2_LAYERS = ["linear_attention",
    ...Array(7).fill([..."lllll"].map(() => "linear_attention").concat(["hybrid"])).flat(),
    ...Array(4).fill("linear_attention"), "hybrid", ...Array(3).fill("linear_attention"),
    "hybrid", ...Array(2).fill("linear_attention")];
  function zamba2(cfg, path, notes) {
    let types = get(cfg, "layers_block_type", get(cfg, "layer_types"));
    if (types === null) {
      types = [...ZAMBA2_LAYERS];
      notes.push(`${path} gives no layers_block_type: the class's ${types.length} layers, the ` +
        "shared attention in hybrid layers 6, 12, …, 42, 47 and 51, Mamba-2 in the others");
    }
    if (Array.isArray(types)) {
      const name = key(path, "num_hidden_layers");
      const given = get(cfg, "num_hidden_layers");
      const count = given === null ? ZAMBA2_LAYERS.length
        : num(checkConfigInt(name, given, "layers"));
      if (count !== types.length) {
        fail(`${name} = ${count} (the class's ${ZAMBA2_LAYERS.length} where the file gives ` +
          `none) must equal the number of layers_block_type (${types.length}): Zamba2Config ` +
          "refuses this config");
      }
      cfg.num_hidden_layers = count;
      cfg.layers_block_type = types;
    }
    const hidden = get(cfg, "hidden_size");
    const heads = get(cfg, "num_attention_heads");
    if (get(cfg, "head_dim") === null && isInt(hidden) && isInt(heads)) {
      const n = num(checkConfigInt(key(path, "num_attention_heads"), heads, "heads"));
      cfg.head_dim = Math.floor((2 * num(hidden)) / n);
    }
    if (truthy(get(cfg, "use_long_context"))) {
      cfg.max_position_embeddings = 16384;
      notes.push(`${key(path, "use_long_context")} is set: Zamba2Config makes ` +
        "max_position_embeddings 16384");
    }
  }

  const GLOBAL_HEAD_TYPES = set("embedding_gemma2 embedding_gemma2_text gemma4_unified " +
    "gemma4_unified_text");
  function classRules(cfg, path, notes) {
    const type = get(cfg, "model_type");
    if (type === "mistral4") mistral4(cfg, path, notes);
    else if (LAYER_ROPE_THETA.has(type)) layerRopeTheta(cfg, path, notes);
    else if (type === "modernbert") modernbert(cfg, path, notes);
    else if (type === "modernbert-decoder") modernbert(cfg, path, notes, true);
    else if (type === "neomme") neomme(cfg, path, notes);
    else if (type === "ultrabert") ultrabert(cfg, path, notes);
    else if (GLOBAL_HEAD_TYPES.has(type)) globalHeadDim(cfg, path, notes);
    else if (type === "longcat_flash") longcatFlash(cfg, path, notes);
    else if (type === "zamba2") zamba2(cfg, path, notes);
  }

  // hf_families._partial_share: a partial_rotary_factor below 1 as the family's code takes
  // it (families.PARTIALS): kept where read, the whole head where its default RoPE reads
  // none, refused where transformers cannot run the model; kept for a family not read
  const SHARE = "partial_rotary_factor";
  function shares(cfg, path) {
    const [k, rope] = ropeDict(cfg);
    const top = get(cfg, SHARE);
    const nested = rope !== null && Object.values(rope).every((v) => isMap(v) || v === null);
    const dicts = nested ? Object.entries(rope).filter(([, v]) => isMap(v)) : [[null, rope]];
    const out = [];
    dicts.forEach(([kind, entry]) => {
      entry = entry || {};
      const where = key(path, k) + (kind === null ? "" : `[${repr(kind)}]`);
      let share = get(entry, SHARE);
      let name = `${where}['${SHARE}']`;
      if (share === null) [share, name] = [top, key(path, SHARE)];
      if (share === null) return;
      share = checkFloat(name, share, { gt: 0, le: 1 });
      if (share < 1) out.push([kind, name, share, get(entry, "rope_type", get(entry, "type", "default"))]);
    });
    return out;
  }
  function partialShare(cfg, path, notes) {
    const type = get(cfg, "model_type");
    const entry = family(type);
    if (entry === null || entry.pairing === null || entry.partial === "read") return;
    if (entry.partial === "rotary_dim" && get(cfg, "rotary_dim") !== null) return;
    const code = entry.modeling.split("/").pop();
    shares(cfg, path).forEach(([kind, name, share, ropeType]) => {
      if (entry.partial === "fails") {
        fail(`${name} = ${g(share)}: ${repr(type)} builds RoPE frequencies for ` +
          `int(head_dim · ${g(share)}) dims but rotates the whole head (${code}): ` +
          "transformers cannot run this config");
      }
      if (ropeType === "proportional") return;
      if (ropeType !== "default" && ropeType !== "mrope") {
        fail(`${name} = ${g(share)} with rope_type ${repr(ropeType)}: that table ` +
          `(modeling_rope_utils.py) is built for int(head_dim · ${g(share)}) dims, but ` +
          `${repr(type)} rotates the whole head (${code}): transformers cannot run this config`);
      }
      const [k, rope] = ropeDict(cfg);
      if (rope === null) delete cfg[SHARE];
      else if (kind === null) cfg[k] = { ...rope, [SHARE]: 1 };
      else cfg[k] = { ...rope, [kind]: { ...rope[kind], [SHARE]: 1 } };
      notes.push(`${name} = ${g(share)} is not read: the default RoPE of ${repr(type)} builds ` +
        `frequencies for the whole head, and its attention rotates all of it (${code})`);
    });
  }

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
    const byKey = ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0); // the library's order
    Object.entries((entry && entry.unread) || {}).sort(byKey).forEach(([k, why]) => {
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
    classRules(cfg, path, notes);
    partialShare(cfg, path, notes);
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

/* The config inspector, part 2: the registry of families (families.py), the RoPE of every
 * layer type (hf_config.py), where every layer gets its positions from (layer_positions.py)
 * and the models without rotary embeddings (hf_nonrotary.py): the steps of the reading.
 * One of the parts of the config inspector (docs/appendix/inspector.md), loaded in order
 * before inspector.js: together they compute the report of `python -m pe_explained
 * inspect --json` (pe_explained.model_report.inspect_config) as window.peInspector.inspect;
 * tests/test_inspector.py compares the two. Classic script, nothing fetched.
 */
(function () {
  "use strict";

  const {
    isInt, isReal, isMap, num, has, get, pop, truthy, range, set, typeName, repr, fail, checkInt,
    checkConfigInt, checkName, checkFloat, checkBase, checkBool, checkMapping, key,
    ropeFrequencies, frequencies, scalingDict, standardise, legacyKey,
  } = window.peInspector;

  // --- hf_config.py: the RoPE of every layer type

  const ROPE_KEYS = ["rope_parameters", "rope_scaling", "rope_theta", "rope_local_base_freq",
    "rotary_emb_base"];
  const NEEDS_CONTEXT = ["llama3", "yarn", "longrope"];
  const EXTRA_KEYS = ["interleaved", "llama_4_scaling_beta", "max_position_embeddings",
    "mrope_interleaved", "mrope_section"];

  // --- families.py: each family's rules, the page's copy of pe_explained.families.FAMILIES
  // (the widget's data, written at build time: one registry for the library and the page)

  let registry = null;
  function family(type) {
    if (registry === null) {
      const widget = document.querySelector(".pe-interactive[data-interactive='inspector']");
      registry = JSON.parse(widget.dataset.defaults).families;
    }
    return typeof type === "string" && has(registry, type) ? registry[type] : null;
  }
  const ruled = (field, value) => (type) => {
    const entry = family(type);
    return entry !== null && entry[field] === value;
  };
  const INTERLEAVED = { has: ruled("pairing", "interleaved") };
  const HALVES = { has: ruled("pairing", "halves") };
  const NO_ROPE_LIST = { has: ruled("no_rope_layers", true) };
  const familyValue = (type, field) => (family(type) === null ? null : family(type)[field]);
  // ROTATION_RULES: which attention layers of a family call the rotation
  const ROTATION_RULES = {
    every: () => true,
    none: () => false,
    sliding: (cfg, kind) => kind === "sliding_attention",
    "sliding when windowed": (cfg, kind) => get(cfg, "sliding_window") === null ||
      kind === "sliding_attention",
    position_embedding_type: (cfg) => get(cfg, "position_embedding_type") === "rope",
    use_rotary_pos_emb: (cfg) => truthy(get(cfg, "use_rotary_pos_emb", true)),
    use_mem_rope: (cfg) => truthy(get(cfg, "use_mem_rope", false)), // Zamba2
    // rotates where a base is set: a null rope_theta (OLMo Hybrid's released files) is NoPE
    "a base": (cfg) => {
      const rope = get(cfg, "rope_parameters");
      if (isMap(rope) && has(rope, "rope_theta")) return rope.rope_theta !== null;
      return !(has(cfg, "rope_theta") && cfg.rope_theta === null);
    },
  };
  const optionalLength = (cfg, k, path) => (get(cfg, k) === null ? null
    : checkConfigInt(key(path, k), cfg[k], "length"));
  const statesRope = (cfg) => ROPE_KEYS.some((k) => has(cfg, k));

  function headDimOf(cfg, path) {
    let value;
    let name;
    const k = ["qk_rope_head_dim", "head_dim"].find((x) => get(cfg, x) !== null);
    if (k) {
      name = key(path, k);
      value = checkConfigInt(name, cfg[k], "head_dim");
    } else {
      if (get(cfg, "hidden_size") === null || get(cfg, "num_attention_heads") === null) {
        fail(`${path} must give 'head_dim', or 'hidden_size' and 'num_attention_heads' ` +
          "(head_dim = hidden_size // num_attention_heads)");
      }
      const hidden = checkConfigInt(key(path, "hidden_size"), cfg.hidden_size, "width");
      const heads = checkConfigInt(key(path, "num_attention_heads"), cfg.num_attention_heads,
        "heads");
      name = `${key(path, "hidden_size")} // ${key(path, "num_attention_heads")}`;
      value = checkConfigInt(name, Math.floor(hidden / heads), "head_dim");
    }
    if (value % 2) fail(`${name} (head_dim) must be even for RoPE, got ${value}`);
    return value;
  }

  // text_part: the language model's part of the config (as given), and its name
  function textPart(config) {
    const text = get(config, "text_config");
    if (!statesRope(config) && isMap(text)) return [text, "config['text_config']"];
    return [config, "config"];
  }

  function layerTypes(cfg, path) {
    const value = get(cfg, "layer_types");
    if (value === null) return null;
    if (!Array.isArray(value)) {
      fail(`${key(path, "layer_types")} must be a list of strings, got ${repr(value)}`,
        "TypeError");
    }
    value.forEach((item) => typeof item === "string" || fail(`${key(path, "layer_types")} ` +
      `must hold strings, got ${repr(item)}`, "TypeError"));
    return value.slice();
  }

  function headDimOverrides(cfg, path, types) {
    const out = {};
    if (get(cfg, "global_head_dim") !== null) {
      out.full_attention = checkConfigInt(key(path, "global_head_dim"), cfg.global_head_dim,
        "head_dim", 2);
    }
    const perLayer = get(cfg, "per_layer_config");
    if (isMap(perLayer) && types) {
      Object.entries(perLayer).forEach(([index, overrides]) => {
        if (!isMap(overrides) || get(overrides, "head_dim") === null) return;
        const name = `${key(path, "per_layer_config")}[${repr(index)}]['head_dim']`;
        if (!/^\d+$/.test(index)) {
          fail(`${key(path, "per_layer_config")} keys must be layer indices, got ${repr(index)}`);
        }
        const at = +index;
        if (at >= types.length) fail(`${name}: layer ${at} is beyond config['layer_types']`);
        const kind = types[at];
        const value = checkConfigInt(name, overrides.head_dim, "head_dim", 2);
        if (!has(out, kind)) out[kind] = value;
        if (out[kind] !== value) fail(`${name} = ${value} differs from other ${repr(kind)} layers'`);
      });
    }
    return out;
  }

  // _entries: [layer type, its RoPE dict, the dict's name, what it inherits] per type
  function entries(cfg, path) {
    let rope;
    let where;
    if (truthy(get(cfg, "rope_scaling"))) [rope, where] = [cfg.rope_scaling, key(path, "rope_scaling")];
    else [rope, where] = [truthy(get(cfg, "rope_parameters")) ? cfg.rope_parameters : {},
      key(path, "rope_parameters")];
    if (!isMap(rope)) fail(`${where} must be a dict, got ${typeName(rope)}`, "TypeError");
    const types = layerTypes(cfg, path);
    const top = {};
    [["rope_theta", "rotary_emb_base"], ["partial_rotary_factor", "rotary_pct"]]
      .forEach(([k, alias]) => [k, alias].forEach((name) => {
        if (get(cfg, name) !== null && !has(top, k)) top[k] = [cfg[name], key(path, name)];
      }));
    // a dict per layer type, or per name the family's layers rotate by (DeepSeek-V4)
    const named = new Set([...(types || []), ...Object.values(familyValue(get(cfg,
      "model_type"), "rope_keys") || {})]);
    let nested = Object.keys(rope).filter((k) => named.has(k));
    if (!nested.length && types === null && truthy(rope) &&
      Object.values(rope).every((v) => isMap(v) || v === null)) nested = Object.keys(rope);
    if (nested.length) {
      const heads = headDimOverrides(cfg, path, types);
      return nested.map((k) => [k, rope[k], `${where}[${repr(k)}]`,
        { ...top, head_dim: get(heads, k) }]);
    }
    const split = familyValue(cfg.model_type, "split_bases");
    if (has(cfg, "rope_local_base_freq") || split !== null) {
      // Gemma 3's defaults; a file's local base alone makes the shape, with those defaults
      const bases = split || family("gemma3").split_bases;
      const local = get(cfg, "rope_local_base_freq", bases.sliding_attention);
      const byType = {
        full_attention: [truthy(rope) ? rope : { rope_type: "default" }, where,
          { rope_theta: get(top, "rope_theta", [bases.full_attention, null]) }],
        sliding_attention: [{ rope_type: "default" }, key(path, "rope_local_base_freq"),
          { rope_theta: [local, key(path, "rope_local_base_freq")] }],
      };
      return Object.keys(byType).filter((t) => types === null || types.includes(t))
        .map((t) => [t, ...byType[t]]);
    }
    if (!truthy(rope) && !has(top, "rope_theta")) {
      fail(`${path} has no RoPE settings: none of 'rope_parameters', 'rope_scaling', ` +
        "'rope_theta', 'rotary_emb_base' (a model without rotary embeddings?)");
    }
    return [["default", truthy(rope) ? rope : { rope_type: "default" }, where,
      { ...top, flat: true }]];
  }

  // _check_extra: the model-specific keys of a RoPE dict that the report shows as given
  function checkExtra(extra, where) {
    Object.entries(extra).forEach(([k, value]) => {
      const name = `${where}[${repr(k)}]`;
      if (value === null) return;
      if (k === "max_position_embeddings") checkConfigInt(name, value, "length");
      else if (k === "llama_4_scaling_beta") checkFloat(name, value, { ge: 0 });
      else if (k === "mrope_section") {
        if (!Array.isArray(value)) fail(`${name} must be a list of pair counts, got ${repr(value)}`,
          "TypeError");
        value.forEach((n) => checkConfigInt(name, n, "head_dim", 0));
      } else if (typeof value !== "boolean") {
        fail(`${name} must be true or false, got ${repr(value)}`, "TypeError");
      }
    });
  }

  function layout(cfg, path) {
    if (familyValue(cfg.model_type, "reads_rope_interleave") === false) return "interleaved";
    if (get(cfg, "rope_interleave") !== null) {
      if (typeof cfg.rope_interleave !== "boolean") {
        fail(`${key(path, "rope_interleave")} must be true or false`, "TypeError");
      }
      return cfg.rope_interleave ? "interleaved" : "halves";
    }
    return INTERLEAVED.has(cfg.model_type) ? "interleaved" : "halves";
  }

  // _settings: one layer type's RoPE, every value checked under its config name
  function settingsOf(layerType, entry, where, inherited, cfg, path) {
    if (!isMap(entry)) fail(`${where} must be a dict or null, got ${typeName(entry)}`, "TypeError");
    const params = { ...entry };
    const extra = {};
    EXTRA_KEYS.forEach((k) => { if (has(params, k)) extra[k] = pop(params, k); });
    checkExtra(extra, where);
    if (get(params, "rope_type", get(params, "type")) === "mrope") {
      delete params.type;
      params.rope_type = "default";
    }
    const legacy = pop(params, "type", "default");
    if (!has(params, "rope_type")) params.rope_type = legacy;
    let type = params.rope_type;
    let theta = pop(params, "rope_theta");
    let thetaName = `${where}['rope_theta']`;
    if (theta === null) [theta, thetaName] = get(inherited, "rope_theta", [1e4, null]);
    theta = checkBase(thetaName || "rope_theta", theta);
    let share = pop(params, "partial_rotary_factor");
    let shareName = `${where}['partial_rotary_factor']`;
    if (share === null) {
      [share, shareName] = get(inherited, "partial_rotary_factor", [1, "partial_rotary_factor"]);
    }
    share = checkFloat(shareName, share, { gt: 0, le: 1 });
    const headDim = get(inherited, "head_dim") || headDimOf(cfg, path);
    const maxPos = optionalLength(cfg, "max_position_embeddings", path);
    let context = pop(params, "original_max_position_embeddings");
    if (type === "dynamic") {
      if (maxPos === null) fail(`${key(path, "max_position_embeddings")} is needed by rope_type 'dynamic'`);
      context = maxPos;
    } else if (NEEDS_CONTEXT.includes(type)) {
      if (inherited.flat && get(cfg, "original_max_position_embeddings") !== null) {
        context = cfg.original_max_position_embeddings;
      }
      if (context === null) context = maxPos;
      if (context === null) {
        fail(`${where} for rope_type ${repr(type)} needs 'original_max_position_embeddings' ` +
          `(or ${key(path, "max_position_embeddings")})`);
      }
      context = checkConfigInt(`${where}['original_max_position_embeddings']`, context, "length");
    } else context = null;
    if (context !== null) params.original_max_position_embeddings = context;
    if ((type === "yarn" || type === "longrope") && get(params, "factor") === null) {
      if (type === "yarn" || get(params, "attention_factor") === null) {
        if (maxPos === null) {
          fail(`${where}['factor'] is null: rope_type ${repr(type)} derives it as ` +
            `${key(path, "max_position_embeddings")} / original_max_position_embeddings, ` +
            "which the config does not give");
        }
        params.factor = maxPos / context;
      } else delete params.factor;
    }
    let lib;
    [type, lib] = scalingDict(params, where);
    const [inv] = frequencies(headDim, theta, type, { ...lib }, null, share, shareName, where);
    return {
      layer_type: layerType, rope_type: type, rope_theta: theta, head_dim: headDim,
      rotary_dim: 2 * inv.length, partial_rotary_factor: share,
      scaling: type === "default" ? null : { rope_type: type, ...lib },
      max_position_embeddings: maxPos, original_max_position_embeddings: context,
      layout: layout(cfg, path), extra,
    };
  }
  const settingsFrequencies = (s, seqLen) => ropeFrequencies(s.head_dim, s.rope_theta,
    s.scaling, seqLen, s.partial_rotary_factor);

  // read_rope(cfg, path): layer type -> settings, of a text part as its family leaves it
  function readRope(cfg, path) {
    const out = {};
    entries(cfg, path).forEach(([type, entry, where, inherited]) => {
      out[type] = entry === null ? null : settingsOf(type, entry, where, inherited, cfg, path);
    });
    return out;
  }

  function layerCount(cfg, path) {
    if (get(cfg, "num_hidden_layers") === null) {
      fail(`${key(path, "num_hidden_layers")} is needed to lay out the layers`);
    }
    return checkConfigInt(key(path, "num_hidden_layers"), cfg.num_hidden_layers, "layers");
  }

  function layerTypeList(cfg, path, count) {
    const types = layerTypes(cfg, path);
    if (types === null) {
      let pattern = get(cfg, "sliding_window_pattern", familyValue(cfg.model_type, "sliding_pattern"));
      if (pattern === null) return null;
      pattern = checkConfigInt(key(path, "sliding_window_pattern"), pattern, "layers");
      return range(count).map((i) => ((i + 1) % pattern ? "sliding_attention" : "full_attention"));
    }
    if (types.length < count) {
      fail(`${key(path, "layer_types")} has ${types.length} entries, fewer than ` +
        `${key(path, "num_hidden_layers")} = ${count}`);
    }
    return types.slice(0, count);
  }

  function rotatingLayers(cfg, path, count) {
    const flags = get(cfg, "no_rope_layers");
    if (!truthy(flags) && (NO_ROPE_LIST.has(cfg.model_type) || has(cfg, "no_rope_layer_interval"))) {
      const interval = checkConfigInt(key(path, "no_rope_layer_interval"),
        get(cfg, "no_rope_layer_interval", 4), "layers");
      return range(count).map((i) => (i + 1) % interval !== 0);
    }
    if (flags === null) return null;
    const name = key(path, "no_rope_layers");
    if (!Array.isArray(flags)) {
      fail(`${name} must be a list of 0s and 1s, got ${repr(flags)}`, "TypeError");
    }
    if (flags.length < count) {
      fail(`${name} has ${flags.length} entries, fewer than num_hidden_layers = ${count}`);
    }
    return flags.slice(0, count).map((flag) => {
      if (!isReal(flag) || (num(flag) !== 0 && num(flag) !== 1)) {
        fail(`${name} must hold 0 (NoPE layer) or 1 (RoPE layer), got ${repr(flag)}`);
      }
      return num(flag) === 1;
    });
  }

  // --- layer_positions.py: where every layer gets its positions from

  const RENAMED = { mamba: "linear_attention", attention: "full_attention",
    deepseek_sparse_attention: "indexed_attention", qwen_sparse_attention: "indexed_attention" };
  const LAYER_TYPES = set("full_attention sliding_attention chunked_attention indexed_attention " +
    "compressed_sparse_attention heavily_compressed_attention hybrid linear_attention conv");
  // layer types with no softmax attention (LFM2's conv: a short causal convolution)
  const RECURRENT = set("linear_attention conv");
  const V4 = { 0: "sliding_attention", 4: "compressed_sparse_attention",
    128: "heavily_compressed_attention" };
  const WINDOWED = set("sliding_attention compressed_sparse_attention " +
    "heavily_compressed_attention default");
  const SOURCES = ["rotary", "nope", "recurrence", "absolute", "bias", "none"];
  // layer types that mix no tokens (Nemotron-H's MLP and MoE layers), by mixer
  const NO_MIXING = { mlp: "MLP", moe: "MoE" };

  function layerTypeNames(cfg, path, count) {
    const layout = familyValue(cfg.model_type, "layer_layout");
    const given = get(cfg, "layer_types", get(cfg, "layers_block_type"));
    if (layout === "hybrid") return range(count).map(() => "hybrid");
    if (given === null && has(LAYOUTS, layout)) return LAYOUTS[layout](cfg, path, count);
    if (given !== null && get(cfg, "layer_types") === null) cfg = { ...cfg, layer_types: given };
    const types = layerTypeList(cfg, path, count);
    if (types === null && layout === "chunked where rotating") {
      return rotatingLayers(cfg, path, count).map((r) => (r ? "chunked_attention" : "full_attention"));
    }
    if (types === null) return range(count).map(() => "default");
    const names = types.map((t) => get(RENAMED, t, t));
    // Nemotron-H's blocks also include layers of their own for an MLP or a MoE
    const allowed = new Set([...LAYER_TYPES,
      ...(layout === "hybrid_override_pattern" ? Object.keys(NO_MIXING) : [])]);
    names.forEach((name, i) => {
      if (!allowed.has(name)) {
        const known = [...allowed].sort().map(repr).join(", ");
        fail(`${key(path, "layer_types")}[${i}] = ${repr(types[i])} is not a layer type this ` +
          `library reads (it reads ${known}, and the legacy 'mamba' and 'attention')`);
      }
    });
    return names;
  }

  function kimiTypes(cfg, path, count) {
    const linear = get(cfg, "linear_attn_config");
    if (isMap(linear) && has(linear, "full_attn_layers") && has(linear, "kda_layers")) {
      const types = range(count).map(() => null);
      [["full_attn_layers", "full_attention"], ["kda_layers", "linear_attention"]]
        .forEach(([k, kind]) => {
          const name = `${key(path, "linear_attn_config")}[${repr(k)}]`;
          const layers = linear[k];
          if (!Array.isArray(layers)) {
            fail(`${name} must be a list of layer numbers from 1, got ${repr(layers)}`, "TypeError");
          }
          layers.forEach((n) => {
            checkInt(name, n, 1);
            if (n > count) fail(`${name} names layer ${n}, beyond num_hidden_layers = ${count}`);
            types[n - 1] = kind;
          });
        });
      const missing = range(count).filter((i) => types[i] === null);
      if (missing.length) {
        fail(`${key(path, "linear_attn_config")} assigns no kind to layer(s) ` +
          `${missing.map((i) => i + 1).join(", ")} (numbered from 1)`);
      }
      return types;
    }
    return range(count).map((i) => (i && i % 4 === 0 ? "full_attention" : "linear_attention"));
  }

  function v4Types(cfg, path, count) {
    const ratios = get(cfg, "compress_ratios");
    if (ratios === null) {
      const heavy = "heavily_compressed_attention";
      return range(count).map((i) => (i < 2 || i % 2 === 0 ? heavy : "compressed_sparse_attention"));
    }
    const name = key(path, "compress_ratios");
    if (!Array.isArray(ratios) || ratios.length < count) {
      fail(`${name} must list one ratio (0, 4 or 128) per layer, got ${repr(ratios)}`);
    }
    return ratios.slice(0, count).map((r) => {
      if (!isReal(r) || !has(V4, num(r))) fail(`${name} must hold 0, 4 or 128, got ${repr(r)}`);
      return V4[num(r)];
    });
  }

  // the layouts of families.LAYER_LAYOUTS made where the file lists no layer types
  function intervalTypes(cfg, path, count) {
    const interval = checkConfigInt(key(path, "full_attention_interval"),
      get(cfg, "full_attention_interval", 4), "layers");
    return range(count).map((i) => ((i + 1) % interval ? "linear_attention" : "full_attention"));
  }
  const LAYOUTS = {
    full_attention_interval: intervalTypes,
    linear_attn_config: (cfg, path, count) => kimiTypes(cfg, path, count),
    compress_ratios: (cfg, path, count) => v4Types(cfg, path, count),
    mamba: (cfg, path, count) => range(count).map(() => "linear_attention"),
    attn_layer_indices: (cfg, path, count) => { // Bamba
      const name = key(path, "attn_layer_indices");
      const listed = truthy(get(cfg, "attn_layer_indices")) ? cfg.attn_layer_indices : [];
      if (!Array.isArray(listed)) {
        fail(`${name} must be a list of layer indices, got ${repr(listed)}`, "TypeError");
      }
      const at = new Set(listed.map((i) => num(checkInt(name, i, 0))));
      return range(count).map((i) => (at.has(i) ? "full_attention" : "linear_attention"));
    },
    attn_layer_period: (cfg, path, count) => { // Jamba
      const period = checkConfigInt(key(path, "attn_layer_period"),
        get(cfg, "attn_layer_period", 8), "layers");
      const offset = checkConfigInt(key(path, "attn_layer_offset"),
        get(cfg, "attn_layer_offset", 4), "layers", 0);
      return range(count).map((i) => (i % period === offset ? "full_attention" : "linear_attention"));
    },
    "first and every 6th": (cfg, path, count) => range(count).map((i) => // MiMo-V2-Flash
      (i === 0 || (i + 1) % 6 === 0 ? "full_attention" : "sliding_attention")),
    "first two, every 4th from 1, and the last": (cfg, path, count) => range(count).map((i) =>
      (i < 2 || i % 4 === 1 || i === count - 1 ? "full_attention" : "sliding_attention")), // Flint
    "every 4th from the last": (cfg, path, count) => range(count).map((i) => // Muse Glimmer
      ((count - 1 - i) % 4 === 0 ? "full_attention" : "sliding_attention")),
    "every 4th from 3, and the last": (cfg, path, count) => { // OLMo Hybrid
      const types = range(count).map((i) => (i % 4 === 3 ? "full_attention"
        : "linear_attention"));
      if (!types.includes("full_attention")) types[count - 1] = "full_attention";
      return types;
    },
    "every 4th from 0": (cfg, path, count) => range(count).map((i) => // Granite SWA
      (i % 4 === 0 ? "full_attention" : "sliding_attention")),
    "global_attn_every_n_layers from 0": (cfg, path, count) => { // ModernBERT
      const every = checkConfigInt(key(path, "global_attn_every_n_layers"),
        get(cfg, "global_attn_every_n_layers", 3), "layers");
      return range(count).map((i) => (i % every ? "sliding_attention" : "full_attention"));
    },
    "every 6th and the last": (cfg, path, count) => range(count).map((i) => // NeoMME
      ((i + 1) % 6 === 0 || i === count - 1 ? "full_attention" : "sliding_attention")),
    full_attn_idxs: (cfg, path, count) => { // LFM2
      const name = key(path, "full_attn_idxs");
      const listed = get(cfg, "full_attn_idxs");
      if (listed === null) return range(count).map(() => "full_attention");
      if (!Array.isArray(listed)) {
        fail(`${name} must be a list of layer indices, got ${repr(listed)}`, "TypeError");
      }
      const at = new Set(listed.map((i) => num(checkInt(name, i, 0))));
      return range(count).map((i) => (at.has(i) ? "full_attention" : "conv"));
    },
    "alternating from full": (cfg, path, count) => range(count).map((i) => // MiniMax
      (i % 2 === 0 ? "full_attention" : "linear_attention")),
    full: (cfg, path, count) => range(count).map(() => "full_attention"), // Mellum
    "conv, sliding and full by 4": (cfg, path, count) => range(count).map((i) => // LFM3
      (i % 4 === 2 ? "full_attention" : i % 4 === 0 && i ? "sliding_attention" : "conv")),
    global_attn_every_n_layers: (cfg, path, count) => { // AFMoE
      const every = checkConfigInt(key(path, "global_attn_every_n_layers"),
        get(cfg, "global_attn_every_n_layers", 4), "layers");
      return range(count).map((i) => ((i + 1) % every ? "sliding_attention" : "full_attention"));
    },
  };

  function attentionRotates(cfg, kind) {
    const entry = family(cfg.model_type);
    return entry === null || ROTATION_RULES[entry.rotates](cfg, kind);
  }

  function ropeKey(settings, kind, type, path, index) {
    let k = kind;
    const keys = familyValue(type, "rope_keys"); // DeepSeek-V4's main and compress
    if (keys !== null) k = has(keys, kind) ? keys[kind] : keys["*"];
    else if (has(settings, "default")) k = "default";
    if (!has(settings, k)) {
      fail(`${key(path, "layer_types")}[${index}] = ${repr(kind)} has no RoPE settings ` +
        `(the config gives ${Object.keys(settings).map(repr).join(", ")})`);
    }
    return settings[k] === null ? null : k;
  }

  const position = (index, layerType, source, rope, mixer, window = null, chunk = null,
    assumed = false) => ({ index, layer_type: layerType, source, rope, mixer, window, chunk,
    assumed });

  // every layer of a model without rotary embeddings: each attends
  function nonrotaryLayers(scheme) {
    const source = scheme.where === "input" ? "absolute" : "bias";
    return range(scheme.num_layers).map((i) => position(i, "default", source, null, "attention"));
  }

  // read_layers(cfg, path, rope): every layer; rope() reads the settings when first needed
  function readLayers(cfg, path, rope) {
    // a null key states no RoPE (OLMo Hybrid's rope_theta)
    const early = ROPE_KEYS.some((k) => get(cfg, k) !== null) ? rope() : null;
    const count = layerCount(cfg, path);
    const [window, chunk] = windowAndChunk(cfg, path);
    const kinds = layerTypeNames(cfg, path, count);
    const type = cfg.model_type;
    const flags = rotatingLayers(cfg, path, count);
    const rotates = kinds.map((kind, i) => !RECURRENT.has(kind) &&
      !has(NO_MIXING, kind) && attentionRotates(cfg, kind) && (flags === null || flags[i]));
    const settings = rotates.some(Boolean) ? early || rope() : {};
    const mla = get(cfg, "qk_rope_head_dim") !== null && get(cfg, "kv_lora_rank") !== null;
    const unread = family(type) === null; // its rotating layers are an assumption
    // the layer types that attend through the window (MiniMax: its full-attention layers)
    const types = familyValue(type, "window_types");
    const windowed = types === null ? WINDOWED : new Set(types);
    const own = window === null ? {} : layerWindows(cfg, path, count);
    return kinds.map((kind, index) => {
      if (has(NO_MIXING, kind)) return position(index, kind, "none", null, NO_MIXING[kind]);
      if (RECURRENT.has(kind)) {
        return position(index, kind, "recurrence", null,
          familyValue(type, "mixer") || "linear attention");
      }
      let rotate = rotates[index];
      let used = null;
      if (rotate) {
        used = ropeKey(settings, kind, type, path, index);
        if (used === null) rotate = false;
      }
      const mixer = mla ? "MLA" : kind === "hybrid" ? "attention + Mamba-2" : "attention";
      return position(index, kind, rotate ? "rotary" : "nope", used, mixer,
        windowed.has(kind) ? (has(own, index) ? own[index] : window) : null,
        kind === "chunked_attention" ? chunk : null,
        rotate && unread);
    });
  }

  // the sliding window and the attention chunk the config gives its layers
  function windowAndChunk(cfg, path) {
    const use = get(cfg, "use_sliding_window");
    if (use !== null) checkBool(key(path, "use_sliding_window"), use);
    let window = use === false ? null : get(cfg, "sliding_window");
    const unread = familyValue(cfg.model_type, "unread");
    if (unread !== null && has(unread, "sliding_window")) window = null; // its code ignores it
    if (window !== null) window = checkConfigInt(key(path, "sliding_window"), window, "length");
    let chunk = get(cfg, "attention_chunk_size", familyValue(cfg.model_type, "attention_chunk"));
    if (chunk !== null) chunk = checkConfigInt(key(path, "attention_chunk_size"), chunk, "length");
    return [window, chunk];
  }

  // per_layer_config's windows, by layer index (NeoMME alternates two; null: none)
  function layerWindows(cfg, path, count) {
    const perLayer = get(cfg, "per_layer_config");
    const out = {};
    if (!isMap(perLayer)) return out;
    Object.entries(perLayer).forEach(([index, overrides]) => {
      if (!isMap(overrides) || !has(overrides, "sliding_window")) return;
      const name = `${key(path, "per_layer_config")}[${repr(index)}]['sliding_window']`;
      if (!/^[0-9]+$/.test(index) || Number(index) >= count) {
        fail(`${name}: ${repr(index)} is not a layer index below ${count}`);
      }
      const value = overrides.sliding_window;
      out[Number(index)] = value === null ? null : checkConfigInt(name, value, "length");
    });
    return out;
  }

  // read_temperature(cfg, path, layers): layers null where the config gives none
  function readTemperature(cfg, path, layers) {
    const defaults = familyValue(cfg.model_type, "temperature"); // Llama 4's
    if (defaults !== null) {
      const values = { ...defaults };
      Object.keys(values).forEach((k) => { values[k] = get(cfg, k, values[k]); });
      let tuning = values.attn_temperature_tuning;
      if (tuning === null) tuning = true;
      const name = key(path, "attn_temperature_tuning");
      if (isInt(tuning)) tuning = num(checkInt(name, tuning, 0)) !== 0;
      if (!checkBool(name, tuning)) return null;
      if (layers === null) layerCount(cfg, path); // fails: the layers are needed
      return {
        beta: checkFloat(key(path, "attn_scale"), values.attn_scale, { ge: 0 }),
        floor_scale: checkConfigInt(key(path, "floor_scale"), values.floor_scale, "length"),
        offset: 1,
        layers: layers.filter((p) => p.source === "nope").map((p) => p.index),
        read_from: `${path}['attn_temperature_tuning'], ['attn_scale'], ['floor_scale']`,
      };
    }
    const rope = truthy(get(cfg, "rope_scaling")) ? cfg.rope_scaling : get(cfg, "rope_parameters");
    if (isMap(rope) && get(rope, "llama_4_scaling_beta") !== null) {
      const where = key(path, truthy(get(cfg, "rope_scaling")) ? "rope_scaling" : "rope_parameters");
      if (get(rope, "original_max_position_embeddings") === null) {
        fail(`${where}['llama_4_scaling_beta'] needs ${where}['original_max_position_embeddings']`);
      }
      return {
        beta: checkFloat(`${where}['llama_4_scaling_beta']`, rope.llama_4_scaling_beta, { ge: 0 }),
        floor_scale: checkConfigInt(`${where}['original_max_position_embeddings']`,
          rope.original_max_position_embeddings, "length"),
        offset: 0,
        layers: range(layerCount(cfg, path)),
        read_from: `${where}['llama_4_scaling_beta'], ['original_max_position_embeddings']`,
      };
    }
    return null;
  }

  // --- hf_nonrotary.py: learned tables, ALiBi, T5's bias (the layer strip; numbers in part)

  const LEARNED = { gpt2: ["n_positions", 0, true], gpt_bigcode: ["n_positions", 0, true],
    gpt_neo: ["max_position_embeddings", 0, true], bert: ["max_position_embeddings", 0, true],
    opt: ["max_position_embeddings", 2, false], roberta: ["max_position_embeddings", "pad", true],
    "xlm-roberta": ["max_position_embeddings", "pad", true] };
  const ARCHITECTURES = { GPT2LMHeadModel: "gpt2", GPTNeoForCausalLM: "gpt_neo",
    BertForMaskedLM: "bert", BertModel: "bert", OPTForCausalLM: "opt",
    RobertaForMaskedLM: "roberta", BloomForCausalLM: "bloom", MPTForCausalLM: "mpt",
    T5ForConditionalGeneration: "t5" };
  const FALCON = set("falcon RefinedWebModel RefinedWeb");
  const DEFAULTS = { pad_token_id: 1, relative_attention_num_buckets: 32,
    relative_attention_max_distance: 128 };

  function nonrotary(config) {
    let type = checkName("config['model_type']", get(config, "model_type"));
    const read = [];
    const take = (k, kind = "length", minimum = 1) => {
      if (!has(config, k) && !has(DEFAULTS, k)) fail(`config[${repr(k)}] is needed to read this model's positions`);
      read.push(k);
      return checkConfigInt(`config[${repr(k)}]`, get(config, k, get(DEFAULTS, k)), kind, minimum);
    };
    const count = (standard) => {
      const k = legacyKey(type, standard);
      return take(has(config, k) ? k : standard, standard === "num_hidden_layers" ? "layers" : "heads");
    };
    if (type === null) {
      const classes = get(config, "architectures");
      const name = "config['architectures']";
      if (classes !== null && !Array.isArray(classes)) {
        fail(`${name} must be a list of class names, got ${repr(classes)}`, "TypeError");
      }
      if (truthy(classes)) type = get(ARCHITECTURES, checkName(`${name}[0]`, classes[0]));
    }
    const base = { positions: null, offset: 0, slopes: null, num_buckets: null,
      max_distance: null, note: null, family: type };
    if (has(LEARNED, type)) {
      const [k, rows, within] = LEARNED[type];
      const size = take(k);
      const offset = rows === "pad" ? take("pad_token_id", "length", 0) + 1 : rows;
      if (within && size <= offset) {
        fail(`config[${repr(k)}] = ${size} leaves no position after the ${offset} unused rows`);
      }
      const layers = count("num_hidden_layers");
      const heads = count("num_attention_heads");
      return { ...base, kind: "learned", where: "input", num_layers: layers, num_heads: heads,
        positions: within ? size - offset : size, offset, read_from: read };
    }
    let alibi = type === "bloom" || type === "mpt";
    if (FALCON.has(type)) alibi = checkBool("config['alibi']", get(config, "alibi", false));
    if (alibi) {
      const layers = count("num_hidden_layers");
      const heads = count("num_attention_heads");
      let slopes = window.peInteractive.math.alibiSlopes(heads);
      let length = null;
      if (type === "mpt") {
        const attn = truthy(get(config, "attn_config")) ? config.attn_config : {};
        if (!isMap(attn)) fail(`config['attn_config'] must be a mapping, got ${repr(attn)}`, "TypeError");
        const most = checkConfigInt("config['attn_config']['alibi_bias_max']",
          get(attn, "alibi_bias_max", 8), "length");
        slopes = slopes.map((m) => Math.pow(m, most / 8));
        if (has(config, "max_seq_len")) length = take("max_seq_len");
      }
      let note = null;
      if (FALCON.has(type)) {
        slopes = slopes.map(bfloat16);
        note = "Falcon casts its slopes to bfloat16 before use (build_alibi_tensor)";
      }
      return { ...base, kind: "alibi", where: "scores", num_layers: layers,
        num_heads: slopes.length, positions: length, slopes, read_from: read, note };
    }
    if (type === "t5" || type === "mt5") {
      const encoder = take("num_layers", "layers");
      const decoder = get(config, "num_decoder_layers") !== null
        ? take("num_decoder_layers", "layers") : encoder;
      const heads = take("num_heads", "heads");
      // the encoder splits its buckets between two directions, each with >= 2
      const buckets = take("relative_attention_num_buckets", "heads", 4);
      const distance = take("relative_attention_max_distance");
      const exact = Math.floor(buckets / 2); // the decoder's exact buckets
      if (distance <= exact) {
        fail(`config['relative_attention_max_distance'] must be > ${exact} (the decoder's exact ` +
          `buckets, half of config['relative_attention_num_buckets'] = ${buckets}), got ${distance}`);
      }
      return { ...base, kind: "t5_bias", where: "scores", num_layers: encoder + decoder,
        num_heads: heads, num_buckets: buckets, max_distance: distance, read_from: read };
    }
    return null;
  }

  // a float rounded to bfloat16 (8 significant bits, ties to even), as hf_nonrotary._bfloat16
  function bfloat16(v) {
    const f = new Float32Array([v]);
    const bits = new Uint32Array(f.buffer);
    bits[0] = (bits[0] + 0x7fff + ((bits[0] >>> 16) & 1)) & 0xffff0000;
    return f[0];
  }

  Object.assign(window.peInspector, {
    ROPE_KEYS, INTERLEAVED, HALVES, SOURCES, ROTATION_RULES, family, statesRope, textPart,
    readRope, settingsFrequencies, layerCount, readLayers, nonrotaryLayers, readTemperature,
    nonrotary,
  });
})();

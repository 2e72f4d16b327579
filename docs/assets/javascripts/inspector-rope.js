/* The config inspector, part 1: Python's values and checks, RoPE's frequencies of
 * every rope_type (rope.py) and what a family's configuration class does to a config
 * first (hf_families.py).
 * One of the parts of the config inspector (docs/appendix/inspector.md), loaded in order
 * before inspector.js: together they compute the report of `python -m pe_explained
 * inspect --json` (pe_explained.model_report.inspect_config) as window.peInspector.inspect;
 * tests/test_inspector.py compares the two. Classic script, nothing fetched.
 */
(function () {
  "use strict";

  window.peInspector = window.peInspector || {};

  // --- Python's values in JavaScript: a number written with a point or an exponent is a
  // float (4096.0 is not an int), kept as a Float so that the checks can tell

  function Float(v) { this.v = v; }
  Float.prototype.valueOf = function () { return this.v; };
  Float.prototype.toJSON = function () { return this.v; };
  // an integer beyond 2**53, where a double no longer holds every integer: kept as written
  // (Python reads it exactly), refused by every bound on a size
  function Big(text) { this.text = text; this.v = Number(text); }
  Big.prototype.valueOf = function () { return this.v; };
  Big.prototype.toString = function () { return this.text; };
  Big.prototype.toJSON = function () { return this.v; };
  // Python's json reads NaN, Infinity and -Infinity as floats: marked outside strings first
  const WORDS = /"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g;
  const MARK = "\ue000";
  // JSON text to values, floats marked (Chromium gives the reviver the number's text)
  function parse(text) {
    const marked = text.replace(WORDS, (all, word) => (word ? `"${MARK}${word}"` : all));
    return JSON.parse(marked, (key, value, context) => {
      if (typeof value === "string" && value[0] === MARK && /^.(-?Infinity|NaN)$/.test(value)) {
        return new Float(Number(value.slice(1)));
      }
      if (typeof value !== "number" || !Number.isInteger(value) || !context) return value;
      if (/[.eE]/.test(context.source)) return new Float(value);
      return Number.isSafeInteger(value) ? value : new Big(context.source);
    });
  }
  const isFloat = (v) => v instanceof Float;
  const isBig = (v) => v instanceof Big;
  const isInt = (v) => (typeof v === "number" && Number.isInteger(v)) || isBig(v);
  const isReal = (v) => typeof v === "number" || isFloat(v) || isBig(v);
  const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !isFloat(v) &&
    !isBig(v);
  const num = (v) => (isFloat(v) || isBig(v) ? v.v : v);
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  // dict.get(key, default): a key present with null gives null
  const get = (o, k, d = null) => (has(o, k) ? o[k] : d);
  const pop = (o, k, d = null) => { const v = get(o, k, d); delete o[k]; return v; };
  // Python's truth of a value: 0, "", [], {} and None are false
  const truthy = (v) => (isMap(v) ? Object.keys(v).length > 0 : Array.isArray(v)
    ? v.length > 0 : isReal(v) ? num(v) !== 0 : !!v);
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  const set = (text) => new Set(text.split(" "));

  function typeName(v) {
    if (v === null) return "NoneType";
    if (typeof v === "boolean") return "bool";
    if (typeof v === "string") return "str";
    if (isReal(v)) return isInt(v) ? "int" : "float";
    return Array.isArray(v) ? "list" : "dict";
  }
  // repr() of a float: the shortest digits that read back, in Python's layout (1e+16, 0.0001)
  function floatRepr(v) {
    if (isNaN(v)) return "nan";
    if (!isFinite(v)) return v > 0 ? "inf" : "-inf";
    if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
    const [mantissa, e] = Math.abs(v).toExponential().split("e");
    const exp = +e;
    const digits = mantissa.replace(".", "");
    const sign = v < 0 ? "-" : "";
    if (exp < -4 || exp >= 16) {
      const lead = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      return `${sign}${lead}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    }
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    return `${sign}${whole}.${digits.slice(exp + 1) || "0"}`;
  }
  // repr(): 'text', None, True, 4096.0 for a float
  function repr(v) {
    if (v === null || v === undefined) return "None";
    if (typeof v === "boolean") return v ? "True" : "False";
    if (typeof v === "string") return v.includes("'") && !v.includes('"') ? `"${v}"` : `'${v}'`;
    if (isFloat(v)) return floatRepr(v.v);
    if (isBig(v)) return v.text;
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : floatRepr(v);
    if (Array.isArray(v)) return `[${v.map(repr).join(", ")}]`;
    return `{${Object.entries(v).map(([k, x]) => `${repr(k)}: ${repr(x)}`).join(", ")}}`;
  }
  // format(v, "g"): 6 significant digits, exponent form below 1e-4 and from 1e6
  function g(v, digits = 6) {
    v = num(v);
    if (!isFinite(v)) return isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
    if (v === 0) return Object.is(v, -0) ? "-0" : "0";
    const [mantissa, exponent] = v.toExponential(digits - 1).split("e");
    const e = +exponent;
    const strip = (t) => (t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t);
    if (e >= -4 && e < digits) return strip(v.toFixed(digits - 1 - e));
    return `${strip(mantissa)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }

  function fail(message, type = "ValueError") {
    const error = new Error(message);
    error.name = type;
    throw error;
  }

  // --- _checks.py

  function checkInt(name, v, minimum = null) {
    if (!isInt(v)) fail(`${name} must be an integer, got ${typeName(v)} ${repr(v)}`, "TypeError");
    if (minimum !== null && num(v) < minimum) fail(`${name} must be >= ${minimum}, got ${v}`);
    return v;
  }
  // CONFIG_LIMITS and check_config_int: every size a config gives, bounded (each bound is
  // below 2**53, so a Big never passes)
  const LIMITS = {
    layers: [10000, "a count of layers; released models have at most a few hundred"],
    heads: [65536, "a count of heads or buckets; released models have at most a few hundred"],
    head_dim: [65536, "a width of a head in dims; released models use a few hundred at most"],
    width: [2 ** 24, "a model width, 2**24; released models are at most about 30,000 wide"],
    length: [2 ** 50, "a length or other size in tokens, 2**50, below 2**53 where float64 " +
      "holds every position"],
  };
  function checkConfigInt(name, v, kind, minimum = 1) {
    checkInt(name, v, minimum);
    const [limit, why] = LIMITS[kind];
    if (num(v) > limit) fail(`${name} must be <= ${limit} (${why}), got ${v}`);
    return v;
  }
  function checkName(name, v) {
    if (v !== null && typeof v !== "string") {
      fail(`${name} must be a string, got ${typeName(v)} ${repr(v)}`, "TypeError");
    }
    return v;
  }
  function checkFloat(name, v, o = {}) {
    if (!isReal(v)) fail(`${name} must be a real number, got ${typeName(v)} ${repr(v)}`,
      "TypeError");
    v = num(v);
    if (!isFinite(v)) fail(`${name} must be finite, got ${g(v)}`);
    const rules = [["gt", (b) => v > b, ">"], ["ge", (b) => v >= b, ">="],
      ["lt", (b) => v < b, "<"], ["le", (b) => v <= b, "<="]];
    rules.forEach(([k, ok, sign]) => {
      if (o[k] !== undefined && !ok(o[k])) fail(`${name} must be ${sign} ${g(o[k])}, got ${g(v)}`);
    });
    return v;
  }
  const checkBase = (name, v) => checkFloat(name, v, { gt: 1 });
  function checkBool(name, v) {
    if (typeof v !== "boolean") {
      fail(`${name} must be True or False, got ${typeName(v)} ${repr(v)}`, "TypeError");
    }
    return v;
  }
  function checkMapping(config) {
    if (!isMap(config)) {
      fail(`config must be a dict (a model's config.json, loaded), got ${typeName(config)}`,
        "TypeError");
    }
    checkName("config['model_type']", get(config, "model_type"));
    const text = get(config, "text_config");
    if (text !== null && !isMap(text)) {
      fail(`config['text_config'] must be a dict, got ${typeName(text)}`, "TypeError");
    }
  }

  // --- rope.py: the frequencies of every rope_type

  const ROPE_TYPES = {
    default: [[], []],
    linear: [["factor"], []],
    dynamic: [["factor", "original_max_position_embeddings"], []],
    yarn: [["factor", "original_max_position_embeddings"],
      ["attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate"]],
    llama3: [["factor", "low_freq_factor", "high_freq_factor",
      "original_max_position_embeddings"], []],
    longrope: [["short_factor", "long_factor", "original_max_position_embeddings"],
      ["factor", "attention_factor"]],
    proportional: [[], ["factor"]],
  };
  const ladder = (dim, base) => range(dim / 2).map((i) => Math.pow(base, -(2 * i) / dim));
  const LOG_MAX = Math.log(Number.MAX_VALUE);
  const TINY = 2.2250738585072014e-308;

  function scalingDict(scaling, where) {
    if (!isMap(scaling)) fail(`${where} must be None or a dict, got ${typeName(scaling)}`,
      "TypeError");
    const params = { ...scaling };
    let type;
    if (has(params, "rope_type")) {
      type = pop(params, "rope_type");
      delete params.type;
    } else if (has(params, "type")) type = pop(params, "type");
    else fail(`${where} must have a 'rope_type' key (or its legacy spelling 'type')`);
    if (typeof type !== "string" || !has(ROPE_TYPES, type)) {
      const options = Object.keys(ROPE_TYPES).map(repr).join(", ");
      fail(`${where}['rope_type'] must be one of ${options}, got ${repr(type)}`);
    }
    const [required, optional] = ROPE_TYPES[type];
    if (type === "yarn" && has(params, "factor") && params.factor === null) delete params.factor;
    const missing = required.filter((k) => !has(params, k)).sort();
    if (missing.length) {
      fail(`${where} for rope_type ${repr(type)} is missing key(s) ${missing.map(repr)
        .join(", ")}`);
    }
    const allowed = new Set([...required, ...optional, "partial_rotary_factor"]);
    const unknown = Object.keys(params).filter((k) => !allowed.has(k)).sort();
    if (unknown.length) {
      fail(`${where} for rope_type ${repr(type)} has unknown key(s) ${unknown.map(repr)
        .join(", ")}`);
    }
    return [type, params];
  }

  function checkFrequencies(inv, what) {
    const least = Math.min(...inv);
    if (!inv.every(isFinite) || least < TINY) {
      fail(`${what} gives frequencies outside float64's normal range (smallest ${g(least)}); ` +
        "use a smaller factor or sequence length");
    }
    return inv;
  }
  const factorOf = (p, where) => checkFloat(`${where}['factor']`, p.factor, { ge: 1 });
  const contextOf = (p, where) => checkInt(`${where}['original_max_position_embeddings']`,
    p.original_max_position_embeddings, 1);
  const optionalFloat = (p, key, d, where, o) => (get(p, key) === null ? d
    : checkFloat(`${where}[${repr(key)}]`, p[key], o));
  const mscale = (s, m = 1) => (s <= 1 ? 1 : 0.1 * m * Math.log(s) + 1);

  function correctionRange(dim, base, context, fast, slow, truncate) {
    const pair = (r) => (dim * Math.log(context / (r * 2 * Math.PI))) / (2 * Math.log(base));
    let [low, high] = [pair(fast), pair(slow)];
    if (truncate) [low, high] = [Math.floor(low), Math.ceil(high)];
    return [Math.max(low, 0), Math.min(high, dim - 1)];
  }

  function yarn(inv, dim, base, p, where) {
    const factor = factorOf(p, where);
    const context = contextOf(p, where);
    let attention = optionalFloat(p, "attention_factor", null, where, { gt: 0 });
    const m = optionalFloat(p, "mscale", null, where, { ge: 0 });
    const mAll = optionalFloat(p, "mscale_all_dim", null, where, { ge: 0 });
    if (attention === null) attention = m && mAll ? mscale(factor, m) / mscale(factor, mAll)
      : mscale(factor);
    const fast = optionalFloat(p, "beta_fast", 32, where, { ge: 0 }) || 32;
    const slow = optionalFloat(p, "beta_slow", 1, where, { ge: 0 }) || 1;
    const truncate = checkBool(`${where}['truncate']`, get(p, "truncate", true));
    let [low, high] = correctionRange(dim, base, context, fast, slow, truncate);
    if (low === high) high += 0.001;
    const out = inv.map((w, i) => {
      const ramp = Math.min(Math.max((i - low) / (high - low), 0), 1);
      return (w / factor) * ramp + w * (1 - ramp);
    });
    return [out, attention];
  }

  function llama3(inv, p, where) {
    const factor = factorOf(p, where);
    const context = contextOf(p, where);
    const low = checkFloat(`${where}['low_freq_factor']`, p.low_freq_factor, { gt: 0 });
    const high = checkFloat(`${where}['high_freq_factor']`, p.high_freq_factor, { gt: 0 });
    if (!(high >= low)) {
      fail(`${where}['high_freq_factor'] must be >= ${where}['low_freq_factor'], got ` +
        `${g(high)} and ${g(low)}`);
    }
    return [inv.map((w) => {
      const wavelength = (2 * Math.PI) / w;
      const out = wavelength > context / low ? w / factor : w;
      if (high === low || wavelength < context / high || wavelength > context / low) return out;
      const smooth = (context / wavelength - low) / (high - low);
      return ((1 - smooth) * w) / factor + smooth * w;
    }), 1];
  }

  function longrope(dim, base, p, seqLen, where) {
    const context = contextOf(p, where);
    const half = dim / 2;
    const factors = {};
    ["short_factor", "long_factor"].forEach((key) => {
      const values = p[key];
      const name = `${where}[${repr(key)}]`;
      if (!Array.isArray(values)) {
        fail(`${name} must be a list of numbers, got ${typeName(values)}`, "TypeError");
      }
      const wrong = values.find((v) => !isReal(v));
      if (wrong !== undefined) {
        fail(`${name} must hold real numbers, got ${typeName(wrong)} ${repr(wrong)}`, "TypeError");
      }
      if (!values.every((v) => isFinite(num(v)))) fail(`${name} must be finite (no NaN or inf)`);
      if (values.length !== half) {
        fail(`${name} must have ${half} entries (one per rotated pair), got shape ` +
          `(${values.length},)`);
      }
      if (values.some((v) => num(v) <= 0)) fail(`${name} must hold finite numbers > 0`);
      factors[key] = values.map(num);
    });
    let attention = optionalFloat(p, "attention_factor", null, where, { gt: 0 });
    if (attention === null) {
      if (get(p, "factor") === null) {
        fail(`${where} for rope_type 'longrope' needs 'factor' (extended / original context ` +
          "length) or 'attention_factor'");
      }
      const factor = checkFloat(`${where}['factor']`, p.factor, { gt: 0 });
      attention = factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(context));
    } else if (get(p, "factor") !== null) checkFloat(`${where}['factor']`, p.factor, { gt: 0 });
    const rescale = factors[seqLen !== null && seqLen > context ? "long_factor" : "short_factor"];
    return [range(half).map((i) => 1 / (rescale[i] * Math.pow(base, (2 * i) / dim))), attention];
  }

  // _frequencies: [inv_freq, attention_factor] of checked arguments
  function frequencies(headDim, base, type, p, seqLen, share, shareName, where) {
    if (type === "proportional") {
      const factor = optionalFloat(p, "factor", 1, where, { ge: 1 });
      const turning = Math.floor((share * headDim) / 2);
      return [ladder(headDim, base).map((w, i) => (i < turning ? w : 0) / factor), 1];
    }
    const dim = Math.trunc(headDim * share);
    if (dim < 2 || dim % 2) {
      fail(`${shareName} must leave an even number >= 2 of rotated dimensions: ` +
        `int(${headDim} · ${g(share)}) = ${dim}`);
    }
    const inv = ladder(dim, base);
    if (type === "default") return [inv, 1];
    if (type === "linear") {
      const factor = factorOf(p, where);
      return [checkFrequencies(inv.map((w) => w / factor), `${where}['factor']`), 1];
    }
    if (type === "dynamic") {
      const factor = factorOf(p, where);
      const context = contextOf(p, where);
      if (dim < 4) {
        fail("head_dim must be >= 4 for 'dynamic' scaling (exponent d/(d-2)); with partial " +
          "rotation, its rotated part");
      }
      const length = seqLen === null ? context : Math.max(seqLen, context);
      const alpha = factor * ((length - context) / context) + 1;
      const exponent = dim / (dim - 2);
      const what = `${where}['factor'] with seq_len`;
      if (Math.log(base) + exponent * Math.log(alpha) >= LOG_MAX) {
        fail(`${what} enlarges the base beyond float64's largest number (${g(base)} · ` +
          `${g(alpha)}^${g(exponent, 4)})`);
      }
      return [checkFrequencies(ladder(dim, base * Math.pow(alpha, exponent)), what), 1];
    }
    if (type === "yarn") {
      const [out, attention] = yarn(inv, dim, base, p, where);
      return [checkFrequencies(out, `${where}['factor']`), attention];
    }
    if (type === "llama3") return llama3(inv, p, where);
    return longrope(dim, base, p, seqLen, where);
  }

  // rope_frequencies(head_dim, base=, scaling=, seq_len=, partial_rotary_factor=)
  function ropeFrequencies(headDim, base, scaling, seqLen, share) {
    checkInt("head_dim", headDim);
    if (headDim <= 0) fail(`head_dim must be a positive even integer, got ${headDim}`);
    if (headDim % 2) fail(`head_dim must be even (sin/cos come in pairs), got ${headDim}`);
    const [type, p] = scaling ? scalingDict(scaling, "scaling") : ["default", {}];
    delete p.partial_rotary_factor;
    return frequencies(headDim, base, type, p, seqLen, share, "partial_rotary_factor",
      "scaling");
  }

  // --- hf_families.py: what a family's configuration class does to the file first

  // CLASS_DEFAULTS: [rope_theta, max_position_embeddings] a class fills in (null: per type)
  const CLASS_DEFAULTS = {
    afmoe: [1e4, 16384], apertus: [12e6, 65536], arcee: [1e4, 4096], aria_text: [1e4, 2048],
    axk1: [1e4, 32768], axk2: [1e4, 131072], bamba: [1e4, 262144], bitnet: [5e5, 2048],
    cohere: [5e5, 8192], cohere2: [1e4, 8192], cosmos3_edge_text: [1e8, 131072],
    deepseek_v2: [1e4, 2048], deepseek_v3: [1e4, 4096], diffllama: [1e4, 2048], doge: [1e4, 2048],
    embedding_gemma2: [null, 262144], embedding_gemma2_text: [null, 262144],
    ernie4_5: [5e5, 131072], ernie4_5_moe: [5e5, 131072], esmc: [1e4, 2048], eurobert: [1e4, 8192],
    exaone4: [1e4, 2048], exaone_moe: [1e4, 2048], falcon: [1e4, 2048], flex_olmo: [5e5, 4096],
    flint: [1e4, 262144], fuyu: [1e4, 16384], gemma: [1e4, 8192], gemma2: [1e4, 8192],
    gemma3: [null, 131072], gemma3_text: [null, 131072], gemma3n: [null, 32768],
    gemma3n_text: [null, 32768], gemma4_unified: [null, 262144],
    gemma4_unified_text: [null, 262144], glm: [1e4, 131072], glm4: [1e4, 131072],
    glm4_moe_lite: [1e4, 202752], glm_ocr_text: [1e4, 131072], gpt_neox: [1e4, 2048],
    gpt_neox_japanese: [1e4, 2048], gpt_oss: [15e4, 131072], granite: [1e4, 2048],
    granite_docling_text: [1e4, 32768], granite_swa: [1e4, 8192], granitemoe_swa: [1e4, 2048],
    granitemoeshared: [1e4, 2048], gte: [16e4, 8192], helium: [1e5, 4096],
    hunyuan_v1_dense: [1e4, 2048], hy_v3: [11158840, 131072], hy_v4: [1e4, 262144],
    hyperclovax: [1e4, 2048], internlm3: [1e4, 32768], iquestcoder: [1e4, 131072],
    jais2: [1e4, 8192], jetmoe: [1e4, 4096], jina_embeddings_v3: [2e4, 8194],
    kolibri1: [1e4, 262144], lfm2: [1e6, 128000], lfm3: [null, 128000], llama: [1e4, 2048],
    llama4: [5e5, 131072], llama4_text: [5e5, 131072], mellum: [null, 131072],
    mimo_v2_flash: [null, 131072], minicpm3: [1e4, 32768], minimax: [1e6, 131072],
    minimax_m2: [5e6, 196608], ministral: [1e4, 131072], mistral: [1e4, 131072],
    mistral4: [1e4, 1048576], mistral_large4_text: [1e4, 1048576], mixtral: [1e6, 131072],
    modernbert: [null, 8192], molmo2_text: [1e4, 36864], muse_glimmer_text: [1e4, 131072],
    nanochat: [1e4, 2048], nemotron: [1e4, 4096], neomme: [null, 16384], olmo: [1e4, 2048],
    olmo2: [1e4, 2048], olmo3: [5e5, 2048], olmoe: [1e4, 4096],
    openai_privacy_filter: [15e4, 131072], persimmon: [1e4, 16384], phi: [1e4, 2048],
    phi3: [1e4, 4096], phimoe: [1e6, 131072], qwen2: [1e4, 32768], qwen2_moe: [1e4, 32768],
    qwen3: [1e4, 32768], qwen3_moe: [1e4, 32768], qwen3_next: [1e4, 32768],
    qwen3_vl_moe_text: [5e5, 128000], smollm3: [2e6, 32768], solar_open: [1e6, 131072],
    stablelm: [1e4, 4096], starcoder2: [1e4, 4096], ultrabert: [null, 32768],
    vaultgemma: [1e4, 8192], youtu: [1e4, 131072],
    cwm: [1e6, 131072], higgs_audio_v2: [5e5, 2048], "modernbert-decoder": [null, 8192],
    nomic_bert: [1e3, 2048], olmo_hybrid: [1e4, 65536], glm_moe_dsa: [1e4, 202752],
    longcat_flash: [1e7, 131072], zamba2: [1e4, 4096],
  };
  const DEFAULT_THETAS = Object.fromEntries(Object.entries(CLASS_DEFAULTS)
    .filter(([, [theta]]) => theta !== null && theta !== 1e4).map(([t, [theta]]) => [t, theta]));
  const PARTIAL_DEFAULTS = {
    qwen3_next: 0.25, qwen3_5: 0.25, qwen3_5_text: 0.25, qwen3_5_moe: 0.25,
    qwen3_5_moe_text: 0.25, glm4_moe: 0.5, persimmon: 0.5, fuyu: 0.5, nemotron: 0.5,
  };
  const PER_TYPE_1E6 = { sliding_attention: { rope_type: "default", rope_theta: 1e4 },
    full_attention: { rope_type: "default", rope_theta: 1e6 } };
  const GEMMA4_ROPE = { sliding_attention: { rope_type: "default", rope_theta: 1e4 },
    full_attention: { rope_type: "proportional", partial_rotary_factor: 0.25, rope_theta: 1e6 } };
  const DEFAULT_ROPE = {
    cwm: { rope_type: "llama3", rope_theta: 1e6, factor: 16, high_freq_factor: 4,
      low_freq_factor: 1, original_max_position_embeddings: 8192 },
    higgs_audio_v2: { rope_type: "llama3", rope_theta: 5e5, factor: 32, high_freq_factor: 0.5,
      low_freq_factor: 0.125, original_max_position_embeddings: 1024 },
    apertus: { rope_type: "llama3", rope_theta: 12e6, factor: 8,
      original_max_position_embeddings: 8192, low_freq_factor: 1, high_freq_factor: 4 },
    gpt_oss: { rope_type: "yarn", factor: 32, beta_fast: 32, beta_slow: 1, truncate: false,
      original_max_position_embeddings: 4096 },
    mistral_large4_text: { rope_type: "yarn", rope_theta: 1e4, factor: 2048,
      original_max_position_embeddings: 512, beta_fast: 32, beta_slow: 1, attention_factor: 1 },
    openai_privacy_filter: { rope_type: "yarn", factor: 32, beta_fast: 32, beta_slow: 1,
      truncate: false, original_max_position_embeddings: 4096 },
    embedding_gemma2: PER_TYPE_1E6, embedding_gemma2_text: PER_TYPE_1E6,
    gemma4_unified: GEMMA4_ROPE, gemma4_unified_text: GEMMA4_ROPE,
    lfm3: { sliding_attention: { rope_type: "default", rope_theta: 1e4 },
      full_attention: { rope_type: "proportional", rope_theta: 1e6, partial_rotary_factor: 0.5 } },
    mellum: { full_attention: { rope_type: "default", rope_theta: 5e5 },
      sliding_attention: { rope_type: "default", rope_theta: 1e4 } },
    ultrabert: { sliding_attention: { rope_type: "default", rope_theta: 1e4 },
      full_attention: { rope_type: "default", rope_theta: 2.56e6 } },
  };

  const HUNYUAN = set("hunyuan_v1_dense hunyuan_v1_moe hunyuan");
  const HUNYUAN_KEYS = ["alpha", "beta_fast", "beta_slow", "mscale", "mscale_all_dim"];
  const GPT_NAMES = { n_positions: "max_position_embeddings", n_embd: "hidden_size",
    n_head: "num_attention_heads", n_layer: "num_hidden_layers" };
  const FALCON_NAMES = { n_head: "num_attention_heads", n_layer: "num_hidden_layers" };
  const T5_NAMES = { d_model: "hidden_size", num_heads: "num_attention_heads",
    num_layers: "num_hidden_layers", d_kv: "head_dim" };
  const LEGACY = {
    gptj: GPT_NAMES, codegen: GPT_NAMES, gpt2: GPT_NAMES, gpt_bigcode: GPT_NAMES,
    falcon: FALCON_NAMES, RefinedWebModel: FALCON_NAMES, RefinedWeb: FALCON_NAMES,
    bloom: FALCON_NAMES,
    mpt: { n_heads: "num_attention_heads", d_model: "hidden_size", n_layers: "num_hidden_layers" },
    gpt_neo: { num_heads: "num_attention_heads", num_layers: "num_hidden_layers" },
    t5: T5_NAMES, mt5: T5_NAMES, hunyuan: { attention_head_dim: "head_dim" },
    jetmoe: { kv_channels: "head_dim" }, zamba2: { attention_head_dim: "head_dim" },
  };
  const legacyKey = (type, standard) => Object.entries(get(LEGACY, type, {}))
    .find(([, name]) => name === standard)?.[0] ?? standard;
  const RENAMED_TYPES = { RefinedWebModel: "falcon", RefinedWeb: "falcon" };
  const IMPLICIT_ROPE = set("gptj codegen falcon");
  const ROTARY_DIM_TYPES = { minimax_m2: "MiniMaxM2Config", gptj: "GPTJConfig",
    codegen: "CodeGenConfig" };
  const key = (path, k) => `${path}[${repr(k)}]`;

  function ropeDict(cfg) {
    for (const k of ["rope_scaling", "rope_parameters"]) {
      if (isMap(cfg[k]) && truthy(cfg[k])) return [k, cfg[k]];
    }
    return [null, null];
  }

  function olmo3(cfg, path, notes) {
    const [k, rope] = ropeDict(cfg);
    if (rope && (has(rope, "full_attention") || has(rope, "sliding_attention"))) return;
    const full = { ...(rope || { rope_type: "default" }) };
    if (!has(full, "rope_theta")) full.rope_theta = get(cfg, "rope_theta", 5e5);
    cfg.rope_parameters = { full_attention: full,
      sliding_attention: { rope_type: "default", rope_theta: 5e5 } };
    delete cfg.rope_scaling;
    delete cfg.rope_theta;
    if (rope) {
      notes.push(`${key(path, k)} applies to the full-attention layers only (Olmo3Config); ` +
        "the sliding layers use plain RoPE with theta 500000");
    }
  }

  // DeepSeek-V4's indexer rotates as many dims of its index_head_dim-wide heads as
  // 'compress' rotates of each head: no more than it has
  function v4IndexerFits(cfg, where, compress) {
    const types = get(cfg, "layer_types");
    const ratios = get(cfg, "compress_ratios");
    if (Array.isArray(types) && !types.includes("compressed_sparse_attention")) return;
    if (types === null && Array.isArray(ratios) && !ratios.some((r) => isReal(r) && num(r) === 4)) {
      return;
    }
    if (!isMap(compress)) return; // refused where the dict is read
    const share = get(compress, "partial_rotary_factor", get(cfg, "partial_rotary_factor"));
    const head = get(cfg, "head_dim", 512);
    const index = get(cfg, "index_head_dim", 128);
    if (!isReal(share) || !isReal(head) || !isReal(index)) return; // refused where read
    const dims = Math.trunc(num(head) * num(share));
    if (isInt(head) && isInt(index) && dims > num(index)) {
      fail(`${where} rotates ${dims} dims of each head, more than the ${num(index)} of the ` +
        "indexer's heads (index_head_dim), which rotates as many: transformers cannot run " +
        "this config");
    }
  }

  function deepseekV4(cfg, path, notes) {
    const [k, rope] = ropeDict(cfg);
    const head = get(cfg, "head_dim");
    let share = get(cfg, "partial_rotary_factor");
    if (share === null && get(cfg, "qk_rope_head_dim") !== null && truthy(head)) {
      share = checkConfigInt(key(path, "qk_rope_head_dim"), cfg.qk_rope_head_dim, "head_dim") /
        checkConfigInt(key(path, "head_dim"), head, "head_dim");
    }
    if (share === null) share = 64 / 512;
    delete cfg.qk_rope_head_dim; // the class derives it again from the share
    if (rope && has(rope, "main") && has(rope, "compress")) {
      cfg.partial_rotary_factor = share; // what a nested dict without one inherits
      v4IndexerFits(cfg, `${key(path, k)}['compress']`, rope.compress);
      return;
    }
    const main = { rope_type: "default", rope_theta: get(cfg, "rope_theta", 1e4) };
    const compress = { ...(rope || { rope_type: "default" }) };
    compress.rope_theta = get(cfg, "compress_rope_theta", 16e4);
    if (get(compress, "rope_type", get(compress, "type")) === "yarn") compress.attention_factor = 1;
    main.partial_rotary_factor = compress.partial_rotary_factor = share;
    cfg.rope_parameters = { main, compress };
    delete cfg.rope_scaling;
    v4IndexerFits(cfg, `${key(path, "rope_parameters")}['compress']`, compress);
    notes.push("DeepSeek-V4 rotates the last rotary dims of each head, in interleaved pairs, " +
      "and rotates the attention output back; sliding layers use 'main', compressed layers " +
      "'compress' (DeepseekV4Config)");
  }

  // Nemotron-H: layers_block_type, else hybrid_override_pattern's letters, else the class's
  // four; the class counts them and ignores num_hidden_layers
  const NEMOTRON_H = { M: "linear_attention", E: "moe", "*": "full_attention", "-": "mlp" };
  function nemotronH(cfg, path, notes) {
    let types = get(cfg, "layer_types", get(cfg, "layers_block_type"));
    if (types === null && get(cfg, "hybrid_override_pattern") !== null) {
      const name = key(path, "hybrid_override_pattern");
      const pattern = cfg.hybrid_override_pattern;
      if (typeof pattern !== "string") {
        fail(`${name} must be a string of M, E, * and -, got ${repr(pattern)}`, "TypeError");
      }
      checkConfigInt(`len(${name})`, [...pattern].length, "layers");
      const unknown = [...new Set(pattern)].filter((c) => !has(NEMOTRON_H, c)).sort();
      if (unknown.length) {
        fail(`${name} holds ${unknown.map(repr).join(", ")}: NemotronHConfig reads M ` +
          "(Mamba-2), E (MoE), * (attention) and - (MLP)");
      }
      types = [...pattern].map((c) => NEMOTRON_H[c]);
    } else if (types === null) {
      types = ["linear_attention", "moe", "full_attention", "mlp"];
      notes.push(`${path} gives no layers_block_type or hybrid_override_pattern: the class's ` +
        "4 layers (Mamba-2, MoE, attention, MLP)");
    }
    if (Array.isArray(types)) {
      const given = get(cfg, "num_hidden_layers");
      if (given !== null && !(isReal(given) && num(given) === types.length)) {
        notes.push(`${key(path, "num_hidden_layers")} = ${repr(given)} is not read: ` +
          `NemotronHConfig counts the ${types.length} layers of its layer list`);
      }
      cfg.num_hidden_layers = types.length;
      cfg.layer_types = types;
    }
  }

  // MiMo-V2-Flash: without rope_parameters, one RoPE per layer type whatever the file's
  // rope_theta; sliding_window_size keys plus the query make the window
  function mimoV2Flash(cfg, path, notes) {
    if (get(cfg, "rope_parameters") === null) {
      ["rope_theta", "partial_rotary_factor"].forEach((k) => {
        if (has(cfg, k)) {
          notes.push(`${key(path, k)} = ${repr(cfg[k])} is not read: MiMoV2FlashConfig installs ` +
            "one RoPE per layer type (bases 5e6 full, 1e4 sliding; 0.334 of each head)");
        }
      });
      cfg.rope_parameters = {
        full_attention: { rope_type: "default", rope_theta: 5e6, partial_rotary_factor: 0.334 },
        sliding_attention: { rope_type: "default", rope_theta: 1e4, partial_rotary_factor: 0.334 },
      };
    }
    if (get(cfg, "sliding_window_size") !== null) {
      const name = key(path, "sliding_window_size");
      const size = num(checkConfigInt(name, cfg.sliding_window_size, "length", 0));
      cfg.sliding_window = size + 1;
      notes.push(`${name} = ${size} keys before the query: a window of ${size + 1} tokens`);
    }
  }

  function hunyuan(cfg, path, notes) {
    const [k, rope] = ropeDict(cfg);
    if (!rope || get(rope, "rope_type", get(rope, "type")) !== "dynamic") return;
    let alpha = get(rope, "alpha");
    if (!truthy(alpha)) {
      const unread = HUNYUAN_KEYS.filter((x) => has(rope, x)).sort();
      cfg[k] = Object.fromEntries(Object.entries(rope).filter(([x]) => !HUNYUAN_KEYS.includes(x)));
      if (unread.length) {
        notes.push(`${key(path, k)}: ${unread.join(", ")} unread without a non-zero alpha ` +
          "(dynamic NTK as usual)");
      }
      return;
    }
    const where = `${key(path, k)}['alpha']`;
    alpha = checkFloat(where, alpha, { gt: 0 });
    let d = null;
    for (const width of ["head_dim", "attention_head_dim"]) {
      if (get(cfg, width) !== null) {
        d = checkConfigInt(key(path, width), cfg[width], "head_dim", 4);
        break;
      }
    }
    if (d === null) {
      if (get(cfg, "hidden_size") === null || get(cfg, "num_attention_heads") === null) {
        fail(`${path}['head_dim'] is needed: NTK-alpha (${where}) reads it`);
      }
      const hidden = checkConfigInt(key(path, "hidden_size"), cfg.hidden_size, "width", 4);
      const heads = checkConfigInt(key(path, "num_attention_heads"), cfg.num_attention_heads,
        "heads");
      d = checkConfigInt(key(path, "head_dim"), Math.floor(hidden / heads), "head_dim", 4);
    }
    const theta = checkFloat(key(path, "rope_theta"), get(cfg, "rope_theta", 1e4), { gt: 1 });
    if (Math.log(theta) + (d / (d - 2)) * Math.log(alpha) >= LOG_MAX) {
      fail(`${where} = ${g(alpha)} puts the base theta · alpha^(d/(d-2)) beyond float64`);
    }
    const base = theta * Math.pow(alpha, d / (d - 2));
    cfg[k] = { rope_type: "default", rope_theta: base };
    delete cfg.rope_theta;
    notes.push(`NTK-alpha (Hunyuan): ${where} = ${g(alpha)} fixes the base at theta · ` +
      `alpha^(d/(d-2)) = ${g(theta)} · ${g(alpha)}^(${d}/${d - 2}) = ${g(base)}; it is not ` +
      "dynamic scaling " + (get(cfg, "model_type") === "hunyuan" ? "(modeling_hunyuan.py)"
      : "(HunYuanDenseV1RotaryEmbedding)"));
  }

  function rotaryDim(cfg, path, notes) {
    let head = get(cfg, "head_dim");
    if (head === null && truthy(get(cfg, "hidden_size")) &&
      truthy(get(cfg, "num_attention_heads"))) {
      head = Math.floor(checkConfigInt(key(path, "hidden_size"), cfg.hidden_size, "width") /
        checkConfigInt(key(path, "num_attention_heads"), cfg.num_attention_heads, "heads"));
    }
    if (head === null) return;
    if (get(cfg, "partial_rotary_factor") !== null) {
      // MiniMax-M2's class reads the share first; GPT-J's and CodeGen's read rotary_dim
      if (window.peInspector.family(cfg.model_type).partial === "read") return;
      notes.push(`${key(path, "partial_rotary_factor")} = ${repr(cfg.partial_rotary_factor)} ` +
        `is not read: ${ROTARY_DIM_TYPES[cfg.model_type]} reads rotary_dim`);
    }
    const rotary = checkConfigInt(key(path, "rotary_dim"), cfg.rotary_dim, "head_dim", 2);
    head = checkConfigInt(key(path, "head_dim"), head, "head_dim", 2);
    if (rotary > head) fail(`${key(path, "rotary_dim")} = ${rotary} is larger than the head (${head})`);
    cfg.partial_rotary_factor = rotary / head;
    notes.push(`${key(path, "rotary_dim")} = ${rotary} read as partial_rotary_factor ` +
      `${rotary}/${head} (${ROTARY_DIM_TYPES[cfg.model_type]})`);
  }

  // standardise(cfg, path) -> [cfg as the family's class leaves it, notes]
  function standardise(cfg, path) {
    const out = { ...cfg };
    const notes = [];
    checkName(`${path}['model_type']`, get(out, "model_type"));
    if (typeof out.model_type === "string" && has(RENAMED_TYPES, out.model_type)) {
      out.model_type = RENAMED_TYPES[out.model_type];
      notes.push(`${path}['model_type'] = ${repr(cfg.model_type)} is read as ` +
        `${repr(out.model_type)} (the remote code it was released with; transformers' family ` +
        "of that name)");
    }
    const type = get(out, "model_type");
    Object.entries(get(LEGACY, type, {})).forEach(([legacy, standard]) => {
      // a class's to_dict writes both names, the standard one None (JetMoE's head_dim)
      if (has(out, legacy) && get(out, standard) === null) out[standard] = out[legacy];
    });
    const statesRope = ["rope_theta", "rope_scaling", "rope_parameters"].some((k) => has(out, k));
    const alibiFalcon = type === "falcon" && truthy(get(out, "alibi"));
    if (IMPLICIT_ROPE.has(type) && !statesRope) {
      if (!alibiFalcon) out.rope_theta = 1e4;
    } else if (has(CLASS_DEFAULTS, type) && !statesRope && CLASS_DEFAULTS[type][0] !== null) {
      out.rope_theta = CLASS_DEFAULTS[type][0];
      notes.push(`${path} states no base: rope_theta ${g(out.rope_theta)} (class default of ` +
        `${repr(type)} in transformers)`);
    }
    if (has(CLASS_DEFAULTS, type) && !has(out, "max_position_embeddings") && !alibiFalcon) {
      out.max_position_embeddings = CLASS_DEFAULTS[type][1];
      notes.push(`${path} states no max_position_embeddings: ${CLASS_DEFAULTS[type][1]} ` +
        `(class default of ${repr(type)} in transformers)`);
    }
    if (has(ROTARY_DIM_TYPES, type) && get(out, "rotary_dim") !== null) rotaryDim(out, path, notes);
    if (has(PARTIAL_DEFAULTS, type) && get(out, "partial_rotary_factor") === null) {
      const [, rope] = ropeDict(out);
      if (!rope || !has(rope, "partial_rotary_factor")) {
        out.partial_rotary_factor = PARTIAL_DEFAULTS[type];
      }
    }
    if (has(DEFAULT_ROPE, type) && !ropeDict(out)[1]) {
      const installed = DEFAULT_ROPE[type];
      out.rope_parameters = Object.fromEntries(Object.entries(installed)
        .map(([k, v]) => [k, isMap(v) ? { ...v } : v]));
      const what = has(installed, "rope_type") ? repr(installed.rope_type)
        : "one RoPE per layer type";
      notes.push(`${path} gives no RoPE dict: the configuration class installs ${what} with ` +
        "its defaults");
    }
    if (has(DEFAULT_THETAS, type) && !has(out, "rope_theta")) {
      const [, rope] = ropeDict(out);
      if (!rope || !has(rope, "rope_theta")) out.rope_theta = DEFAULT_THETAS[type];
    }
    if (type === "olmo3") olmo3(out, path, notes);
    else if (type === "deepseek_v4") deepseekV4(out, path, notes);
    else if (HUNYUAN.has(type)) hunyuan(out, path, notes);
    else if (type === "nemotron_h") nemotronH(out, path, notes);
    else if (type === "mimo_v2_flash") mimoV2Flash(out, path, notes);
    // the rules of families added later are in inspector-reading.js (classRules), applied
    // right after this, in hf_families.standardise's order
    return [out, notes];
  }

  Object.assign(window.peInspector, {
    parse, isFloat, isInt, isReal, isMap, num, has, get, pop, truthy, range, set, typeName, repr,
    g, fail, checkInt, checkConfigInt, checkName, checkFloat, checkBase, checkBool, checkMapping,
    key, mscale, LOG_MAX,
    ropeFrequencies, frequencies, scalingDict, standardise, legacyKey, ropeDict,
  });
})();

/* Chapter 20's widget (pe_book/chapters/precision.py): the error of RoPE's cos and sin
 * against the position when a model runs in float16, bfloat16 or float32, computed as
 * pe_explained.precision.rope_angle_error computes it. Drawn with the kit of
 * interactive.js, which loads first. Its formulas, mirrors of the library's, are added to
 * window.peInteractive.math (tests/test_interactive.py holds them to the library).
 */
(function () {
  "use strict";

  const book = window.peInteractive;
  const { math, kit } = book;
  const { range } = kit;

  // --- the mathematics: mirrors of pe_explained.precision

  // x rounded to a binary format of `bits` significant bits (the leading one included),
  // exponents emin … emax: to nearest, ties to even, gradual underflow below 2^emin, and
  // past the largest number infinity, as IEEE 754 rounds.
  function roundBits(x, bits, emin, emax) {
    if (x === 0 || !isFinite(x)) return x;
    const a = Math.abs(x);
    let e = Math.floor(Math.log2(a));
    if (2 ** e > a) e -= 1; // log2 rounded up just below a power of two
    if (2 ** (e + 1) <= a) e += 1;
    const quantum = 2 ** (Math.max(e, emin) + 1 - bits); // the spacing at a (subnormals: fixed)
    const scaled = a / quantum; // exact: a division by a power of two
    const whole = Math.floor(scaled);
    const rest = scaled - whole;
    const up = rest > 0.5 || (rest === 0.5 && whole % 2 === 1);
    const y = (up ? whole + 1 : whole) * quantum;
    const largest = (2 - 2 ** (1 - bits)) * 2 ** emax;
    return Math.sign(x) * (y > largest ? Infinity : y);
  }

  // The formats a tensor may hold: float16 (10 fraction bits), bfloat16 (7; ml_dtypes casts
  // a float64 to float32 first, then rounds that), float32 (23) and float64 itself.
  const FORMATS = {
    float16: (x) => roundBits(x, 11, -14, 15),
    bfloat16: (x) => roundBits(Math.fround(x), 8, -126, 127),
    float32: Math.fround,
    float64: (x) => x,
  };
  function roundTo(x, dtype) {
    const round = FORMATS[dtype];
    if (!round) throw new Error(`unknown format ${dtype}`);
    return round(x);
  }

  // stored_positions: every position as a tensor of dtype holds it, read back.
  const storedPositions = (positions, dtype) => positions.map((p) => roundTo(p, dtype));

  // omega_i = base^(−2i / head_dim), in float64.
  const ropeOmega = (headDim, base) => range(headDim / 2)
    .map((i) => Math.pow(base, -(2 * i) / headDim));

  // The angles of float32_rope_cos_sin: omega_i held in invFreqDtype, then float32;
  // θ = float32(p) · omega_i, one float32 product.
  function float32RopeAngles(positions, headDim, base, invFreqDtype = "float32") {
    const inv = ropeOmega(headDim, base).map((w) => Math.fround(roundTo(w, invFreqDtype)));
    return positions.map((p) => inv.map((w) => Math.fround(Math.fround(p) * w)));
  }

  // float32_rope_cos_sin: cos and sin of those angles in float32 (correctly rounded here;
  // numpy's float32 cos and sin may be one unit in the last place away).
  function float32RopeCosSin(positions, headDim, base, invFreqDtype = "float32") {
    const theta = float32RopeAngles(positions, headDim, base, invFreqDtype);
    return [Math.cos, Math.sin].map((f) => theta.map((row) => row.map((t) => Math.fround(f(t)))));
  }

  // The error of every pair at every position, max(|cos − cos pω_i|, |sin − sin pω_i|), of
  // the float32 recipe's cos and sin stored in outputDtype, against float64.
  function ropePairErrors(positions, headDim, base, outputDtype = "float32",
    invFreqDtype = "float32") {
    const omega = ropeOmega(headDim, base);
    const [cos, sin] = float32RopeCosSin(positions, headDim, base, invFreqDtype);
    return positions.map((p, r) => omega.map((w, i) => {
      const exact = p * w; // float64 θ
      return Math.max(Math.abs(roundTo(cos[r][i], outputDtype) - Math.cos(exact)),
        Math.abs(roundTo(sin[r][i], outputDtype) - Math.sin(exact)));
    }));
  }

  // rope_angle_error (angles "float32"): the largest error over the pairs at each position.
  const ropeAngleError = (positions, headDim, base, outputDtype = "float32",
    invFreqDtype = "float32") => ropePairErrors(positions, headDim, base, outputDtype,
    invFreqDtype).map((row) => row.reduce((m, v) => Math.max(m, v), 0));

  Object.assign(math, {
    roundTo, storedPositions, ropeOmega, float32RopeAngles, float32RopeCosSin, ropePairErrors,
    ropeAngleError,
  });


  // --- the widget

  const { s, line, marker, axes, path, slider, stepper, segments, frame, steps, fixed, sig,
    write, setter, minus, ticks } = kit;
  const SUPERSCRIPT = { "−": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶",
    7: "⁷", 8: "⁸", 9: "⁹" };
  // An error as the chapter's tables write one (format_cell with ".1e"): two significant
  // digits, in fixed notation from 10⁻³ to 100, else as 5.7×10⁻⁵.
  function cell(v) {
    if (v === 0) return "0";
    if (Math.abs(v) >= 1e-3 && Math.abs(v) < 100) return minus(v.toPrecision(2));
    const [mantissa, exponent] = v.toExponential(1).split("e");
    const power = minus(String(Number(exponent))).replace(/./g, (c) => SUPERSCRIPT[c]);
    return `${minus(mantissa)}×10${power}`;
  }
  const powerOfTen = (t) => `10^{${minus(Math.round(Math.log10(t)))}}`;

  book.register("rope_precision", function (root, d) {
    const pairs = d.head_dim / 2;
    const st = { dtype: d.dtype, pair: 1, length: d.lengths[d.lengths.length - 1] };
    const f = frame(root, [[0.62, 190, 300], [0.45, 130, 300]]);
    const set = setter(st, draw);
    segments(f.form, "model in", d.formats.map((x) => [x.name, x.name, `pe-i-m${x.colour}`]),
      st.dtype, set("dtype")).classList.add("pe-i-wide");
    slider(f.form, "pair *i*", steps(0, pairs - 1), st.pair, String, set("pair"));
    stepper(f.form, "positions below", d.lengths, st.length, (v) => fixed(v, 0),
      set("length"));
    const omega = math.ropeOmega(d.head_dim, d.base);
    const cache = {};

    // The largest error of each pair over the window of positions below each end.
    function errors(dtype) {
      if (!cache[dtype]) {
        const positions = d.ends.flatMap((end) => steps(end - d.window, end - 1));
        const rows = math.ropePairErrors(positions, d.head_dim, d.base, dtype, dtype);
        cache[dtype] = d.ends.map((_, e) => omega.map((_, i) => {
          let top = 0;
          for (let r = e * d.window; r < (e + 1) * d.window; r++) top = Math.max(top, rows[r][i]);
          return top;
        }));
      }
      return cache[dtype];
    }

    function draw() {
      const { dtype, pair, length } = st;
      const format = d.formats.find((x) => x.name === dtype);
      const colour = `pe-i-c${format.colour}`;
      const table = errors(dtype);
      const largest = table.map((row) => Math.max(...row));
      const at = d.ends.indexOf(length);
      const alone = 2 ** -(format.fraction_bits + 2); // half a unit below 1: cos, sin rounded
      const yRange = [1e-8, 4];
      const yticks = [1e-8, 1e-6, 1e-4, 1e-2, 1];

      const [w, ht] = f.size(0);
      const top = d.ends[d.ends.length - 1];
      const a = axes(f.plots[0], w, ht, {
        x: [d.ends[0], top], y: yRange, xlog: true, ylog: true, left: 52, top: 30, yticks,
        xticks: [100, 1e3, 1e4, 1e5, 1e6].filter((t) => t <= top), xformat: powerOfTen,
        yformat: powerOfTen, xlabel: "position (log scale)", ylabel: "|error| of cos, sin",
        label: `The error of cos and sin in a ${dtype} model against the position: the ` +
          `largest over the pairs, ${cell(largest[0])} below ${d.ends[0]} and ` +
          `${cell(largest[largest.length - 1])} below ${fixed(top, 0)}; pair ${pair} dashed.`,
      });
      const y = (v) => a.sy(Math.min(Math.max(v, yRange[0]), yRange[1]));
      line(a.svg, a.x0, y(alone), a.x1, y(alone), "pe-i-zero");
      s(a.svg, "text", { x: a.x0 + 4, y: y(alone) - 5 },
        `cos, sin rounded alone: 2^{${minus(-(format.fraction_bits + 2))}}`);
      line(a.svg, a.sx(length), a.y0, a.sx(length), a.y1, "pe-i-zero");
      path(a.svg, d.ends.map((e, i) => [a.sx(e), y(largest[i])]), `pe-i-line ${colour}`);
      path(a.svg, d.ends.map((e, i) => [a.sx(e), y(table[i][pair])]), `pe-i-line ${colour}`)
        .style.strokeDasharray = "5 3";
      marker(a.svg, false, a.sx(length), y(largest[at]), 4, `pe-i-dot ${colour}`);
      marker(a.svg, true, a.sx(length), y(table[at][pair]), 4, `pe-i-dot ${colour}`);
      // the legend, over the plot: curves fill its corners in one format or another
      [["largest over the pairs", "", 0], [`pair ${pair}`, "5 3", 180]].forEach(([text, dash,
        x]) => {
        line(a.svg, a.x0 + x, 14, a.x0 + x + 22, 14, `pe-i-line ${colour}`).style
          .strokeDasharray = dash;
        s(a.svg, "text", { x: a.x0 + x + 28, y: 18 }, text);
      });

      const [w2, h2] = f.size(1);
      const b = axes(f.plots[1], w2, h2, {
        x: [-0.5, pairs - 0.5], y: yRange, ylog: true, left: 52, yticks,
        xticks: ticks(0, pairs - 1), yformat: powerOfTen,
        xlabel: "pair *i* (fast → slow)", ylabel: `|error| below ${powerOfTen(length)}`,
        label: `The error of every pair over the ${d.window} positions below ` +
          `${fixed(length, 0)} in a ${dtype} model: pair ${pair} ${cell(table[at][pair])}, ` +
          `the largest ${cell(largest[at])}.`,
      });
      line(b.svg, b.x0, b.sy(alone), b.x1, b.sy(alone), "pe-i-zero");
      table[at].forEach((v, i) => marker(b.svg, false, b.sx(i), b.sy(Math.max(v, yRange[0])),
        2.5, `pe-i-dot ${colour}`));
      s(b.svg, "circle", {
        class: "pe-i-ring", cx: b.sx(pair), cy: b.sy(Math.max(table[at][pair], yRange[0])), r: 7,
      });

      // in the words of the chapter's table of angle errors, its numbers as it writes them
      write(f.readout, `${format.route}: the largest error of a cosine or a sine over ` +
        `every pair and the ${d.window} positions below ${fixed(length, 0)} is ` +
        `${cell(largest[at])}; pair ${pair} (*ω*_{${pair}} = ${sig(omega[pair], 6)}): ` +
        `${cell(table[at][pair])}. Rounding cos and sin to ${dtype} alone is worth up to ` +
        `2^{${minus(-(format.fraction_bits + 2))}}.`);
    }
    return draw;
  });
})();

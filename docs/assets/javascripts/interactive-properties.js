/* Chapter 4's widget (pe_book/chapters/properties.py): a shift in position is a rotation.
 * Pair i of the sinusoidal encoding at pos is a point (sin pos·ω_i, cos pos·ω_i) of the
 * unit circle; M_k, the block of offset_matrix, turns it to pos + k by the angle k·ω_i,
 * whatever pos is. Drawn with the kit of interactive.js, which loads first; its formulas,
 * mirrors of pe_explained.properties, are added to window.peInteractive.math
 * (tests/test_interactive.py holds them to the library).
 */
(function () {
  "use strict";

  const book = window.peInteractive;
  const { math, kit } = book;
  const { range } = kit;

  // --- the mathematics: mirrors of pe_explained

  // The columns of pair i: (2i, 2i+1) interleaved, (i, i + d/2) halves (sine, cosine).
  const pairColumns = (i, dModel, layout) => (layout === "halves" ? [i, i + dModel / 2]
    : [2 * i, 2 * i + 1]);

  // sinusoidal for one position (any real pos): PE[pos, sine column] = sin(pos·omega_i),
  // PE[pos, cosine column] = cos(pos·omega_i).
  function sinusoidalRow(pos, dModel, base, layout = "interleaved") {
    const row = new Array(dModel).fill(0);
    math.sinusoidalFrequencies(dModel, base).forEach((w, i) => {
      const [s, c] = pairColumns(i, dModel, layout);
      row[s] = Math.sin(pos * w);
      row[c] = Math.cos(pos * w);
    });
    return row;
  }

  // offset_matrix: M_k with PE(pos + k) = M_k PE(pos); pair i's block turns (sin, cos) by
  // k·omega_i: [[cos, sin], [−sin, cos]].
  function offsetMatrix(k, dModel, base, layout = "interleaved") {
    const m = range(dModel).map(() => new Array(dModel).fill(0));
    math.sinusoidalFrequencies(dModel, base).forEach((w, i) => {
      const [s, c] = pairColumns(i, dModel, layout);
      const [cos, sin] = [Math.cos(k * w), Math.sin(k * w)];
      m[s][s] = cos;
      m[s][c] = sin;
      m[c][s] = -sin;
      m[c][c] = cos;
    });
    return m;
  }

  // The angle a pair turns through, clockwise as drawn (sine across, cosine up), from the
  // point (sa, ca) to the point (sb, cb), in [0, 2π).
  function turnAngle(sa, ca, sb, cb) {
    const turn = Math.atan2(sb, cb) - Math.atan2(sa, ca);
    return turn < 0 ? turn + 2 * Math.PI : turn;
  }

  Object.assign(math, { sinusoidalRow, offsetMatrix, turnAngle });


  // --- the widget

  const { s, line, marker, axes, path, slider, segments, frame, steps, fixed, sig, write,
    setter, minus } = kit;
  const TAU = 2 * Math.PI;
  // A number as the chapter's table of M_k writes it: "{:g}" for ω_i and the angle,
  // "{:.4f}" for the cosine and the sine (never "−0.0000").
  const g = (v) => sig(v, 6);
  const f4 = (v) => fixed(v, 4).replace(/^−(?=0\.0+$)/, "");
  const PI_TICKS = [[0, "0"], [0.5, "π/2"], [1, "π"], [1.5, "3π/2"], [2, "2π"]];

  book.register("offset_rotation", function (root, d) {
    const st = { pair: 0, k: d.k, pos: d.pos };
    const f = frame(root, [[0.78, 220, 300], [0.45, 120, 300]]);
    const set = setter(st, draw);
    const omega = math.sinusoidalFrequencies(d.d_model, d.base);
    segments(f.form, "pair *i*", omega.map((_, i) => [i, String(i)]), st.pair, set("pair"));
    slider(f.form, "offset *k*", d.offsets, st.k, String, set("k"));
    slider(f.form, "position *pos*", steps(0, d.max_pos), st.pos, String, set("pos"));
    const row = (p) => math.sinusoidalRow(p, d.d_model, d.base);

    function draw() {
      const { pair: i, k, pos } = st;
      const [cs, cc] = [2 * i, 2 * i + 1]; // the pair's columns: sine, cosine (interleaved)
      const start = row(pos);
      const block = math.offsetMatrix(k, d.d_model, d.base);
      const moved = block.map((r) => r.reduce((sum, v, j) => sum + v * start[j], 0)); // M_k PE
      const later = row(pos + k); // PE(pos + k) from the table
      const angle = k * omega[i];
      const turn = math.turnAngle(start[cs], start[cc], moved[cs], moved[cc]);

      const [w, ht] = f.size(0);
      const [left, bottom, top, right] = [48, 40, 12, 12];
      const radius = 1.3;
      const wide = (radius * (w - left - right)) / (ht - top - bottom); // one unit, both axes
      const a = axes(f.plots[0], w, ht, {
        x: [-wide, wide], y: [-radius, radius], grid: false, left, bottom, top, right,
        xticks: [-1, 0, 1], yticks: [-1, 0, 1],
        xlabel: `PE(*pos*, ${cs}), the sine`, ylabel: `PE(*pos*, ${cc}), the cosine`,
        label: `Pair ${i} on the unit circle: at pos = ${pos} and at pos + k = ${pos + k}, ` +
          `turned clockwise by k ω = ${g(angle)} rad.`,
      });
      const [cx, cy] = [a.sx(0), a.sy(0)];
      const unit = a.sx(1) - cx;
      s(a.svg, "circle", { class: "pe-i-zero", cx, cy, r: unit });
      const at = (phi, r) => [cx + r * unit * Math.sin(phi), cy - r * unit * Math.cos(phi)];
      // the arc of the turn, clockwise from PE(pos)
      const from = Math.atan2(start[cs], start[cc]);
      const n = Math.max(2, Math.ceil(turn * 24));
      path(a.svg, steps(0, n).map((t) => at(from + (turn * t) / n, 0.42)),
        "pe-i-line pe-i-c2");
      const point = (x, y, cls, square) => {
        path(a.svg, [[cx, cy], [a.sx(x), a.sy(y)]], `pe-i-vector ${cls}`);
        marker(a.svg, square, a.sx(x), a.sy(y), 4.5, `pe-i-dot ${cls}`);
      };
      point(start[cs], start[cc], "pe-i-c1", false);
      point(moved[cs], moved[cc], "pe-i-c2", true);
      s(a.svg, "circle", { class: "pe-i-ring", cx: a.sx(later[cs]), cy: a.sy(later[cc]), r: 9 });
      // each point named where it stands; the second further out when the two are close
      const close = Math.min(turn, TAU - turn) < 0.5;
      [[from, 1.2, `*pos* = ${pos}`], [from + turn, close ? 1.45 : 1.2, `*pos* + *k* = ` +
        `${pos + k}`]].forEach(([phi, r, text]) => {
        const [x, y] = at(phi, r);
        const anchor = Math.sin(phi) > 0.3 ? "start" : Math.sin(phi) < -0.3 ? "end" : "middle";
        s(a.svg, "text", { x, y: y + 4, "text-anchor": anchor }, text);
      });
      s(a.svg, "text", { x: a.x0 + 4, y: a.y1 + 12 }, `*k* *ω*_{${i}} = ${g(angle)} rad`);

      // the turn from PE(p) to PE(p + k) measured on the table's rows, for every p
      const [w2, h2] = f.size(1);
      const b = axes(f.plots[1], w2, h2, {
        x: [0, d.max_pos], y: [0, TAU], left, xlabel: "position *pos*",
        ylabel: "turn to *pos* + *k*", yticks: PI_TICKS.map(([t]) => t * Math.PI),
        yformat: (t) => PI_TICKS.find(([u]) => Math.abs(u * Math.PI - t) < 1e-9)[1],
        label: `The angle pair ${i} turns from PE(pos) to PE(pos + ${k}), measured at every ` +
          `pos from 0 to ${d.max_pos}: ${g(turn)} rad at every one.`,
      });
      const turns = steps(0, d.max_pos).map((p) => {
        const [x, y] = [row(p), row(p + k)];
        return [b.sx(p), b.sy(math.turnAngle(x[cs], x[cc], y[cs], y[cc]))];
      });
      path(b.svg, turns, "pe-i-line pe-i-c2");
      marker(b.svg, false, b.sx(pos), b.sy(turn), 5, "pe-i-dot pe-i-c1");

      // in the words and numbers of the chapter's table of M_k
      const whole = Math.floor(angle / TAU);
      const laps = whole < 1 ? "" : ` (${whole} full turn${whole > 1 ? "s" : ""} and ` +
        `${g(turn)} rad)`;
      write(f.readout, `Pair ${i}, *ω*_{${i}} = ${g(omega[i])}: *M*_{${minus(k)}} turns ` +
        `PE(${pos}) (dot) clockwise by *k* *ω*_{${i}} = ${g(angle)} rad${laps} onto ` +
        `PE(${pos + k}) (ring), the same angle from every *pos*. Its block for pair ${i}: ` +
        `cosine ${f4(block[cs][cs])}, sine ${f4(block[cs][cc])}.`);
    }
    return draw;
  });
})();

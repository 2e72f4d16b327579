/* Chapter 11's widget (pe_book/chapters/rope.py): one query and one key turned at
 * positions m and n, pair by pair, in either layout. In pair i's plane the turned q and k
 * are drawn at comparable lengths (a turn changes their directions, never their lengths),
 * with the arc (m − n)ω_i: from q turned by nω_i, as far as k was, on to q turned by mω_i.
 * Moving both positions turns every arrow and keeps the arc. Drawn with the kit of
 * interactive.js, which loads first, from its mirrors of pe_explained.rope
 * (window.peInteractive.math: ropeFrequencies, ropePairs, applyRope, ropeScore).
 */
(function () {
  "use strict";

  const book = window.peInteractive;
  const { math, kit } = book;
  const { h, s, marker, fmt, axes, path, slider, control, segments, frame, steps, fixed,
    write, num, setter, minus, range } = kit;
  const TAU = 2 * Math.PI;
  // The drawn lengths of q and k, and the radius of the arc between them (plot units).
  const [Q_DRAWN, K_DRAWN, ARC] = [1, 0.8, 0.42];

  // A turn by angle as drawn: whole turns left out, the sign kept (counter-clockwise for
  // a positive angle).
  const drawnTurn = (angle) => Math.sign(angle) * (Math.abs(angle) % TAU);

  book.register("rope", function (root, d) {
    const st = { m: d.m, n: d.n, pair: 0, layout: d.layout };
    const f = frame(root, [[0.8, 230, 330], [0.45, 130, 330]]);
    const invFreq = math.ropeFrequencies(d.head_dim, d.base);
    const positions = steps(0, d.max_position);
    const set = setter(st, draw);
    const mControl = slider(f.form, "query position *m*", positions, st.m, String, set("m"));
    const nControl = slider(f.form, "key position *n*", positions, st.n, String, set("n"));
    const moves = [-1, 1].map((by) => { // the offset m − n stays
      const button = h("button", { type: "button" }, `both ${by < 0 ? "−" : "+"} 1`);
      button.addEventListener("click", () => {
        mControl.set(st.m += by);
        nControl.set(st.n += by);
        draw();
      });
      return button;
    });
    control(f.form, "move *m* and *n* together", null, null,
      h("div", { class: "pe-i-buttons" }, ...moves));
    segments(f.form, "pair *i*", steps(0, d.head_dim / 2 - 1).map((i) => [i, String(i)]),
      st.pair, set("pair"));
    segments(f.form, "layout", [
      ["halves", "halves (GPT-NeoX)"],
      ["interleaved", "interleaved (GPT-J)"],
    ], st.layout, set("layout")).classList.add("pe-i-wide");

    function draw() {
      const { m, n, pair, layout } = st;
      moves[0].disabled = Math.min(m, n) === 0;
      moves[1].disabled = Math.max(m, n) === d.max_position;
      const [da, db] = math.ropePairs(d.head_dim, layout)[pair];
      const omega = invFreq[pair];
      const turned = (x, p) => math.applyRope(x, p, invFreq, layout);
      const score = math.ropeScore(d.q, d.k, m, n, invFreq, layout);
      const angle = (x) => Math.atan2(x[db], x[da]);
      const offset = (m - n) * omega; // the arc from q turned as far as k to q at m
      const [w, ht] = f.size(0);
      const [left, bottom] = [48, 76];
      const radius = 1.32;
      const wide = (radius * (w - left - 12)) / (ht - bottom - 12); // one unit, both axes
      const a = axes(f.plots[0], w, ht, {
        x: [-wide, wide], y: [-radius, radius], grid: false, left, bottom, xticks: [],
        yticks: [], xlabel: `dimension ${da}`, ylabel: `dimension ${db}`,
        label: `Pair ${pair} (dimensions ${da} and ${db}), drawn at comparable lengths: q ` +
          `turned by m·ω = ${fmt(m * omega)} rad, k by n·ω = ${fmt(n * omega)} rad; the ` +
          `arc (m − n)·ω = ${fmt(offset)} rad.`,
      });
      const [cx, cy] = [a.sx(0), a.sy(0)];
      const unit = a.sx(1) - cx;
      const at = (phi, r) => [cx + r * unit * Math.cos(phi), cy - r * unit * Math.sin(phi)];
      [Q_DRAWN, K_DRAWN].forEach((r) => s(a.svg, "circle", { class: "pe-i-zero", cx, cy,
        r: r * unit }));
      const arrow = (phi, r, square, cls, dashed) => {
        const el = path(a.svg, [[cx, cy], at(phi, r)], `pe-i-vector ${cls}`);
        if (dashed) el.setAttribute("stroke-dasharray", "5 4");
        if (square !== null) marker(a.svg, square, ...at(phi, r), 4, `pe-i-dot ${cls}`);
      };
      const qFrom = angle(turned(d.q, n));
      arrow(angle(d.q), Q_DRAWN, false, "pe-i-muted");
      arrow(angle(d.k), K_DRAWN, true, "pe-i-muted");
      arrow(qFrom, Q_DRAWN, null, "pe-i-c1", true);
      arrow(angle(turned(d.q, m)), Q_DRAWN, false, "pe-i-c1");
      arrow(angle(turned(d.k, n)), K_DRAWN, true, "pe-i-c2");
      // the arc (m − n)ω_i, named out along its middle
      const turn = drawnTurn(offset);
      const count = Math.max(2, Math.ceil(Math.abs(turn) * 16));
      path(a.svg, range(count + 1).map((j) => at(qFrom + (turn * j) / count, ARC)),
        "pe-i-ring");
      const middle = qFrom + turn / 2;
      path(a.svg, [at(middle, ARC), at(middle, 1.1)], "pe-i-zero");
      const [tx, ty] = at(middle, 1.2);
      const side = Math.cos(middle);
      s(a.svg, "text", { x: tx, y: ty + 4,
        "text-anchor": side > 0.3 ? "start" : side < -0.3 ? "end" : "middle" },
      `(*m* − *n*)*ω*_{${pair}}`);
      [
        [false, "pe-i-c1", "*q* turned by *mω*_{*i*}"],
        [true, "pe-i-c2", "*k* turned by *nω*_{*i*}"],
        [null, "pe-i-c1", "*q* turned by *nω*_{*i*}"],
        [false, "pe-i-muted", "*q*, *k* at position 0"],
      ].forEach(([square, cls, text], i) => {
        const [x, y] = [a.x0 - 40 + (i % 2) * 150, a.y0 + 56 + 17 * Math.floor(i / 2)];
        if (square === null) {
          path(a.svg, [[x - 2, y - 4], [x + 10, y - 4]], `pe-i-line ${cls}`)
            .setAttribute("stroke-dasharray", "4 3");
        } else {
          marker(a.svg, square, x + 4, y - 4, 4, `pe-i-dot ${cls}`);
        }
        s(a.svg, "text", { x: x + 14, y }, text);
      });

      const span = d.max_position;
      const offsets = steps(-span, span, 0.25); // the score is defined between integers too
      const curve = offsets.map((o) => math.ropeScore(d.q, d.k, o, 0, invFreq, layout));
      const [lo, hi] = [Math.min(...curve), Math.max(...curve)];
      const pad = (hi - lo) * 0.08;
      const [w2, h2] = f.size(1);
      const b = axes(f.plots[1], w2, h2, {
        x: [-span, span], y: [lo - pad, hi + pad], xlabel: "offset *m* − *n*",
        ylabel: "score *q*_{*m*}^{⊤}*k*_{*n*}",
        label: `The score of the whole head against m − n; at m = ${m}, n = ${n} it is ` +
          `${fmt(score, 7)}.`,
      });
      if (lo < 0 && hi > 0) path(b.svg, [[b.x0, b.sy(0)], [b.x1, b.sy(0)]], "pe-i-zero");
      path(b.svg, offsets.map((o, i) => [b.sx(o), b.sy(curve[i])]), "pe-i-line pe-i-c1");
      marker(b.svg, false, b.sx(m - n), b.sy(score), 5, "pe-i-dot pe-i-c2");
      // the score as the page's example rounds it (6 decimals)
      write(f.readout, `*q*_{*m*}^{⊤}*k*_{*n*} = ${fixed(score, 6)} at *m* = ${m}, ` +
        `*n* = ${n}: it depends on *m* − *n* = ${minus(m - n)} only (move both and it ` +
        `stays). Pair ${pair} is dimensions ${da} and ${db} in the ${layout} layout, ` +
        `*ω*_{${pair}} = ${num(omega)} rad per position; the arc (*m* − *n*)*ω*_{${pair}} ` +
        `is ${num(offset)} rad.`);
    }
    return draw;
  });
})();

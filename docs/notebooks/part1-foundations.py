# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Part I · Foundations
#
# A companion notebook to Part I of *Positional Encoding, Explained*
# ([the order problem](https://pe-explained.github.io/pe_explained/foundations/order-problem.html),
# [the sinusoidal encoding](https://pe-explained.github.io/pe_explained/foundations/sinusoidal.html),
# [its properties](https://pe-explained.github.io/pe_explained/foundations/properties.html)).
# Every cell runs in a second or two; change the parameters and run it again.
#
# Its first cell installs what it needs where it is missing (in Colab, or a Jupyter
# of your own): the book’s library, `pe_explained`, in the version this site was
# built with, and matplotlib. In a clone of the book’s repository,
# `python3 scripts/book.py setup` has installed both into `.venv` already.

# %%
# The book's library, pe_explained, where it is missing: the version the book's
# site was built with, from the site (numpy comes with it), and matplotlib.
import importlib.util
import subprocess
import sys

SITE = "https://pe-explained.github.io/pe_explained/"
WHEEL = SITE + "notebooks/pe_explained-0.1.0-py3-none-any.whl"
if importlib.util.find_spec("pe_explained") is None:
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, WHEEL, "matplotlib"], check=True)

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np

from pe_explained import sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths
from pe_explained.attention import self_attention, toy_embeddings
from pe_explained.properties import (
    distance_by_offset,
    dot_product_by_offset,
    first_distance_decrease,
    offset_matrix,
)

np.set_printoptions(precision=4, suppress=True)

# %%
# The book's colours on a white background (without this cell: matplotlib's)
ink, grey = "#1f1f1f", "#6b6b6b"
plt.rcParams.update({
    "axes.prop_cycle": plt.cycler(color=[
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B07800", "#7B52AE", "#000000",
    ]),
    "text.color": ink, "axes.labelcolor": ink, "axes.titlecolor": ink,
    "xtick.color": ink, "ytick.color": ink, "legend.labelcolor": ink,
    "axes.edgecolor": grey, "grid.color": grey, "grid.alpha": 0.35,
    "axes.spines.top": False, "axes.spines.right": False, "axes.titlesize": 11,
    "legend.edgecolor": "none", "legend.framealpha": 0.85,
    "lines.linewidth": 1.8, "lines.dotted_pattern": [1.2, 1.3],
    "image.cmap": "RdBu_r", "figure.constrained_layout.use": True,
})

# %% [markdown]
# ## 1. Attention alone cannot see order
#
# Three word vectors go through one head of self-attention without a causal mask (as in
# an encoder), first as “dog bites man”, then as “man bites dog”. Without positions the
# second output is exactly the first one with its rows reordered: the head cannot tell
# the sentences apart. A causal mask alone would break that symmetry;
# [chapter 14](https://pe-explained.github.io/pe_explained/modern/xpos-nope.html) shows how one
# attention head can read every position back from it.

# %%
d_model = 8
words = toy_embeddings(["dog", "bites", "man"], d_model, seed=0)
rng = np.random.default_rng(1)
w_q, w_k, w_v = rng.normal(size=(3, d_model, d_model)) / np.sqrt(d_model)

x = np.stack([words[w] for w in ["dog", "bites", "man"]])
x_swapped = np.stack([words[w] for w in ["man", "bites", "dog"]])
reorder = [2, 1, 0]  # row j of the swapped sentence is row reorder[j] of the original

out = self_attention(x, w_q, w_k, w_v)
out_swapped = self_attention(x_swapped, w_q, w_k, w_v)
print("outputs only reordered:", np.allclose(out_swapped, out[reorder]))

# %% [markdown]
# Add the sinusoidal encoding of each *position* to the word vectors and the two
# sentences give different outputs: “dog” as the subject (position 0) is no longer
# the same vector as “dog” as the object (position 2).

# %%
pe = sinusoidal(3, d_model)
out = self_attention(x + pe, w_q, w_k, w_v)
out_swapped = self_attention(x_swapped + pe, w_q, w_k, w_v)
print("outputs only reordered:", np.allclose(out_swapped, out[reorder]))
print("largest change in the output for 'dog':", round(float(np.abs(out_swapped[2] - out[0]).max()), 4))

# %% [markdown]
# ## 2. The sinusoidal table
#
# Pair $i$ of the encoding is a sine and a cosine of the same angle,
# $\theta = pos\,\omega_i$, with $\omega_i = \text{base}^{-2i/d_{\text{model}}}$. In the
# *interleaved* layout of [Vaswani et al. (2017)](https://pe-explained.github.io/pe_explained/appendix/bibliography.html#vaswani2017), column $2i$ holds
# the sine and column $2i+1$ the cosine.

# %%
print(sinusoidal(6, d_model))  # rows: positions 0-5; columns: sin, cos, sin, cos, ...

# %% [markdown]
# The frequencies fall geometrically from 1 radian per position, so the wavelengths
# $2\pi/\omega_i$ (in positions) grow geometrically from $2\pi$.

# %%
for i, (omega, wavelength) in enumerate(
    zip(sinusoidal_frequencies(d_model), sinusoidal_wavelengths(d_model))
):
    print(f"pair i={i}: omega = {omega:<8g} rad/position, wavelength = {wavelength:9.2f} positions")

# %% [markdown]
# ## 3. The heatmap
#
# A longer table, 100 positions by 64 dimensions, is drawn in Figure 1. Low dimension
# indices oscillate fast down the positions; high ones barely move.

# %% alt="Heatmap of the sinusoidal encoding for 100 positions (rows) and 64 dimensions (columns): the left columns alternate quickly between -1 and 1 down the positions, the right columns hardly change and stay near 0 (sine) or 1 (cosine)." caption="The sinusoidal table, 100 positions by d_model = 64: fast columns on the left, slow ones on the right."
table = sinusoidal(100, 64)
fig, ax = plt.subplots(figsize=(7, 4))
image = ax.imshow(table, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
ax.set_xlabel(r"dimension index $j$ (low $j$ = high frequency → high $j$ = low frequency)")
ax.set_ylabel(r"position $\mathrm{pos}$")
fig.colorbar(image, ax=ax, label=r"$\mathrm{PE}(\mathrm{pos}, j)$")
plt.show()

# %% [markdown]
# ## 4. Properties
#
# ### Dot product and distance depend only on the offset
#
# $PE(pos) \cdot PE(pos + k) = \sum_i \cos(k\,\omega_i)$: the positions themselves cancel
# out, and so they do in the distance $\|PE(pos + k) - PE(pos)\|$. Measure both at the
# same offset $k$ from three starting positions and compare with the closed forms of
# `pe_explained.properties`.

# %%
d_model, k = 64, 5
table = sinusoidal(200, d_model)
for pos in (0, 17, 150):
    dot = table[pos] @ table[pos + k]
    distance = np.linalg.norm(table[pos + k] - table[pos])
    print(f"pos = {pos:3d}: dot product {dot:.6f}, distance {distance:.6f}")
print(f"closed form: dot product {dot_product_by_offset(k, d_model):.6f}, "
      f"distance {distance_by_offset(k, d_model):.6f}")

# %% [markdown]
# As functions of the offset, the dot product is largest at $k = 0$ (where it equals
# $d_{\text{model}} / 2$) and the distance is 0 there. Moving away, the dot product falls and
# the distance rises, but only at first: the distance is not an increasing function
# of the offset
# ([chapter 4](https://pe-explained.github.io/pe_explained/foundations/properties.html)).
# A few positions out it already dips, so a farther position can be closer than a
# nearer one (Figure 2). Both curves are symmetric in $k$, so neither tells “before”
# from “after”.

# %% alt="Two line plots against the offset k from -100 to 100 for d_model = 64. Top: the dot product PE(pos) · PE(pos + k), with its peak of d_model / 2 at k = 0, falling quickly and then wobbling at a lower level. Bottom: the distance between the two encodings, 0 at k = 0, rising steeply over the first few offsets and then levelling off in a ragged band where it often goes down again. Both curves are mirror-symmetric around k = 0." caption="Dot product (top) and distance (bottom) between the encodings of positions $pos$ and $pos + k$, against the offset $k$ (d_model = 64)."
offsets = np.arange(-100, 101)
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 4.4), sharex=True)
top.plot(offsets, dot_product_by_offset(offsets, d_model))
top.set_ylabel(r"$\mathrm{PE}(\mathrm{pos}) \cdot \mathrm{PE}(\mathrm{pos}+k)$")
bottom.plot(offsets, distance_by_offset(offsets, d_model), color="C1")
bottom.set_ylabel(r"$\|\mathrm{PE}(\mathrm{pos}+k) - \mathrm{PE}(\mathrm{pos})\|$")
bottom.set_xlabel(r"offset $k$ (positions)")
for ax in (top, bottom):
    ax.grid(True)
plt.show()

# %%
steps = np.diff(distance_by_offset(np.arange(101), d_model))
print(f"the distance first shrinks after k = {first_distance_decrease(d_model)}")
print(f"it shrinks at {(steps < 0).sum()} of the {steps.size} steps from k = 0 to 100")

# %% [markdown]
# ### A shift is a rotation
#
# For each pair, $\sin((pos + k)\,\omega)$ and $\cos((pos + k)\,\omega)$ follow from
# $\sin(pos\,\omega)$ and $\cos(pos\,\omega)$ by the angle-addition formulas, that is, by
# a $2 \times 2$ rotation through the angle $k\omega$. One rotation per pair makes a
# block-diagonal matrix $M_k$ (`offset_matrix`, printed below as `M(k)`): it depends on
# the offset only, and $PE(pos + k) = M_k\, PE(pos)$ at every position.

# %%
m = offset_matrix(k, d_model)
print(m[:4, :4].round(4))  # the first two pairs' 2 × 2 rotation blocks
shifted = table[:-k] @ m.T  # row pos becomes M(k) @ PE[pos]
print("PE[pos + k] == M(k) PE[pos] for every pos:", np.allclose(shifted, table[k:]))
print("M(k) is a rotation (orthogonal):", np.allclose(m @ m.T, np.eye(d_model)))

# %% [markdown]
# Each pair walks round the unit circle, one step of $\omega_i$ radians per position:
# large steps for the first pair, tiny ones for the later pairs. Drawn as the clock
# hands of [chapter 6](https://pe-explained.github.io/pe_explained/foundations/intuitions.html),
# with the sine across and the cosine up, every pair starts at 12 o’clock and turns
# clockwise (Figure 3).

# %% alt="Two unit circles. Left, pair i = 0 of an 8-dimensional encoding: the points for positions 0 to 12 start at the top and jump clockwise about one radian round the circle per position. Right, pair i = 1: the same positions start at the top and advance clockwise much less per step, covering a short arc." caption="Pairs 0 and 1 of an 8-wide encoding as clock hands, positions 0 to 12."
d_model, positions = 8, np.arange(13)
pe = sinusoidal(positions, d_model)
fig, axes = plt.subplots(1, 2, figsize=(7, 3.6))
for ax, i in zip(axes, (0, 1)):
    circle = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.sin(circle), np.cos(circle), color="0.75", linewidth=1)
    ax.plot(pe[:, 2 * i], pe[:, 2 * i + 1], marker="o", linewidth=0.8)
    labelled = (0, 1, 2, 12) if i == 0 else (0, 12)  # pair 1's first steps sit too close
    for pos in labelled:  # each label just outside the circle, away from the lines
        x, y = pe[pos, 2 * i], pe[pos, 2 * i + 1]
        ax.annotate(f"pos {pos}", (x, y), fontsize=9, xytext=(10 * x, 10 * y),
                    textcoords="offset points",
                    ha="center" if abs(x) < 0.3 else "left" if x > 0 else "right",
                    va="center" if abs(y) < 0.3 else "bottom" if y > 0 else "top")
    ax.set_title(f"pair $i = {i}$: {sinusoidal_frequencies(d_model)[i]:g} rad per position")
    ax.set_xlabel(r"$\sin(\mathrm{pos}\,\omega_i)$")
    ax.set_ylabel(r"$\cos(\mathrm{pos}\,\omega_i)$")
    ax.set_aspect("equal")
    ax.set_xlim(-1.4, 1.4)
    ax.set_ylim(-1.4, 1.4)
plt.show()

# %% [markdown]
# ## Your turn
#
# Try these before running the cell below, which answers them and checks the answers:
#
# 1. Write $PE(3)$ for $d_{\text{model}} = 4$ by hand: two pairs, with
#    $\omega_0 = 1$ and $\omega_1 = 1/100$, each a sine then a cosine. Compare it
#    with `sinusoidal`.
# 2. Moving 3 positions and then 5 should be moving 8: check that
#    $M(5)\,M(3) = M(8)$ with `offset_matrix`.

# %%
by_hand = np.array([np.sin(3), np.cos(3), np.sin(3 / 100), np.cos(3 / 100)])
print("PE(3) by hand:", by_hand.round(4))
assert np.allclose(by_hand, sinusoidal(np.arange(4), 4)[3])
two_moves = offset_matrix(5, 16) @ offset_matrix(3, 16)
assert np.allclose(two_moves, offset_matrix(8, 16))
print("M(5) M(3) == M(8):", np.allclose(two_moves, offset_matrix(8, 16)))

# %% [markdown]
# ## Takeaways
#
# - Self-attention without a causal mask only reorders its outputs when the input is
#   reordered; adding a position-dependent vector breaks that symmetry (and so does a
#   causal mask on its own).
# - The sinusoidal encoding is a ladder of sine/cosine pairs whose wavelengths grow
#   geometrically from $2\pi$ to almost $2\pi \cdot \text{base}$.
# - The dot product of two encodings depends only on their offset, and moving by an
#   offset is one fixed rotation — the property that RoPE builds on in Part III.

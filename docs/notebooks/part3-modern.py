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
# # Part III · Modern encodings
#
# A companion notebook to Part III of *Positional Encoding, Explained*
# ([RoPE](https://pe-explained.github.io/pe_explained/modern/rope.html),
# [ALiBi](https://pe-explained.github.io/pe_explained/modern/alibi.html),
# [T5’s relative bias](https://pe-explained.github.io/pe_explained/modern/t5-bias.html),
# [stretching the context](https://pe-explained.github.io/pe_explained/modern/context-extension.html)).
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

from pe_explained import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    ntk_aware_base,
    rope_decay_bound,
    rope_frequencies,
    t5_relative_bucket,
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
# ## 1. RoPE: the score depends only on the offset
#
# RoPE rotates a query at position $m$ and a key at position $n$, pair by pair, by the
# angles $m\,\omega_i$ and $n\,\omega_i$. Their dot product then sees only the
# difference $m - n$. Move both positions by the same amount and the score stays put,
# in either layout of the pairs. The two layouts pair different dimensions of $q$ and
# $k$, so their scores differ from each other:

# %%
head_dim = 64
rng = np.random.default_rng(0)
q, k = rng.normal(size=(2, 1, head_dim))
inv_freq, _ = rope_frequencies(head_dim)


def rope_score(m, n, layout):
    """q rotated to position m, dotted with k rotated to position n."""
    return float((apply_rope(q, [m], inv_freq, layout=layout) @ apply_rope(k, [n], inv_freq, layout=layout).T)[0, 0])


for layout in ("halves", "interleaved"):
    scores = [rope_score(m, m - 3, layout) for m in (3, 100, 5000)]
    print(f"{layout:<12} m - n = 3 at m = 3, 100, 5000:", [round(s, 6) for s in scores])

# %% [markdown]
# A rotation keeps lengths, so RoPE changes the angle between $q$ and $k$ but not
# their norms:

# %%
rotated = apply_rope(q, [1234], inv_freq)
print("norm before:", round(float(np.linalg.norm(q)), 6), " after:", round(float(np.linalg.norm(rotated)), 6))

# %% [markdown]
# RoFormer bounds how large the score can get at a given distance; the bound falls,
# with oscillations, as $m - n$ grows. For a query and key that are equal (all
# ones), the actual score follows the same trend (Figure 1). Each curve is divided by
# its own value at distance 0, so the figure compares their shapes: divided this way,
# the bound is not a ceiling over the score, which runs above it at most distances
# (the count is printed under the plot).

# %% alt="Line plot against the relative distance m - n from 0 to 1000 positions for head_dim = 64: the score of an all-ones query and key after RoPE and RoFormer's relative upper bound, both divided by their value at distance 0. Both fall quickly from 1 over the first hundred positions and then oscillate at a lower level." caption="RoPE's score for an all-ones query and key, and RoFormer's bound, against the distance $m - n$ (head_dim = 64), each divided by its value at distance 0."
distances = np.arange(0, 1001)
ones = np.ones(head_dim)
queries = apply_rope(np.tile(ones, (len(distances), 1)), distances, inv_freq)  # query at m
score = queries @ ones  # key at n = 0, where the rotation is the identity
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.plot(distances, score / head_dim, label=r"score of an all-ones $q$ and $k$ (÷ $d_k$)")
bound = rope_decay_bound(distances, head_dim) / rope_decay_bound([0], head_dim)[0]
ax.plot(distances, bound, label="RoFormer's relative bound (÷ its value at 0)")
ax.set_xlabel(r"relative distance $m - n$ (positions)")
ax.set_ylabel("relative size")
ax.grid(True)
ax.legend(loc="upper right")
plt.show()
above = int((score / head_dim > bound).sum())
print(f"the divided score is above the divided bound at {above} of {len(distances)} distances")

# %% [markdown]
# ## 2. ALiBi: a linear penalty per head
#
# ALiBi adds $-m_h\,(i - j)$ to the score of query $i$ and key $j$: no position
# vectors at all, just a penalty growing with the distance, with a different slope
# $m_h$ in every head (Figure 2). For a power-of-two number of heads the slopes form a
# geometric sequence:

# %%
num_heads = 8
print("slopes:", alibi_slopes(num_heads))
print("bias of head 0 for 5 positions (causal, so -inf above the diagonal):")
print(alibi_bias(num_heads, 5)[0])

# %% alt="Line plot of the ALiBi bias against the distance i - j from 0 to 32 positions for 4 of 8 heads: straight lines through 0 going down, steepest for head 0 and flattest for head 7; the legend gives each head's slope." caption="ALiBi's bias against the distance $i - j$ for 4 of 8 heads, one slope $m_h$ each."
bias = alibi_bias(num_heads, 33, dtype=np.float64)[:, -1, ::-1]  # last query, keys by distance
fig, ax = plt.subplots(figsize=(7, 3.2))
for head in (0, 1, 3, 7):
    ax.plot(np.arange(33), bias[head], label=f"head {head}: slope $m_h$ = {alibi_slopes(num_heads)[head]:g}")
ax.set_xlabel(r"distance $i - j$ (positions back from the query)")
ax.set_ylabel("bias added to the score")
ax.grid(True)
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# ## 3. T5’s buckets
#
# T5 learns one scalar bias per *bucket* of relative positions: the first few
# distances get a bucket each, larger ones share logarithmically wider buckets, and
# the last bucket takes everything from some distance on — and that distance is
# well below `max_distance`: the logarithmic buckets reach the last
# one early (Figure 3). Keys before and after the query get separate buckets in the encoder.

# %%
offsets = np.array([-200, -128, -64, -16, -8, -7, -1, 0, 1, 7, 8, 16, 64, 128, 200])
for offset, bucket in zip(offsets, t5_relative_bucket(offsets)):
    print(f"key - query = {offset:5d}  ->  bucket {bucket}")
distance = np.arange(1, 129)
last_bucket = t5_relative_bucket(-distance)[-1]
flat_from = int(distance[t5_relative_bucket(-distance) == last_bucket][0])
print("every distance from", flat_from, "on shares the last bucket on each side")

# %% alt="Step plot of T5's bucket index against the relative position key minus query from -160 to 160: one bucket per position near 0, then wider and wider steps, flat from the distance printed above on each side (dashed lines), well inside plus or minus max_distance; keys before the query use buckets 0 to 15 and keys after it buckets 16 to 31." caption="T5's bucket for every relative position from −160 to 160 (bidirectional, 32 buckets)."
relative = np.arange(-160, 161)
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.step(relative, t5_relative_bucket(relative), where="mid")
for edge in (-flat_from, flat_from):
    ax.axvline(edge, color="0.5", linestyle="--", linewidth=1)
ax.set_xlabel("relative position, key − query (positions)")
ax.set_ylabel("bucket")
ax.grid(True)
plt.show()

# %% [markdown]
# ## 4. Stretching the context: what each method does to the frequencies
#
# To run a RoPE model on longer inputs than it was trained on, the methods rescale
# the rotation frequencies. Plot each method’s *stretch* of every pair, its new
# wavelength over the original one (the original frequency over the new), as chapter 15
# draws it, for a head width $d_k = 128$ (`head_dim`): position interpolation,
# NTK-aware scaling and YaRN stretching a 4,096-token context 4 times, and Llama 3’s
# rule with the settings Llama 3.1 ships with. The first three use $\text{base} = 10000$;
# Llama 3.1 has $\text{base} = 500000$ and factor 8. Its 8192 is the rule’s *original*
# context (`original_max_position_embeddings`). The rule is in Meta’s released code
# and in Llama 3.1’s config, not in the Llama 3 report
# ([chapter 15](https://pe-explained.github.io/pe_explained/modern/context-extension.html#llama-3s-rule)).
# Position interpolation stretches every pair by the factor; NTK-aware scaling keeps the
# fastest pair and stretches the slowest by the factor; YaRN and Llama 3 keep the fast
# pairs, stretch the slow ones by the factor and blend in between (Figure 4). Each
# method keeps its colour and line style from chapter 15’s figure.

# %%
head_dim, factor, context = 128, 4.0, 4096
methods = {  # name: (base, Hugging Face rope_scaling)
    "position interpolation": (10000.0, {"rope_type": "linear", "factor": factor}),
    "NTK-aware": (10000.0, None),
    "YaRN": (10000.0, {"rope_type": "yarn", "factor": factor,
                       "original_max_position_embeddings": context}),
    "Llama 3.1 (factor 8)": (500000.0, {"rope_type": "llama3", "factor": 8.0,
                                        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                        "original_max_position_embeddings": 8192}),
}
# chapter 15's colour and line style of each method
looks = {
    "position interpolation": ("#D55E00", "--"),
    "NTK-aware": ("#009E73", "-."),
    "YaRN": ("#B07800", "-"),
    "Llama 3.1 (factor 8)": ("#7B52AE", "--"),
}
stretches = {}
for name, (base, scaling) in methods.items():
    original, _ = rope_frequencies(head_dim, base=base)
    if name == "NTK-aware":  # plain RoPE with a larger base
        scaled, _ = rope_frequencies(head_dim, base=ntk_aware_base(base, factor, head_dim))
    else:
        scaled, _ = rope_frequencies(head_dim, base=base, scaling=scaling)
    stretches[name] = original / scaled  # new wavelength ÷ original wavelength
for name, stretch in stretches.items():
    print(f"{name:<24} fastest pair x{stretch[0]:.4f}   slowest pair x{stretch[-1]:.4f}")

# %% alt="Line plot of each pair's stretch, its new wavelength over the original one, on a log scale, against the pair index 0 to 63 for head_dim = 128: position interpolation is a flat line at 4; NTK-aware scaling rises smoothly from 1 to 4; YaRN stays at 1 for the fast pairs, ramps up and stays at 4 for the slow ones; Llama 3.1 does the same up to its factor 8." caption="Every pair's stretch (new ÷ original wavelength) under four ways of extending the context (head_dim = 128), in chapter 15's colours."
fig, ax = plt.subplots(figsize=(7, 3.6))
for name, stretch in stretches.items():
    colour, style = looks[name]
    ax.plot(np.arange(head_dim // 2), stretch, style, color=colour, linewidth=1.6, label=name)
ax.set_yscale("log", base=2)
ax.set_xlabel(r"pair index $i$ (0 = fastest rotation → 63 = slowest)")
ax.set_ylabel("stretch: new ÷ original wavelength")
ax.grid(True)
ax.legend(loc="lower right")
plt.show()

# %% [markdown]
# ## Your turn
#
# Try these before running the cell below, which answers them and checks the answers:
#
# 1. Under RoPE, show that the score of a query at 5 and a key at 2 equals the score
#    of the same vectors at 105 and 102.
# 2. ALiBi’s slopes for 6 heads: 6 is not a power of two, so the paper takes the
#    4-head ladder $2^{-2}, 2^{-4}, 2^{-6}, 2^{-8}$ and adds the first two of the
#    8-head ladder it lacks, $2^{-1}$ and $2^{-3}$. Compare with `alibi_slopes`.

# %%
inv_freq_8, _ = rope_frequencies(8)
q1, k1 = np.random.default_rng(3).standard_normal((2, 1, 8))


def rope_score(m, n):
    return float(apply_rope(q1, [m], inv_freq_8)[0] @ apply_rope(k1, [n], inv_freq_8)[0])


assert np.isclose(rope_score(5, 2), rope_score(105, 102))
print("score(5, 2) =", round(rope_score(5, 2), 6), "= score(105, 102)")
by_hand = 2.0 ** -np.array([2, 4, 6, 8, 1, 3])
assert np.allclose(alibi_slopes(6), by_hand)
print("slopes for 6 heads:", alibi_slopes(6))

# %% [markdown]
# ## Takeaways
#
# - RoPE’s score depends on the positions only through $m - n$, in both layouts, and
#   rotation leaves the vectors’ norms unchanged.
# - ALiBi needs no position vectors: one slope per head turns distance into a linear
#   penalty on the score.
# - T5 shares one learned bias among all offsets in a bucket, exact up close and
#   logarithmic far away, and flat from the distance printed above on — before
#   `max_distance` is reached.
# - Context-extension methods differ in *which* frequencies they lower: all of them
#   (interpolation), smoothly more for slow pairs (NTK-aware), or none of the fastest,
#   all of the slowest and a blended band in between that reaches pairs faster than
#   the context (YaRN, Llama 3;
#   [chapter 15](https://pe-explained.github.io/pe_explained/modern/context-extension.html) counts them).

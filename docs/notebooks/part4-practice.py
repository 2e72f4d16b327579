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
# # Part IV · Practice
#
# A companion notebook to Part IV of *Positional Encoding, Explained*
# ([conventions, side by side](https://pe-explained.github.io/pe_explained/practice/conventions.html),
# [choosing an encoding](https://pe-explained.github.io/pe_explained/practice/choosing.html)).
# It lines up the tables that different code bases call “the sinusoidal encoding”
# and the two layouts of RoPE, and measures how far apart they are.
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
    apply_rope,
    fairseq_positions,
    fairseq_sinusoidal,
    interleaved_to_halves_permutation,
    rope_frequencies,
    sinusoidal,
    tensor2tensor_timing_signal,
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
# ## 1. Four sinusoidal tables
#
# The same two positions in four conventions: the interleaved layout of
# [Vaswani et al. (2017)](https://pe-explained.github.io/pe_explained/appendix/bibliography.html#vaswani2017), the
# same numbers in split halves (all sines, then all cosines), tensor2tensor’s timing
# signal and fairseq’s table. All four tables are $d_{\text{model}} = 8$ columns wide.

# %%
d_model = 8
print("paper, interleaved\n", sinusoidal(2, d_model))
print("paper, halves\n", sinusoidal(2, d_model, layout="halves"))
print("tensor2tensor\n", tensor2tensor_timing_signal(2, d_model))
print("fairseq (row 1 is its padding row; the first token reads row 2)\n",
      fairseq_sinusoidal(3, d_model, padding_idx=1))

# %% [markdown]
# Two differences beyond the layout show up:
#
# - **Frequencies.** tensor2tensor and fairseq space the exponents with
#   $d_{\text{model}}/2 - 1$ in the denominator instead of $d_{\text{model}}/2$, so every pair but
#   the first turns more slowly. Recover each table’s frequencies from its row 1
#   with $\mathrm{atan2}(\sin\omega_i, \cos\omega_i) = \omega_i$ and compare.
# - **Offset.** fairseq gives the first token row `padding_idx + 1`, not row 0.

# %%
def frequencies_of(table):
    """omega_i back from row 1 of a [sin | cos] table: atan2(sin(omega), cos(omega))."""
    half = table.shape[1] // 2
    return np.arctan2(table[1, :half], table[1, half:])


d_model = 64
paper = frequencies_of(sinusoidal(2, d_model, layout="halves"))
t2t = frequencies_of(tensor2tensor_timing_signal(2, d_model))
print("pair 1 frequency, paper:", round(float(paper[1]), 6), " tensor2tensor:", round(float(t2t[1]), 6))
print("the last pair:          ", f"{paper[-1]:.3e}", "              ", f"{t2t[-1]:.3e}")
print("fairseq rows for 5 tokens and 2 padding tokens:",
      fairseq_positions(np.array([True] * 5 + [False] * 2), padding_idx=1))

# %% [markdown]
# How much does it matter? Give tokens 0–99 the vectors each convention assigns them
# (in the halves layout, so that only the frequencies and the offset differ) and
# measure, position by position, the largest difference from Vaswani et al.’s table
# (Figure 1).

# %% alt="Line plot of the largest absolute difference from Vaswani et al.'s sinusoidal table, per token position 0 to 99, for d_model = 64: tensor2tensor's table starts at 0 and grows to values of order one within tens of positions; fairseq's table, shifted by its padding offset, differs by order one from the first position on." caption="Largest difference from Vaswani et al.'s table at each position, for tensor2tensor's and fairseq's conventions (d_model = 64)."
num_tokens = 100
reference = sinusoidal(num_tokens, d_model, layout="halves")
rows = fairseq_positions(np.ones(num_tokens, dtype=bool), padding_idx=1)
received = {
    "tensor2tensor": tensor2tensor_timing_signal(num_tokens, d_model),
    "fairseq (rows from its padding offset on)": fairseq_sinusoidal(rows.max() + 1, d_model, padding_idx=1)[rows],
}
fig, ax = plt.subplots(figsize=(7, 3.2))
for name, table in received.items():
    ax.plot(np.arange(num_tokens), np.abs(table - reference).max(axis=1), label=name)
ax.set_xlabel("token position")
ax.set_ylabel("largest |difference| from Vaswani et al.")
ax.set_ylim(bottom=0)
ax.grid(True)
ax.legend(loc="lower right")
plt.show()

# %% [markdown]
# ## 2. RoPE: interleaved or halves
#
# RoFormer, GPT-J and Meta’s Llama code rotate dimensions $(2i, 2i + 1)$ together.
# GPT-NeoX and Hugging Face’s Llama code rotate $(i, i + d_k/2)$ together instead,
# where the head width $d_k$ is `head_dim` in the code. Many Hugging Face models share
# that Llama code’s `rotate_half` function. Many others keep the interleaved pairs, for
# example GPT-J (`rotate_every_two`), Command R, GLM and Helium (a `rotate_half` that
# takes `x[..., 0::2]` and `x[..., 1::2]`), Llama 4 and DeepSeek-V2 (complex
# multiplies) and DeepSeek-V3 (interleaved pairs rotated at run time).
# [Chapter 16](https://pe-explained.github.io/pe_explained/practice/conventions.html) gives
# the model types the library knows, and `python -m pe_explained inspect config.json`
# reports the pairing of any config. The same weights give different attention scores
# in the two layouts — unless the query and key dimensions are permuted head by head
# (each key head’s too, under grouped-query attention), which is what converting a
# checkpoint does (Figure 2).

# %%
head_dim, seq = 64, 16
inv_freq, _ = rope_frequencies(head_dim)
rng = np.random.default_rng(0)
q, k = rng.normal(size=(2, seq, head_dim))


def scores(q, k, layout):
    return apply_rope(q, seq, inv_freq, layout=layout) @ apply_rope(k, seq, inv_freq, layout=layout).T


perm = interleaved_to_halves_permutation(head_dim)
interleaved = scores(q, k, "interleaved")
print("max |difference|, same weights:    ", round(float(np.abs(interleaved - scores(q, k, "halves")).max()), 4))
print("max |difference|, permuted weights:", f"{np.abs(interleaved - scores(q[:, perm], k[:, perm], 'halves')).max():.1e}")

# %% alt="Three heatmaps of 16 by 16 RoPE attention scores for one random query and key matrix with head_dim = 64: the interleaved layout, the halves layout with the same weights, which looks different, and the halves layout with permuted weights, which is identical to the first." caption="RoPE scores of the same weights: interleaved, in halves, and in halves with the dimensions permuted (head_dim = 64)."
panels = {
    "interleaved": interleaved,
    "halves, same weights": scores(q, k, "halves"),
    "halves, permuted weights": scores(q[:, perm], k[:, perm], "halves"),
}
limit = max(np.abs(p).max() for p in panels.values())
fig, axes = plt.subplots(1, 3, figsize=(7.5, 2.9))
for ax, (name, panel) in zip(axes, panels.items()):
    image = ax.imshow(panel, cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    ax.set_title(name, fontsize=10)
    ax.set_xlabel("key position")
axes[0].set_ylabel("query position")
fig.colorbar(image, ax=axes, label=r"score $q \cdot k$", shrink=0.8)
plt.show()

# %% [markdown]
# ## Your turn
#
# A checkpoint stores one head’s $W_q$ and $W_k$ for the interleaved layout (one row
# per output dimension). Write the matrices a split-halves model needs, and check that
# the two models give the same scores. Try it before running the cell below, which
# answers it and checks the answer.

# %%
d_model, tokens = 32, np.arange(6)
x = rng.normal(size=(len(tokens), d_model))
w_q, w_k = rng.normal(size=(2, head_dim, d_model))


def head_scores(w_q, w_k, layout):
    q, k = x @ w_q.T, x @ w_k.T
    return apply_rope(q, tokens, inv_freq, layout=layout) @ apply_rope(
        k, tokens, inv_freq, layout=layout
    ).T


# the rows move as the dimensions do: the permutation of Figure 2
same = np.allclose(head_scores(w_q, w_k, "interleaved"), head_scores(w_q[perm], w_k[perm], "halves"))
assert same
print("interleaved W_q, W_k == halves W_q[perm], W_k[perm]:", same)

# %% [markdown]
# ## Takeaways
#
# - “The sinusoidal encoding” names several tables: check the layout, the exponent
#   denominator and the first position before loading weights trained with another.
# - The differences are not rounding noise: they reach the size of the values
#   themselves.
# - For RoPE, the two layouts agree only after permuting the query and key
#   dimensions, head by head; compare scores on a random input to be sure.

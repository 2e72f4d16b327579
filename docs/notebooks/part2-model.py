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
# # Part II · Position in the model
#
# A companion notebook to Part II of *Positional Encoding, Explained*
# ([the layer](https://pe-explained.github.io/pe_explained/model/layer.html),
# [learned embeddings](https://pe-explained.github.io/pe_explained/model/learned.html),
# [relative positions](https://pe-explained.github.io/pe_explained/model/relative.html)).
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
from matplotlib import patheffects

from pe_explained.layer import SinusoidalPositionalEncoding, TokenEmbedding, transformer_shapes
from pe_explained.learned import LearnedPositionalEmbedding, learned_parameter_count
from pe_explained.relative import relative_distances, shaw_attention, shaw_relative_index

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
# ## 1. The layer, shape by shape
#
# The model’s input is $\sqrt{d_{\text{model}}}\, E[\text{ids}] + PE[0 : L]$ (before dropout):
# token embeddings scaled up, plus one row of the position table per position. The
# table has no batch axis; broadcasting adds the same rows to every sequence of the
# batch.

# %%
batch, seq_len, d_model, vocab_size = 2, 6, 16, 100
token_ids = np.random.default_rng(0).integers(0, vocab_size, size=(batch, seq_len))

embed = TokenEmbedding(vocab_size, d_model, seed=0)
positions = SinusoidalPositionalEncoding(d_model, max_len=32)

tokens = embed(token_ids)
x = positions(tokens)  # adds the table's first seq_len rows (dropout only when training)
print("token ids      ", token_ids.shape)
print("embeddings     ", tokens.shape)
print("position table ", positions.table.shape, "-> rows used:", positions.encoding(seq_len).shape)
print("model input    ", x.shape)
print("same rows added to both sequences:", np.allclose(x - tokens, positions.encoding(seq_len)))

# %% [markdown]
# Further along, one encoder block of the original transformer
# ($d_{\text{model}} = 512$, 8 heads, a batch of 2 sequences of 10 tokens). The last
# shape is not part of that block, which has no relative bias: it is what ALiBi or T5
# would add to every layer’s scores instead of the position table.

# %%
shapes = transformer_shapes(2, 10, 512, 8)
for name, shape in shapes.items():
    if name != "relative bias":
        print(f"{name:<28} {shape}")
print(f"{'(ALiBi, T5) relative bias':<28} {shapes['relative bias']}")

# %% [markdown]
# A table has a fixed number of rows. Asking for a position past its last, $L_{\max} - 1$, is an
# error, not a silent wrap-around:

# %%
try:
    positions.encoding(40)
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# ## 2. Learned versus sinusoidal
#
# A learned table starts as random numbers and is trained with the model; it costs
# $L_{\max} \cdot d_{\text{model}}$ parameters:

# %%
for name, max_len, width in [("BERT base", 512, 768), ("GPT-2 small", 1024, 768)]:
    print(f"{name:<12} {max_len:>5} positions × {width} = {learned_parameter_count(max_len, width):,} parameters")

# %% [markdown]
# Compare the cosine similarity between the rows of the two tables (Figure 1). The sinusoidal
# rows are most alike for nearby positions (the band along the diagonal); the
# learned table at initialisation has no notion of nearness at all — any structure
# it ends up with must come from training.

# %% alt="Two heatmaps of the cosine similarity between the rows of a 64-position table with d_model = 64. Left, sinusoidal: a bright band along the diagonal that fades with the distance between positions. Right, learned at initialisation: a bright diagonal (each row with itself) and unstructured values near 0 everywhere else." caption="Cosine similarity between the rows of two 64-position tables (d_model = 64): sinusoidal, and learned at initialisation."
def cosine_similarity(table):
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ unit.T


num_positions, width = 64, 64
tables = {
    "sinusoidal": SinusoidalPositionalEncoding(width, max_len=num_positions).table,
    "learned, at initialisation": LearnedPositionalEmbedding(width, max_len=num_positions, seed=0).table,
}
fig, axes = plt.subplots(1, 2, figsize=(7, 3.4))
for ax, (name, table) in zip(axes, tables.items()):
    image = ax.imshow(cosine_similarity(table), cmap="RdBu_r", vmin=-1, vmax=1,
                      interpolation="nearest")
    ax.set_title(name)
    ax.set_xlabel("position")
    ax.set_ylabel("position")
fig.colorbar(image, ax=axes, label="cosine similarity", shrink=0.85)
plt.show()

# %% [markdown]
# ## 3. Relative positions (Shaw et al.)
#
# Instead of a vector per absolute position,
# [Shaw et al. (2018)](https://pe-explained.github.io/pe_explained/appendix/bibliography.html#shaw2018) learn a vector per *offset*
# $j - i$ between a query $i$ and a key $j$, clipped to $\pm k$. Every (query, key) pair
# reads one row of a table of $2k + 1$ vectors (Figure 2):

# %%
print("offsets j - i:")
print(relative_distances(6, 6))
print("row of the relative table used, clipped at k = 2:")
print(shaw_relative_index(6, 6, max_distance=2))

# %% alt="Heatmap of the Shaw relative index for 8 queries and 8 keys with clipping distance k = 3: each cell shows the row number 0 to 6 of the relative table it reads. Values are constant along every diagonal, rise from bottom-left to top-right and saturate at 0 and 6 beyond three positions." caption="The row of the relative table each query and key reads (Shaw et al., clipped at $k = 3$)."
k, n = 3, 8
index = shaw_relative_index(n, n, max_distance=k)
fig, ax = plt.subplots(figsize=(4.6, 3.8))
image = ax.imshow(index, cmap="viridis", interpolation="nearest")
for (i, j), row in np.ndenumerate(index):
    red, green, blue = np.asarray(image.cmap(image.norm(row)))[:3] ** 2.2  # about linear
    dark_cell = 0.2126 * red + 0.7152 * green + 0.0722 * blue < 0.18  # WCAG's crossover
    # outlined in the opposite colour: legible on any cell, and on the dark palette too
    text, edge = ("white", "black") if dark_cell else ("black", "white")
    ax.text(j, i, str(row), ha="center", va="center", fontsize=9, color=text,
            path_effects=[patheffects.withStroke(linewidth=2, foreground=edge)])
ax.set_xlabel(r"key position $j$")
ax.set_ylabel(r"query position $i$")
fig.colorbar(image, ax=ax, label=r"row of the relative table (offset + $k$)")
plt.show()

# %% [markdown]
# Plain attention without a causal mask only reorders its outputs when the tokens are
# swapped. With relative vectors added to the keys and values, the order matters: swap
# the first two tokens and the outputs change beyond a reordering.

# %%
rng = np.random.default_rng(0)
d_z = 8
x = rng.normal(size=(4, d_z))
w_q, w_k, w_v = rng.normal(size=(3, d_z, d_z)) / np.sqrt(d_z)
rel_k, rel_v = rng.normal(size=(2, 2 * k + 1, d_z))
zeros = np.zeros_like(rel_k)
swap = [1, 0, 2, 3]

for name, (a, b) in {"no relative vectors": (zeros, zeros), "Shaw et al.": (rel_k, rel_v)}.items():
    out = shaw_attention(x, w_q, w_k, w_v, a, b)
    out_swapped = shaw_attention(x[swap], w_q, w_k, w_v, a, b)
    print(f"{name:<20} outputs only reordered after a swap: {np.allclose(out_swapped, out[swap])}")

# %% [markdown]
# ## Your turn
#
# Try these before running the cell below, which answers them and checks the answers:
#
# 1. How many parameters does a learned position table need for 1,024 positions at
#    $d_{\text{model}} = 768$ (GPT-2 small), and for 131,072 positions at 4,096?
# 2. Shaw et al. clip the offset $j - i$ to $[-k, k]$ and shift it by $k$ to pick a
#    row of the table. With $k = 2$, which row does the query at position 4 use for
#    the key at 0, and for the key at 5? Compare with `shaw_relative_index`.

# %%
for max_len, width in ((1024, 768), (131072, 4096)):
    count = learned_parameter_count(max_len, width)
    assert count == max_len * width
    print(f"{max_len:>7} positions x {width}: {count:,} parameters")
rows = shaw_relative_index(6, 6, 2)
by_hand = {key: int(np.clip(key - 4, -2, 2) + 2) for key in (0, 5)}
assert all(rows[4, key] == row for key, row in by_hand.items())
print("query 4: key 0 uses row", by_hand[0], "and key 5 uses row", by_hand[5])

# %% [markdown]
# ## Takeaways
#
# - The layer adds one fixed row per position to scaled token embeddings; the table
#   is shared by the whole batch and ends at row $L_{\max} - 1$.
# - A learned table costs $L_{\max} \cdot d_{\text{model}}$ parameters and starts with no notion of
#   which positions are near each other; the sinusoidal one has it built in.
# - Shaw et al.’s relative scheme indexes a small table by the clipped offset
#   $j - i$, so only distances, never absolute positions, enter attention.

"""Chapter 8, where position enters: generated block diagrams with shapes from a config."""

from __future__ import annotations

from functools import lru_cache

from pe_explained.layer import transformer_shapes

from .. import Table, figure, table
from ..style import flow_column, new_figure

CONFIG = {"batch": 2, "seq_len": 10, "d_model": 512, "num_heads": 8}
SHAW_K = 4
CONFIG_TEXT = ", ".join(f"{k} = {v}" for k, v in CONFIG.items())


@lru_cache(maxsize=1)
def _shapes() -> dict[str, tuple[int, ...]]:
    return transformer_shapes(**CONFIG)


def _tuple(*dims: int) -> str:
    """A shape as Python prints it, never broken across lines: "(2, 10, 512)"."""
    return "(" + ",\u00a0".join(map(str, dims)) + ")"


def _shape(name: str) -> str:
    return _tuple(*_shapes()[name])


@table(
    "schemes",
    caption=f"Where each family of encodings acts, and the shape of what it adds or applies "
    f"({CONFIG_TEXT}; Shaw et al. with $k = {SHAW_K}$).",
)
def _():
    seq_len, d_model = CONFIG["seq_len"], CONFIG["d_model"]
    head_dim = _shapes()["queries, keys, values"][-1]
    rows = [
        ["sinusoidal, learned absolute", "added to the input", "once", _shape("position table")],
        [
            "Shaw et al. relative",
            "added to keys and values",
            "every layer",
            f"{_tuple(2 * SHAW_K + 1, head_dim)} table, "
            f"gathered to {_tuple(seq_len, seq_len, head_dim)}",
        ],
        [
            "Transformer-XL",
            "two extra logit terms",
            "every layer",
            f"{_tuple(seq_len, d_model)}: $R$ for offsets $i - j = 0, \\dots, {seq_len - 1}$",
        ],
        ["RoPE", "rotates $q$ and $k$", "every layer", f"angles {_tuple(seq_len, head_dim // 2)}"],
        ["ALiBi, T5 bias", "added to the logits", "every layer", _shape("relative bias")],
    ]
    return Table(["encoding", "acts on", "where", "shape"], rows)


def _flow_figure(theme, steps, height: float):
    """Boxes from top to bottom joined by arrows; ``steps`` = (label, shape, is_position)."""
    fig = new_figure(6.4, height)
    ax = fig.add_subplot()
    n = len(steps)
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.6, n - 0.4)
    ax.invert_yaxis()
    ax.axis("off")
    flow_column(
        ax, theme, [(label, is_position) for label, _, is_position in steps], 3.6, bold=True
    )
    for row, (_, shape, _) in enumerate(steps):
        ax.text(
            7.2,
            row,
            shape,
            ha="left",
            va="center",
            fontsize=8.5,
            color=theme.text,
            family="DejaVu Sans Mono",
        )
    ax.text(7.2, -0.75, "shape", ha="left", va="center", fontsize=8.5, color=theme.muted)
    return fig


@figure(
    "where_position_absolute",
    alt="Block diagram of one encoder layer with an absolute encoding: token ids, embedding "
    "times square root of d_model, plus the positional table, dropout, multi-head attention, "
    "add and norm, feed-forward, add and norm; position enters once, before the first layer, "
    f"and every box is labelled with its array shape for {CONFIG_TEXT}.",
    caption=f"An absolute encoding enters once, at the bottom of the stack ({CONFIG_TEXT}; "
    "head_dim = d_model / num_heads).",
)
def _(theme):
    steps = [
        ("token ids", _shape("token ids"), False),
        (r"embedding lookup $\times \sqrt{d_{\text{model}}}$", _shape("token embeddings"), False),
        ("+ positional table $PE[0 : L]$", _shape("position table"), True),
        ("dropout", _shape("model input"), False),
        ("$Q$, $K$, $V$ per head", _shape("queries, keys, values"), False),
        (r"$\mathrm{softmax}(Q K^\top / \sqrt{d_k})$", _shape("attention scores"), False),
        ("attention output, add & norm", _shape("attention output"), False),
        ("feed-forward (hidden)", _shape("feed-forward hidden"), False),
        ("add & norm → next layer", _shape("block output"), False),
    ]
    return _flow_figure(theme, steps, 5.6)


@figure(
    "where_position_inside_attention",
    alt="Block diagram of a layer for relative schemes: the model input has no positional "
    "table added; inside attention, RoPE rotates the queries and keys by their positions, "
    "and ALiBi or the T5 bias add a bias of shape num_heads by seq_len by seq_len to the "
    "attention logits before the softmax (logits divided by the square root of head_dim, "
    "except in T5, which leaves them unscaled); these boxes are highlighted and labelled "
    "with shapes.",
    caption=f"Relative schemes act inside attention, in every layer ({CONFIG_TEXT}): RoPE "
    "rotates $Q$ and $K$; ALiBi and the T5 bias add a per-head bias to the logits.",
)
def _(theme):
    steps = [
        ("embedding lookup (no PE added)", _shape("model input"), False),
        ("$Q$, $K$, $V$ per head", _shape("queries, keys, values"), False),
        ("RoPE: rotate $Q$ and $K$ by position", _shape("queries, keys, values"), True),
        (
            r"logits $Q K^\top / \sqrt{d_k}$ (T5: $Q K^\top$, unscaled)",
            _shape("attention scores"),
            False,
        ),
        ("ALiBi / T5: + bias $b_{h,i,j}$", _shape("relative bias"), True),
        ("softmax, weights × $V$, heads joined", _shape("attention output"), False),
        ("add & norm, feed-forward, …", _shape("block output"), False),
    ]
    return _flow_figure(theme, steps, 4.4)

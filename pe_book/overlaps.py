"""Where a figure's words cover its data or each other.

A label, a legend or a reference line's name drawn over a curve hides both; a leader
that runs through another label reads as a strike-through. :func:`overlaps` lists
every such place in a drawn figure, in words a reader would use, so that a test can
hold every figure of the book, in both layouts, to "no text over data, no text over
text".

What counts as data: the segments of every drawn line (reference lines included: a
name drawn through its own line is no easier to read), line markers, scatter points,
the segments of line collections, and bars. Images (heatmaps, whose cells may carry
their values on purpose) and shaded spans (which a label names from inside) do not.
What counts as text: everything visible that has words, with its own box (an
annotation's leader is checked on its own, against the other texts), and every legend.
Boxes are shrunk by :data:`SLACK` pixels, so that text merely touching a line counts.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

__all__ = ["SLACK", "data_under", "overlaps", "segments_cross_box"]

#: Pixels by which every box is shrunk before it is tested: contact is not overlap.
SLACK = 1.0

_NO_LINE = ("None", "none", "", " ")


def segments_cross_box(starts: np.ndarray, ends: np.ndarray, box) -> np.ndarray:
    """For each segment from ``starts[k]`` to ``ends[k]`` (display coordinates, shape
    ``(n, 2)``), whether it meets the rectangle ``box = (x0, y0, x1, y1)``.

    A segment meets it when their bounding boxes overlap and the rectangle's corners
    are not all on one side of the segment's line.

    >>> bool(segments_cross_box(np.array([[0.0, 0.0]]), np.array([[4.0, 4.0]]), (1, 0, 2, 3))[0])
    True
    >>> bool(segments_cross_box(np.array([[0.0, 3.0]]), np.array([[1.0, 4.0]]), (1, 0, 2, 2))[0])
    False
    """
    x0, y0, x1, y1 = box
    low, high = np.minimum(starts, ends), np.maximum(starts, ends)
    boxes_meet = (high[:, 0] >= x0) & (low[:, 0] <= x1) & (high[:, 1] >= y0) & (low[:, 1] <= y1)
    d = ends - starts
    corners = np.array([[x0, y0], [x0, y1], [x1, y0], [x1, y1]], dtype=float)
    side = d[:, None, 0] * (corners[None, :, 1] - starts[:, None, 1]) - d[:, None, 1] * (
        corners[None, :, 0] - starts[:, None, 0]
    )
    return boxes_meet & (side.min(axis=1) <= 0) & (side.max(axis=1) >= 0)


_KINDS = {"Line2D": "line", "PathCollection": "points", "LineCollection": "lines"}


def _name(artist) -> str:
    kind = _KINDS.get(type(artist).__name__, "bars")
    label = str(artist.get_label())
    return f"unlabelled {kind}" if label.startswith("_") else f"{kind} {label!r}"


def _data(ax) -> Iterator[tuple[str, str, np.ndarray | Bbox]]:
    """``(name, kind, shape)`` for every piece of data of ``ax``, in display coordinates:
    kind "segments" (an ``(n, 2)`` polyline), "points" or "box"."""
    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(line.get_xydata())
        xy = xy[np.isfinite(xy).all(axis=1)]
        if line.get_linestyle() not in _NO_LINE and len(xy) > 1:
            yield _name(line), "segments", xy
        if line.get_marker() not in _NO_LINE and len(xy):
            yield _name(line), "points", xy
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        if isinstance(collection, PathCollection):
            offsets = collection.get_offset_transform().transform(collection.get_offsets())
            yield _name(collection), "points", offsets
        elif isinstance(collection, LineCollection):
            transform = collection.get_transform()
            for segment in collection.get_segments():
                if len(segment) > 1:
                    yield _name(collection), "segments", transform.transform(segment)
    for container in ax.containers:  # bars; a shaded span is a lone patch, not data
        for patch in container:
            if hasattr(patch, "get_window_extent") and patch.get_visible():
                yield _name(container), "box", patch.get_window_extent()


def _shrunk(box: Bbox):
    return (box.x0 + SLACK, box.y0 + SLACK, box.x1 - SLACK, box.y1 - SLACK)


def _covers(box, kind: str, shape) -> bool:
    x0, y0, x1, y1 = box
    if x0 >= x1 or y0 >= y1:
        return False
    if kind == "segments":
        return bool(segments_cross_box(shape[:-1], shape[1:], box).any())
    if kind == "points":
        inside = (shape[:, 0] >= x0) & (shape[:, 0] <= x1)
        return bool((inside & (shape[:, 1] >= y0) & (shape[:, 1] <= y1)).any())
    return shape.x0 < x1 and shape.x1 > x0 and shape.y0 < y1 and shape.y1 > y0


def _words(text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def _text_box(text, renderer) -> Bbox:
    # the text's own box: an annotation's extent would take in its leader as well
    return Text.get_window_extent(text, renderer)


def _tick_labels(axis) -> Iterator:
    """The tick labels ``axis`` draws: those of ticks inside its view."""
    low, high = sorted(axis.get_view_interval())
    room = 1e-9 * (high - low)
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if low - room <= tick.get_loc() <= high + room:
            yield from (t for t in (tick.label1, tick.label2) if _words(t))


def _texts(fig: Figure) -> list:
    """Every text of ``fig`` a reader sees, legends' entries aside."""
    texts = [t for t in fig.texts if _words(t)]
    if fig._suptitle is not None and _words(fig._suptitle):
        texts.append(fig._suptitle)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [t for t in ax.texts if _words(t)]
        texts += [t for t in (ax.title, ax._left_title, ax._right_title) if _words(t)]
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_visible():
                    texts += list(_tick_labels(axis))
                    if _words(axis.label):
                        texts.append(axis.label)
    return texts


def _legends(fig: Figure) -> list:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_visible()] + list(fig.legends)
    return [legend for legend in legends if legend is not None and legend.get_visible()]


def data_under(box: Bbox, ax, shapes: list | None = None) -> list[str]:
    """The names of the data of ``ax`` (as last drawn) that ``box`` covers inside it.
    ``shapes``: the axes' data as :func:`_data` gives it, when the caller has it."""
    inside = Bbox.intersection(box, ax.get_window_extent())
    if inside is None or not ax.get_visible() or not ax.axison:
        return []
    shrunk = _shrunk(inside)
    shapes = _data(ax) if shapes is None else shapes
    return list(dict.fromkeys(what for what, kind, shape in shapes if _covers(shrunk, kind, shape)))


def overlaps(fig: Figure) -> list[str]:
    """Every place where text of ``fig`` covers its data or other text, or is cut
    off by the figure's edge, as drawn.

    Lays the figure out first. Each entry reads like "'loss floor' over line 'NoPE'"
    or "leader of 'xPos' through 'loss floor'"; an empty list means none.
    """
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    with warnings.catch_warnings():  # a figure that does not fit is another test's business
        warnings.simplefilter("ignore", UserWarning)
        fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    texts = _texts(fig)
    boxes = [_text_box(t, renderer) for t in texts]
    names = [repr(t.get_text()[:40]) for t in texts]
    legends = _legends(fig)
    for legend in legends:
        boxes.append(legend.get_window_extent(renderer))
        entries = ", ".join(t.get_text() for t in legend.get_texts())
        names.append(f"the legend ({entries[:40]})")
        texts.append(legend)
    found = []
    # text the figure's edge cuts off (a saved figure is clipped to its own box)
    page = fig.bbox
    for name, box in zip(names, boxes, strict=True):
        if (
            box.x0 < page.x0 - SLACK
            or box.x1 > page.x1 + SLACK
            or box.y0 < page.y0 - SLACK
            or (box.y1 > page.y1 + SLACK)
        ):
            found.append(f"{name} cut off by the figure's edge")
    # text over data, within each axes (outside it, no data is drawn)
    for ax in fig.axes:
        shapes = list(_data(ax))  # once per axes, not once per text
        for name, box in zip(names, boxes, strict=True):
            found += [f"{name} over {what}" for what in data_under(box, ax, shapes)]
    # text over text, and leaders through other texts
    for i in range(len(texts)):
        shrunk = _shrunk(boxes[i])
        for j in range(i + 1, len(texts)):
            if _covers(shrunk, "box", boxes[j]):
                found.append(f"{names[i]} over {names[j]}")
        leader = getattr(texts[i], "arrow_patch", None)
        if leader is None or not leader.get_visible():
            continue
        path = leader.get_transform().transform_path(leader.get_path()).vertices
        for j, box in enumerate(boxes):
            if j != i and _covers(_shrunk(box), "segments", path):
                found.append(f"leader of {names[i]} through {names[j]}")
    return sorted(set(found), key=found.index)

"""Remapped positions for a trained RoPE model: Self-Extend, ReRoPE, Dual Chunk Attention.

None of them can be written as one rotation per token: each scores a (query, key) pair
with the positions of one of a few *passes*, chosen by where the pair lies. A pass is
``(query_positions, key_positions, region)``: the pair ``(i, j)`` in ``region`` sees the
distance ``query_positions[i] − key_positions[j]``. ``TinyDecoder.remap`` takes any of the
classes below; ``tests/test_experiments.py`` checks that the distances the passes give
are the library's (``pe_explained.self_extend_distances``, ``rerope_distances``,
``dual_chunk_distances``), so the model attends with exactly what the library (and
chapter 25) describes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import pe_explained as pe


def _offsets(length: int) -> np.ndarray:
    """``i − j`` for every query ``i`` and key ``j`` of ``length`` tokens."""
    index = np.arange(length)
    return index[:, None] - index[None, :]


@dataclass(frozen=True)
class SelfExtend:
    """Self-Extend (Jin et al., 2024), the authors' convention (``convention="longlm"``).

    Keys closer than ``window`` keep their distance; farther ones are seen through
    grouped positions, query ``i // G + w − w / G`` and key ``j // G``.
    """

    group_size: int
    window: int

    def passes(self, length: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The exact pass inside the window and the grouped pass beyond it."""
        index = np.arange(length, dtype=np.float64)
        d = _offsets(length)
        g, w = self.group_size, self.window
        grouped_query = index // g + (w - w / g)
        return [
            (index, index, (d >= 0) & (d < w)),
            (grouped_query, index // g, d >= w),
        ]

    def distances(self, length: int) -> np.ndarray:
        """The library's distance matrix for these settings."""
        return pe.self_extend_distances(length, self.group_size, self.window)


@dataclass(frozen=True)
class ReRoPE:
    """ReRoPE (Su, 2023): distances below ``window`` exact, every farther one ``window``."""

    window: int

    def passes(self, length: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The exact pass inside the window and one at distance ``window`` beyond it."""
        index = np.arange(length, dtype=np.float64)
        d = _offsets(length)
        capped = np.full(length, float(self.window))
        return [(index, index, (d >= 0) & (d < self.window)), (capped, 0 * index, d >= self.window)]

    def distances(self, length: int) -> np.ndarray:
        """The library's distance matrix for these settings."""
        return pe.rerope_distances(length, self.window)


@dataclass(frozen=True)
class DualChunk:
    """Dual Chunk Attention (An et al., 2024) as vLLM and ChunkLlama compute it: positions
    from ``pe_explained.dual_chunk_position_ids``; chunks of ``chunk_size − local_size``."""

    chunk_size: int
    local_size: int

    def passes(self, length: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Intra-chunk, successive-chunk and inter-chunk passes."""
        ids = pe.dual_chunk_position_ids(length, self.chunk_size, self.local_size)
        chunk = np.arange(length) // (self.chunk_size - self.local_size)
        apart = chunk[:, None] - chunk[None, :]
        causal = _offsets(length) >= 0
        key = ids["key"].astype(np.float64)
        return [
            (ids["intra"].astype(np.float64), key, causal & (apart == 0)),
            (ids["successive"].astype(np.float64), key, causal & (apart == 1)),
            (ids["inter"].astype(np.float64), key, causal & (apart >= 2)),
        ]

    def distances(self, length: int) -> np.ndarray:
        """The library's distance matrix for these settings."""
        return pe.dual_chunk_distances(length, self.chunk_size, self.local_size)


def implied_distances(remap, length: int) -> np.ndarray:
    """The distance matrix the passes of ``remap`` give (0 outside every region), and a
    check that the regions cover the causal triangle once."""
    out = np.zeros((length, length))
    covered = np.zeros((length, length), dtype=int)
    for query, key, region in remap.passes(length):
        out = np.where(region, query[:, None] - key[None, :], out)
        covered += region
    if not (covered == (_offsets(length) >= 0)).all():
        raise AssertionError("the passes' regions must cover each causal pair exactly once")
    return out

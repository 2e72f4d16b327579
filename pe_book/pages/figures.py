"""A figure on its page: the ``<figure>`` the ``{{ figure: … }}`` shortcode writes,
with a light and a dark drawing, each with its phone variant, and a numbered caption."""

from __future__ import annotations

import html

from .. import FIGURES
from ..render import variant_name
from ..text import caption_html
from .base import FIGURE_DIR, Cached, anchor, computed_now, relative

__all__ = ["PHONE_MEDIA", "figure_markdown"]

#: Below this viewport width (CSS px) pages show each figure's phone variant.
PHONE_MEDIA = "(max-width: 600px)"


def figure_markdown(
    name: str,
    page: str,
    sizes: dict[tuple[str, str], tuple[int, int]],
    number: str = "",
    cached: Cached = computed_now,
) -> str:
    """A numbered ``<figure>``: per palette a ``<picture>`` whose phone variant (narrower,
    larger text) replaces the wide one below :data:`PHONE_MEDIA`, and a caption with a
    link to the full-size drawing. ``cached(key, compute)`` gives the alt text and the
    caption (:class:`pe_book.build_cache.BuildCache`); without it they are computed now."""
    spec = FIGURES[name]
    width, height = sizes[(name, "wide")]
    phone_width, phone_height = sizes[(name, "phone")]
    alt = html.escape(cached(f"alt:{name}", lambda: spec.alt).replace("\n", " "), quote=True)
    pictures = []
    for theme in ("light", "dark"):
        wide = relative(f"{FIGURE_DIR}/{variant_name(name, theme)}.svg", page)
        phone = relative(f"{FIGURE_DIR}/{variant_name(name, theme, 'phone')}.svg", page)
        pictures.append(
            f'<picture><source media="{PHONE_MEDIA}" srcset="{phone}" '
            f'width="{phone_width}" height="{phone_height}">'
            f'<img src="{wide}#only-{theme}" alt="{alt}" width="{width}" height="{height}" '
            f'loading="lazy"></picture>'
        )
    full = relative(f"{FIGURE_DIR}/{variant_name(name, 'light')}.svg", page)
    link = f' <a class="figure-full" href="{full}">Open full size</a>'
    caption_text = cached(f"caption:{name}", lambda: spec.caption)
    caption = f"\n  <figcaption>{caption_html(number, caption_text)}{link}</figcaption>"
    return (
        f'<figure id="{anchor("figure", name)}">\n  '
        + "\n  ".join(pictures)
        + caption
        + "\n</figure>"
    )

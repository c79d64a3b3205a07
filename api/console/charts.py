"""Small charts drawn on the server as inline SVG (no JavaScript, no build): a horizontal bar
per row, its segments stacked, each row a link to the list it counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from markupsafe import Markup

# Segment colours by what they mean (the console's badge colours).
COLOURS = {
    "ok": "#2f8f5b",
    "warn": "#c98a12",
    "bad": "#c8473b",
    "info": "#3d6fb6",
    "muted": "#9aa5b1",
}
ROW = 22
LABEL = 170
VALUE = 150


@dataclass
class Segment:
    name: str
    value: float
    tone: str = "info"


@dataclass
class Bar:
    label: str
    href: str
    segments: list[Segment] = field(default_factory=list)
    note: str = ""

    @property
    def total(self) -> float:
        return sum(s.value for s in self.segments)


def bars(rows: list[Bar], width: int = 560, title: str = "") -> Markup:
    """An SVG of one stacked bar per row, scaled to the largest row; empty rows still show."""
    if not rows:
        return Markup('<p class="empty chart-empty">Nothing in this window.</p>')
    scale_width = width - LABEL - VALUE
    largest = max((r.total for r in rows), default=0) or 1
    height = ROW * len(rows) + 4
    parts = [
        f'<svg class=chart role=img viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" aria-label="{escape(title)}">'
    ]
    for i, row in enumerate(rows):
        y = i * ROW + 2
        parts.append(f'<a href="{escape(row.href)}"><g class=bar>')
        parts.append(f"<title>{escape(_tooltip(row))}</title>")
        parts.append(
            f'<text x="0" y="{y + 15}" font-size="12">{escape(_short(row.label, 26))}</text>'
        )
        x = float(LABEL)
        for seg in row.segments:
            if seg.value <= 0:
                continue
            w = max(1.0, seg.value / largest * scale_width)
            colour = COLOURS.get(seg.tone, COLOURS["info"])
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{ROW - 6}" '
                f'fill="{colour}" rx="2"/>'
            )
            x += w
        shown = row.note or _number(row.total)
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}" font-size="12">{escape(shown)}</text>')
        parts.append("</g></a>")
    parts.append("</svg>")
    return Markup("".join(parts))


def legend(*pairs: tuple[str, str]) -> Markup:
    """Swatches for (name, tone) pairs."""
    items = "".join(
        f'<span class=swatch style="background:{COLOURS.get(tone, COLOURS["info"])}"></span>'
        f"{escape(name)} "
        for name, tone in pairs
    )
    return Markup(f"<p class=legend>{items}</p>")


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tooltip(row: Bar) -> str:
    detail = ", ".join(f"{s.name}: {_number(s.value)}" for s in row.segments)
    return f"{row.label} — {detail}" if detail else row.label

"""The agent's loop as an inline SVG: each group of a map is a stage, each decision a link.

The stages are the map's groups in the order ``map.yaml`` lists them: the first is where a run
starts, the last where it ends, and those between are the loop every turn goes round (for pi:
start → next step → permission → running tools → memory → back to the next step, and the run
ends from there). Each decision is a tile in its stage, a link to the decision's page. Who decides
is told by the tile's colour and, for readers who do not tell those colours apart (WCAG 1.4.1), by
its shape too: square corners for plain code, round ends for an AI model, pointed ends for a
person. A small mark at the corner, in the same shape and colour, stands for each holder who can
overrule it. The legend shows each shape.

Two drawings are written, and CSS shows one: a wide one (the loop as a ring, for a screen of
720 px or more) and a narrow one (the stages stacked, legible at 390 px). Both are plain SVG:
no script, no font or library from another host; colours come from the site's CSS variables, so
the dark scheme applies. The text alternative is the figure's caption, each stage's label and
each link's name; the at-a-glance table carries the same facts as text. A skip link before the
drawings takes a keyboard past its links, to the caption.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Callable, Mapping

from .. import prose
from .views import WHO_PHRASE, WHO_SHORT, Card, GroupView, overrule_actions

# sizes in SVG units, which CSS draws at most 1:1 in pixels
_CHIP = {"wide": (46, 28, 6, 4), "narrow": (40, 28, 5, 6)}  # width, height, gap, columns
_PAD, _HEAD = 12, 46  # inside a stage's box: padding, and the height of its label
_GAP_X, _GAP_Y = 52, 64  # between boxes (room for arrows and their labels)
_NARROW_WIDTH, _NARROW_MARGIN, _NARROW_GAP = 360, 26, 30


@dataclass(frozen=True)
class Focus:
    """How an extension touches a decision, for the per-extension drawing."""

    kind: str  # "changed" (it moves the decision) or "related" (it adds a decision next to it)
    who: str | None  # who decides with the extension, for "changed"
    overrides: tuple[str, ...] = ()  # who can overrule, with the extension


@dataclass(frozen=True)
class _Box:
    group: GroupView
    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def right(self) -> float:
        return self.x + self.w


def loop_diagram(groups: tuple[GroupView, ...], href: Callable[[Card], str], *, name: str,
                 caption: str, table: str | None = None, focus: Mapping[str, Focus] | None = None) -> str:
    """The figure: both drawings and the caption (HTML, every text escaped).

    ``href`` gives a decision's page from the page the figure is on (a ``.md`` path); ``name``
    tells figures on one page apart (it prefixes their ids); ``table`` is where the same
    decisions are listed as text; ``focus`` draws the per-extension variant."""
    groups = tuple(g for g in groups if g.cards)
    if not groups:
        return ""
    ring = len(groups) >= 3
    caption_id = f"dm-loop-{name}-caption"
    label = f"The {'loop' if ring else 'stages'} with each decision in its place"
    drawings = [_svg(groups, href, focus, "narrow", caption_id, label)]
    if ring:
        drawings.insert(0, _svg(groups, href, focus, "wide", caption_id, label))
    classes = "dm-loop" + (" dm-loop--ring" if ring else "") + (" dm-loop--focus" if focus else "")
    links = sum(len(g.cards) for g in groups)
    skip = (f'<a class="dm-skip" href="#{_e(caption_id)}">Skip the drawing\u2019s {links} '
            f'link{"s" if links != 1 else ""}</a>')
    return (f'<figure class="{classes}" id="dm-loop-{_e(name)}" data-search-exclude>\n{skip}\n'
            + "\n".join(drawings) + "\n"
            + f'<figcaption id="{_e(caption_id)}">{caption}{_legend(focus)}'
            + (f' <a href="{html.escape(table)}">The same decisions as a table</a>.' if table else "")
            + "</figcaption>\n</figure>")


def _legend(focus: Mapping[str, Focus] | None) -> str:
    keys = [f'<span class="dm-key">{_swatch(w, 24, 15)}{_e(WHO_SHORT[w])}: {_e(_SHAPE_WORDS[w])}</span>'
            for w in ("code", "model", "person")]
    marks = " ".join(_swatch(w, 11, 11, mark=True) for w in ("code", "model", "person"))
    keys.append(f'<span class="dm-key">{marks} a small mark at a tile\u2019s corner: who else can overrule it '
                "(the mark has that holder\u2019s shape and colour)</span>")
    if focus:
        keys.append('<span class="dm-key"><span class="dm-swatch dm-swatch--faded" aria-hidden="true"></span>'
                    "not changed by it</span>")
        keys.append('<span class="dm-key"><span class="dm-swatch dm-swatch--related" aria-hidden="true"></span>'
                    "it adds a decision next to this one</span>")
    return ' <span class="dm-legend">' + " ".join(keys) + "</span>"


_SHAPE_WORDS = {"code": "square corners", "model": "round ends", "person": "pointed ends"}


def _swatch(who: str, w: float, h: float, mark: bool = False) -> str:
    """A holder's shape, small, for the legend (drawn as in the figure, so the two match)."""
    shape = _mark(who, w / 2, h / 2, w * 0.36) if mark else _shape(who, 0.5, 0.5, w - 1, h - 1)
    return (f'<svg class="dm-swatch dm-swatch--{_e(who)}" width="{w:g}" height="{h:g}" viewBox="0 0 {w:g} {h:g}" '
            f'aria-hidden="true" focusable="false">{shape}</svg>')


def _shape(who: str, x: float, y: float, w: float, h: float) -> str:
    """A decision's tile, shaped by who decides: square corners (plain code), round ends (an AI
    model), pointed ends (a person); a tile of anyone else has softly rounded corners."""
    if who == "code":
        return f'<rect class="dm-shape dm-shape--code" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="1"/>'
    if who == "model":
        return (f'<rect class="dm-shape dm-shape--model" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                f'rx="{h / 2:g}"/>')
    if who == "person":
        tip = min(7.0, h / 2)
        points = [(x, y + h / 2), (x + tip, y), (x + w - tip, y), (x + w, y + h / 2), (x + w - tip, y + h),
                  (x + tip, y + h)]
        return (f'<polygon class="dm-shape dm-shape--person" '
                f'points="{" ".join(f"{px:g},{py:g}" for px, py in points)}"/>')
    return f'<rect class="dm-shape dm-shape--{_e(who)}" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="5"/>'


def _mark(who: str, cx: float, cy: float, r: float) -> str:
    """The small mark of a holder who can overrule: a square, a circle or a diamond."""
    if who == "code":
        side = r * 1.7
        return (f'<rect class="dm-dot dm-dot--code" x="{cx - side / 2:g}" y="{cy - side / 2:g}" '
                f'width="{side:g}" height="{side:g}"/>')
    if who == "person":
        d = r * 1.3
        return (f'<polygon class="dm-dot dm-dot--person" '
                f'points="{cx:g},{cy - d:g} {cx + d:g},{cy:g} {cx:g},{cy + d:g} {cx - d:g},{cy:g}"/>')
    return f'<circle class="dm-dot dm-dot--{_e(who)}" cx="{cx:g}" cy="{cy:g}" r="{r:g}"/>'


# --- the two drawings ---------------------------------------------------------------------------


def _svg(groups: tuple[GroupView, ...], href, focus, kind: str, caption_id: str, label: str) -> str:
    boxes = _wide_boxes(groups) if kind == "wide" else _narrow_boxes(groups)
    width = max(b.right for b in boxes) + (_NARROW_MARGIN if kind == "narrow" else 2)
    height = max(b.bottom for b in boxes) + 4
    parts = [f'<svg class="dm-loop__svg dm-loop__svg--{kind}" viewBox="0 0 {width:g} {height:g}" '
             f'width="{width:g}" height="{height:g}" role="group" aria-label="{_e(label)}" '
             f'aria-describedby="{_e(caption_id)}" xmlns="http://www.w3.org/2000/svg">']
    parts.append(_arrows(boxes, kind) if len(boxes) >= 3 else _chain(boxes))
    for number, box in enumerate(boxes, 1):
        parts.append(_stage(box, number, len(boxes), href, focus, kind))
    parts.append("</svg>")
    return "".join(parts)


def _box_size(group: GroupView, kind: str) -> tuple[float, float]:
    width, height, gap, columns = _CHIP[kind]
    rows = max(1, math.ceil(len(group.cards) / columns))
    inner = columns * width + (columns - 1) * gap
    if kind == "narrow":
        inner = _NARROW_WIDTH - 2 * _NARROW_MARGIN - 2 * _PAD
    return inner + 2 * _PAD, _HEAD + rows * (height + gap) - gap + _PAD


def _wide_boxes(groups: tuple[GroupView, ...]) -> list[_Box]:
    """Start top left, the loop as a ring to its right (top row left to right, bottom row right to
    left), the end bottom left: the run comes out of the loop's first stage."""
    start, loop, end = groups[0], groups[1:-1], groups[-1]
    half = math.ceil(len(loop) / 2)
    top = [start, *loop[:half]]
    bottom = {half - i: g for i, g in enumerate(loop[half:])}  # column -> stage, right to left
    bottom[0] = end
    width = _box_size(start, "wide")[0]
    top_h = max(_box_size(g, "wide")[1] for g in top)
    bottom_h = max(_box_size(g, "wide")[1] for g in bottom.values())
    boxes = [_Box(g, 2 + i * (width + _GAP_X), 2, width, top_h) for i, g in enumerate(top)]
    y = 2 + top_h + _GAP_Y
    order = {g.id: i for i, g in enumerate(groups)}
    boxes += [_Box(g, 2 + col * (width + _GAP_X), y, width, bottom_h) for col, g in bottom.items()]
    return sorted(boxes, key=lambda b: order[b.group.id])


def _narrow_boxes(groups: tuple[GroupView, ...]) -> list[_Box]:
    """The stages stacked, the loop drawn beside them."""
    boxes, y = [], 2
    for g in groups:
        w, h = _box_size(g, "narrow")
        boxes.append(_Box(g, _NARROW_MARGIN, y, w, h))
        y += h + _NARROW_GAP
    return boxes


def _arrows(boxes: list[_Box], kind: str) -> str:
    """The way a run goes: into the loop, round it every turn, and out of it at the end."""
    start, loop, end = boxes[0], boxes[1:-1], boxes[-1]
    first, last = loop[0], loop[-1]
    lines = []
    if kind == "wide":
        sequence = [start, *loop]
        for a, b in zip(sequence, sequence[1:]):
            lines.append(_connect(a, b))
        if len(loop) > 1:
            lines.append(_connect(last, first, label="each turn", side="return"))
        # out of the loop: from the first loop stage down to the end, bottom left
        x1, y1 = first.x + 18, first.bottom
        x2, y2 = end.right - 18, end.y
        lines.append(_line([(x1, y1), (x2, y2)], "dm-loop__exit"))
        lines.append(_text((x1 + x2) / 2 - 6, (y1 + y2) / 2 + 4, "the run ends", "end"))
    else:
        for a, b in zip(boxes[:-2], boxes[1:-1]):  # straight down through the loop
            lines.append(_line([(a.cx, a.bottom), (b.cx, b.y)], "dm-loop__flow"))
        right = _NARROW_WIDTH - 10
        if len(loop) > 1:
            lines.append(_line([(last.right, last.cy), (right, last.cy), (right, first.cy + 8),
                                (first.right, first.cy + 8)], "dm-loop__return"))
            lines.append(_text(right - 5, (first.cy + last.cy) / 2, "each turn", "middle", rotate=-90))
        left = 10
        lines.append(_line([(first.x, first.cy + 8), (left, first.cy + 8), (left, end.cy), (end.x, end.cy)],
                           "dm-loop__exit"))
        lines.append(_text(left + 13, (first.cy + end.cy) / 2, "the run ends", "middle", rotate=-90))
    return '<g class="dm-loop__arrows" aria-hidden="true">' + "".join(lines) + "</g>"


def _chain(boxes: list[_Box]) -> str:
    lines = [_line([(a.cx, a.bottom), (b.cx, b.y)], "dm-loop__flow") for a, b in zip(boxes, boxes[1:])]
    return '<g class="dm-loop__arrows" aria-hidden="true">' + "".join(lines) + "</g>"


def _connect(a: _Box, b: _Box, label: str = "", side: str = "") -> str:
    """An arrow between two boxes, from the side of ``a`` that faces ``b``."""
    if abs(a.y - b.y) < 1:  # same row
        y = a.y + _HEAD / 2  # level with the stages' labels, clear of their squares
        if a.x < b.x:
            points = [(a.right, y), (b.x, y)]
        else:
            points = [(a.x, y), (b.right, y)]
    elif abs(a.x - b.x) < 1:  # same column
        points = [(a.cx, a.bottom), (b.cx, b.y)] if a.y < b.y else [(a.cx, a.y), (b.cx, b.bottom)]
    else:
        points = [(a.cx, a.y if a.y > b.y else a.bottom), (b.cx, b.bottom if a.y > b.y else b.y)]
    out = _line(points, "dm-loop__return" if side == "return" else "dm-loop__flow")
    if label:
        (x1, y1), (x2, y2) = points[0], points[-1]
        out += _text((x1 + x2) / 2 + 8, (y1 + y2) / 2 + 4, label, "start")
    return out


def _line(points: list[tuple[float, float]], css: str) -> str:
    path = " ".join(f"{x:g},{y:g}" for x, y in points)
    return f'<polyline class="{css}" points="{path}"/>' + _head(points[-2], points[-1], css)


def _head(a: tuple[float, float], b: tuple[float, float], css: str) -> str:
    """An arrowhead at ``b`` pointing away from ``a`` (no <marker>: its id would repeat per figure)."""
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    size = 8
    left = (b[0] - size * math.cos(angle - 0.45), b[1] - size * math.sin(angle - 0.45))
    right = (b[0] - size * math.cos(angle + 0.45), b[1] - size * math.sin(angle + 0.45))
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (b, left, right))
    return f'<polygon class="{css}-head" points="{path}"/>'


def _text(x: float, y: float, words: str, anchor: str, rotate: int = 0) -> str:
    turn = f' transform="rotate({rotate} {x:g} {y:g})"' if rotate else ""
    return f'<text class="dm-loop__note" x="{x:g}" y="{y:g}" text-anchor="{anchor}"{turn}>{_e(words)}</text>'


def _stage(box: _Box, number: int, total: int, href, focus, kind: str) -> str:
    group = box.group
    width, height, gap, columns = _CHIP[kind]
    if kind == "narrow":
        columns = int((box.w - 2 * _PAD + gap) // (width + gap))
    count = len(group.cards)
    label = f"Stage {number} of {total}: {group.stage}, {count} decision{'s' if count != 1 else ''}"
    out = [f'<g class="dm-stage" role="group" aria-label="{_e(label)}">',
           f'<rect class="dm-stage__box" x="{box.x:g}" y="{box.y:g}" width="{box.w:g}" height="{box.h:g}" rx="8"/>',
           f'<text class="dm-stage__title" x="{box.x + _PAD:g}" y="{box.y + 20:g}">{_e(group.stage)}</text>',
           f'<text class="dm-stage__about" x="{box.x + _PAD:g}" y="{box.y + 36:g}">'
           f"{_e(group.id)} · {count} decision{'s' if count != 1 else ''}</text>"]
    for i, card in enumerate(group.cards):
        col, row = i % columns, i // columns
        x = box.x + _PAD + col * (width + gap)
        y = box.y + _HEAD + row * (height + gap)
        out.append(_chip(card, x, y, width, height, href(card), (focus or {}).get(card.id), focus is not None))
    out.append("</g>")
    return "".join(out)


def _chip(card: Card, x: float, y: float, w: float, h: float, link: str, focus: Focus | None,
          focusing: bool) -> str:
    entry = card.entry
    who = entry.decided_by or "none"
    overrides = tuple(dict.fromkeys(o.by for o in card.overrides))
    actions = dict(overrule_actions(card.overrides))  # what each can do, as its badge says
    state = ""
    if focusing:
        if focus is None:
            state = " dm-node--faded"
            overrides = ()  # only what the extension changes is drawn in full
        elif focus.kind == "changed":
            who = focus.who or who
            overrides = focus.overrides
            actions = {}  # the extension's holders: what they can do is on its page
            state = " dm-node--changed"
        else:
            state = " dm-node--related"
    name = f"{entry.id}: {_plain(entry.headline)} Decided by {WHO_PHRASE.get(who, who)}"
    if overrides:
        name += "; " + "; ".join(f"{WHO_PHRASE[o]} can {actions.get(o, 'overrule')}" for o in overrides)
    if focusing and focus is not None:
        name += "; changed by this extension" if focus.kind == "changed" else "; this extension adds a decision next to it"
    name += "."
    # on the tile's top edge, clear of its ID below (drawn inside the tile, two marks reached the "1")
    dots = "".join(_mark(o, x + w - 5 - 10 * i, y + 0.5, 4.5) for i, o in enumerate(overrides))
    return (f'<a class="dm-node dm-node--{_e(who)}{state}" href="{html.escape(link)}" aria-label="{_e(name)}">'
            f"<title>{_e(name)}</title>"
            f"{_shape(who, x, y, w, h)}"
            f'<text x="{x + w / 2:g}" y="{y + h / 2 + 4.5:g}" text-anchor="middle">{_e(entry.id)}</text>'
            f"{dots}</a>")


def _plain(text: str) -> str:
    return prose.words(text)


def _e(text: str) -> str:
    """Text from YAML in raw HTML: escaped, and inert to Markdown and templates (an address is
    written with html.escape instead: it is generated, and its # must stay a #)."""
    return prose.html_text(text)

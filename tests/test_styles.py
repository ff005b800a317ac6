"""What the site's stylesheet promises the browser tests.

axe's colour rules run on the real pages at the wide width only (test_browser_axe.py): they are
most of axe's time, and the palette does not hang on the width. That holds while the phone's own
rules (``@media … max-width``) change only the layout: no colour, no text size or weight, no
underline, no palette variable. A phone-only rule that changed one of those would show the phone
text axe never measured; this test fails on it instead, and names the rule."""

from __future__ import annotations

import re

from conftest import ROOT

STYLESHEET = ROOT / "generator" / "site" / "assets" / "decision-map.css"
# what decides a text's contrast for axe (colour-contrast: the colours and whether the text is large;
# link-in-text-block: how a link stands out from the text around it), and the palette's variables
READS_AS_COLOUR = re.compile(r"^(--|.*(colou?r|background|fill|stroke|opacity|filter|shadow|font|blend|text-decoration))")


def phone_only_declarations(css: str) -> list[tuple[str, str]]:
    """Every ``(selector, property)`` declared inside an ``@media`` block whose condition has a
    ``max-width`` (the phone's rules), at any depth of nesting."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found: list[tuple[str, str]] = []
    stack: list[tuple[str, bool]] = []  # (the block's prelude, whether it is inside a phone-only block)
    prelude_start = 0
    for index, char in enumerate(css):
        if char == "{":
            prelude = css[prelude_start:index].strip()
            inside = bool(stack and stack[-1][1])
            stack.append((prelude, inside or (prelude.startswith("@media") and "max-width" in prelude)))
            prelude_start = index + 1
        elif char == "}":
            prelude, phone = stack.pop()
            body = css[prelude_start:index]
            if phone and not prelude.startswith("@"):
                found += [(prelude, part.split(":", 1)[0].strip().lower()) for part in body.split(";") if ":" in part]
            prelude_start = index + 1
        elif char == ";" and not (stack and not stack[-1][0].startswith("@")):
            prelude_start = index + 1  # an at-rule statement outside a rule (@import …;)
    return found


def test_the_phone_rules_change_no_colour_nor_text_size():
    declarations = phone_only_declarations(STYLESHEET.read_text(encoding="utf-8"))
    assert declarations, "the stylesheet has phone-only rules; none was found, so the reader of it is broken"
    colour = [f"{selector} {{ {prop}: … }}" for selector, prop in declarations if READS_AS_COLOUR.match(prop)]
    assert colour == [], ("a phone-only rule changes what axe's colour rules measure, which run at the wide width "
                          "only (test_browser_axe.py): move it out of the @media block, or run the colour rules at "
                          "the phone's width too:\n" + "\n".join(colour))

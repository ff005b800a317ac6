"""Every escape of the prose renderer (generator/site/prose.py), as the reader gets it: the site's
Markdown (read by Python-Markdown into HTML) and the downloadable Markdown. Each case is a thing
a contributor may write in a YAML answer; the expected text is written out by hand."""

from __future__ import annotations

import markdown
import pytest

from generator.site import prose

# (what a contributor writes, the site's Markdown, the download's Markdown)
CASES = [
    # constructs that are on: emphasis, strong, code, http(s) links (children rendered too)
    ("*em* **strong** _u_ __U__ `code`", "<em>em</em> <strong>strong</strong> <em>u</em> <strong>U</strong> <code>code</code>",
     "*em* **strong** *u* **U** `code`"),
    ("[*em* `c`](https://e.org)", '<a href="https://e.org"><em>em</em> <code>c</code></a>', "[*em* `c`](https://e.org)"),
    # backslash escapes are read (the character is text), not shown
    (r"\*not em\* and \[x\]", "&#42;not em&#42; and &#91;x&#93;", r"\*not em\* and \[x\]"),
    # no typographer (quotes, dashes and ellipses stay), no linkify (a bare address is text)
    ('a -- b "q" (c) ...', 'a -- b "q" (c) ...', 'a -- b "q" (c) ...'),
    ("see https://e.org/x and www.e.org", "see https://e.org/x and www.e.org", "see https://e.org/x and www.e.org"),
    # raw HTML and entities are text; an autolink is text
    ("<b>x</b> &amp; &copy;", "&lt;b&gt;x&lt;/b&gt; &amp;amp; &amp;copy;", "&lt;b&gt;x&lt;/b&gt; &amp;amp; &amp;copy;"),
    ("<https://e.org>", "&lt;https://e.org&gt;", "&lt;https://e.org&gt;"),
    # an address is kept as written (no percent-encoding), in any case of the scheme
    ("[x](https://e.org/ä)", '<a href="https://e.org/ä">x</a>', "[x](https://e.org/ä)"),
    ("[x](HTTPS://E.ORG/A)", '<a href="HTTPS://E.ORG/A">x</a>', "[x](HTTPS://E.ORG/A)"),
    # in an address, what could end the attribute or start markup is an entity; parentheses are
    # encoded for the download, where they would end the link
    ("[a](https://e.org/?a=1&b=\"2\"`'x)", '<a href="https://e.org/?a=1&amp;b=&quot;2&quot;&#96;\'x">a</a>',
     "[a](https://e.org/?a=1&b=\"2\"`'x)"),
    ("[a](https://e.org/a_(b)c)", '<a href="https://e.org/a_(b)c">a</a>', "[a](https://e.org/a_%28b%29c)"),
    # not links: another scheme, an empty or spaced address, a reference, an image's `!` stays text
    ("[x](javascript:alert(1))", "&#91;x&#93;(javascript:alert(1))", r"\[x\](javascript:alert(1))"),
    ("[x]()", "&#91;x&#93;()", r"\[x\]()"),
    ("[x](https://e.org/ä b)", "&#91;x&#93;(https://e.org/ä b)", r"\[x\](https://e.org/ä b)"),
    ("[ref][1]", "&#91;ref&#93;&#91;1&#93;", r"\[ref\]\[1\]"),
    ("![img](https://e.org/i.png)", '&#33;<a href="https://e.org/i.png">img</a>', r"\![img](https://e.org/i.png)"),
    ("[x](https://e.org \"title\")", '<a href="https://e.org">x</a>', "[x](https://e.org)"),
    # what would open a block at the start of a paragraph stays text
    ("# not a heading", "&#35; not a heading", r"\# not a heading"),
    ("> not a quote", "&gt; not a quote", "&gt; not a quote"),
    ("* not a list", "&#42; not a list", r"\* not a list"),
    ("1. not a list", "1&#46; not a list", r"1\. not a list"),
    ("---", "&#45;--", r"\---"),
    (": def", "&#58; def", r"\: def"),
    # backslashes and backticks that open nothing
    ("a\\\\b", "a&#92;b", "a\\\\b"),
    ("back\\`tick`", "back&#96;tick&#96;", "back\\`tick\\`"),
    ("{{ x }} | ~ ^ = $ + !", "&#123;&#123; x &#125;&#125; &#124; &#126; &#94; &#61; &#36; &#43; &#33;",
     r"\{\{ x \}\} \| \~ \^ \= \$ \+ \!"),
]


@pytest.mark.parametrize(("written", "site", "download"), CASES, ids=[f"case{n}" for n in range(len(CASES))])
def test_prose_renders_as_written_in_both_forms(written: str, site: str, download: str) -> None:
    assert prose.site_inline(written) == site
    assert prose.markdown_inline(written) == download


def test_paragraphs_are_kept_and_each_is_guarded() -> None:
    text = "para one\n\n1. two\n- three"
    assert prose.site_block(text) == "para one\n\n1&#46; two\n\n&#45; three"
    assert prose.markdown_block(text) == "para one\n\n1\\. two\n\n\\- three"
    assert prose.site_inline(text) == "para one 1. two - three"
    assert prose.markdown_inline(text) == "para one 1. two - three"


def test_plain_text_and_attribute_text() -> None:
    assert prose.html_text("a \"b\" 'c' <d> & {e}") == "a &quot;b&quot; &#39;c&#39; &lt;d&gt; &amp; &#123;e&#125;"
    assert prose.site_text("- x * y") == "&#45; x &#42; y"
    assert prose.markdown_text("2) x _y_") == "2\\) x \\_y\\_"
    assert prose.words("x [y](https://e.org/*z*) `c` **d**") == "x y c d"


def test_entry_ids_link_to_their_pages_with_the_headline_as_title() -> None:
    def links(entry_id: str):
        return {"D2": ("d2.md", 'Who said "no") onmouseover="x'), "E1": "e1.md"}.get(entry_id)

    assert prose.site_inline("*see E1* **E1**", links=links) == \
        "<em>see [E1](e1.md){ .dm-ref }</em> <strong>[E1](e1.md){ .dm-ref }</strong>"
    site = prose.site_inline("see D2, D10 and E1; not XD2 or D2x", links=links)
    assert site == ('see [D2](d2.md "Who said &quot;no&quot;) onmouseover&#61;&quot;x"){ .dm-ref }, D10 and '
                    "[E1](e1.md){ .dm-ref }; not XD2 or D2x")
    html = markdown.markdown(site, extensions=["attr_list"])
    assert html == ('<p>see <a class="dm-ref" href="d2.md" title="Who said &quot;no&quot;) onmouseover&#61;&quot;x">'
                    'D2</a>, D10 and <a class="dm-ref" href="e1.md">E1</a>; not XD2 or D2x</p>')


def test_the_opening_of_a_field_stops_at_the_first_sentence_end_after_forty_characters() -> None:
    forty = "This first sentence is forty chars long."
    assert len(forty) == 40
    assert prose.first_sentences(forty + " And a second one follows here.") == forty
    assert prose.first_sentences(forty[:-2] + ". Second.") == forty[:-2] + ". Second."  # 39: one more
    assert prose.first_sentences("") == ""


def test_the_opening_is_cut_at_a_word_only_past_its_limit() -> None:
    whole = "w" * 214 + " words"
    assert len(whole) == 220 and prose.first_sentences(whole) == whole
    assert prose.first_sentences(whole + "s") == "w" * 214 + " …"
    listed = "Short opening, then a list: TAX, BOX, FIX, MIX, item4, item5, item6, item7, item8, item9."
    # "… MIX," is 47 characters: the cut falls after it, and drops its comma (and nothing else)
    assert prose.first_sentences(listed, at_most=47) == "Short opening, then a list: TAX, BOX, FIX, MIX …"
    assert prose.first_sentences(listed, at_most=46) == "Short opening, then a list: TAX, BOX, FIX …"
    assert prose.first_sentences("x" * 300) == "x" * 300 + " …"  # no space to cut at


def test_the_opening_ignores_sentence_ends_inside_code() -> None:
    text = "Read the code in `a. b. c. d. e. f. g. h. i. j. k. l. m. n. o.` first. Then this."
    assert prose.first_sentences(text) == "Read the code in `a. b. c. d. e. f. g. h. i. j. k. l. m. n. o.` first."


def test_a_line_break_inside_a_paragraph_is_a_space_or_stays_text() -> None:
    """`parse` is given one paragraph, joined; given a line break anyway, it never becomes markup."""
    assert prose.parse("a\\\nb") == (prose.Text("a b"),)  # Markdown's hard break: a backslash at the end
    assert prose.parse("a\nb") == (prose.Text("a\nb"),)


def test_words_joins_paragraphs_with_one_space() -> None:
    assert prose.words("First paragraph.\nSecond `one`.") == "First paragraph. Second one."


@pytest.mark.parametrize("code", ["x", "`x", "x`", "ab`", "`ab", "a ``b`` c", "`", " x ", " x", "x ", "```", " ", "  "])
def test_a_code_span_in_the_download_holds_exactly_its_code(code: str) -> None:
    """Read back by a CommonMark reader, the download's code is the code: the fence is longer than any
    backtick run inside, and a space pads it where the reader would take one off or see a fence."""
    written = prose.code_span(code)
    assert prose.parse(written) == (prose.Code(code),), written


@pytest.mark.parametrize("address", ["https://e.org/a<b", "https://e.org/a>b", "<https://e.org/a<b>"])
def test_an_address_with_an_angle_bracket_is_no_link(address: str) -> None:
    assert prose.parse(f"[x]({address})") == (prose.Text(f"[x]({address})"),)
    assert "<a " not in prose.site_inline(f"[x]({address})")

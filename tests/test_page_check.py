"""The leak check's findings as the failed build prints them (generator/site/page_check.py): the line
and the text around each leak, and where a line starts as the reader sees it (after a block tag
or a line break, not after an inline tag, an entity or a comment). Cases mutation testing showed
no other test pins; the check's wiring into the build is in test_site_build.py."""

from __future__ import annotations

import pytest

from generator.site.page_check import find_leaks

TEMPLATE = "template text ({{ … }}, {% … %} or {# … #})"
LIST = "a Markdown list item that was not turned into a list"


def test_each_finding_names_its_line_and_the_text_around_the_leak() -> None:
    page = ("<p>Intro.</p>\n<p>A long sentence before the leak that goes on {{ config.site_name }} and a long "
            "tail that goes on after it.</p>")
    # one finding for the whole {{ … }}, not one for each end; 30 characters either side of it
    assert find_leaks(page) == [
        f"line 2: {TEMPLATE}: …before the leak that goes on {{{{ config.site_name }}}} and a long tail that goes on…"]
    assert find_leaks("{: .x } at the very start") == [
        "line 1: an attribute list ({: …}) that Markdown did not apply: …{: .x } at the very start…"]


@pytest.mark.parametrize("text, found", [
    ("a {% if x %} b", "a {% if x %} b"), ("a {# note #} b", "a {# note #} b"),
    ("only an end }} here", "only an end }} here"), ("an opening {{ alone", "an opening {{ alone")])
def test_each_template_leak_is_one_finding(text, found) -> None:
    assert find_leaks(f"<p>{text}</p>") == [f"line 1: {TEMPLATE}: …{found}…"]


def test_a_list_line_inside_a_text_that_follows_an_inline_tag_is_shown_without_markers() -> None:
    assert find_leaks("<p><em>x</em> a\n- b</p>") == [f"line 1: {LIST}: …a - b…"]


@pytest.mark.parametrize("page", [
    "- one\n",  # the page's first text starts a line
    "<div>a<br/>- x</div>",  # after a line break
    "<div><p>a</p>- x</div>",  # after a block that closed
    "<span>x</span>a\n  <!-- c -->- b",  # after a text that ended its line, a comment between
])
def test_a_list_marker_where_a_line_starts_is_a_leak(page) -> None:
    assert [finding.split(": …")[0].split(": ", 1)[1] for finding in find_leaks(page)] == [LIST]


@pytest.mark.parametrize("page", [
    "<div>&amp; - b</div>", "<div>&#35; - b</div>",  # after an entity: the same line
    "<div>a<img/>- x</div>",  # after an inline element
    "<p>Steps:\nX<!-- c -->- b</p>",  # after a text that did not end its line
])
def test_a_dash_in_the_middle_of_a_line_is_text(page) -> None:
    assert find_leaks(page) == []


@pytest.mark.parametrize("page", [
    "<p><code>a</code> {{ y }}</p>",  # after a code element closes, text is checked again
    "<pre><code>{{b: 1}}</code></pre><p>{{ y }}</p>",  # code is not checked, the text after it is
    "<p>&#45; not a list</p><p>{{ y }}</p>",  # an entity stays text: no list here, only the template
])
def test_code_and_entities_are_left_alone_and_the_text_around_them_is_checked(page) -> None:
    assert set(find_leaks(page)) == {f"line 1: {TEMPLATE}: …{{{{ y }}}}…"}


def test_a_heading_mark_right_after_code_is_found() -> None:
    assert find_leaks("<p><code>a</code>## b</p>") == [
        "line 1: a Markdown heading that was not turned into a heading: …## b…"]

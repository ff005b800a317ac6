"""Reproducible output: two builds from the same inputs give byte-identical Markdown and HTML.

MkDocs dates one thing, the sitemap: the gzip header of sitemap.xml.gz (and, once mkdocs.yml sets
a site_url, each page's <lastmod> in sitemap.xml) holds the day of the build, or SOURCE_DATE_EPOCH
when it is set. That is the one exception, and it is shown here to be the only thing a build on
another day changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from site_fixtures.demo_site import make_demo_site

DAY_ONE = "1767225600"  # 2026-01-01, as SOURCE_DATE_EPOCH
DAY_TWO = "1767312000"  # 2026-01-02
DATED = {"sitemap.xml", "sitemap.xml.gz"}


def contents(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def build(site, out: Path, cache: Path, epoch: str | None) -> dict[str, bytes]:
    env = {"NO_MKDOCS_2_WARNING": "1", "DECISION_MAP_CACHE": str(cache)}
    if epoch:
        env["SOURCE_DATE_EPOCH"] = epoch
    run = run_cli("build", "--config", site.config, "--site-dir", out, "--quiet", env=env)
    assert run.code == 0, run.stderr
    return contents(out)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    return make_demo_site(tmp_path_factory.mktemp("reproducible"))


def test_two_builds_are_byte_identical(demo, tmp_path: Path) -> None:
    """A first build (fetching into an empty cache) and a second (from the cache), in separate
    processes, into separate folders: every file the same, HTML, search index and assets alike."""
    first = build(demo, tmp_path / "one", tmp_path / "cache", DAY_ONE)
    second = build(demo, tmp_path / "two", tmp_path / "cache", DAY_ONE)
    assert any(name.endswith(".html") for name in first)
    assert list(first) == list(second)
    assert [name for name in first if first[name] != second[name]] == []


def test_only_the_sitemap_carries_the_build_date(demo, tmp_path: Path) -> None:
    """Built on two different days: the sitemap's <lastmod> differs, nothing else does."""
    one = build(demo, tmp_path / "one", tmp_path / "cache", DAY_ONE)
    two = build(demo, tmp_path / "two", tmp_path / "cache", DAY_TWO)
    differ = {name for name in one if one[name] != two.get(name)}
    assert "sitemap.xml.gz" in differ and differ <= DATED, differ  # the gzip header holds the date
    if b"<url>" in one["sitemap.xml"]:  # with a site_url, each page's <lastmod> too
        assert b"<lastmod>2026-01-01</lastmod>" in one["sitemap.xml"]
        assert b"<lastmod>2026-01-02</lastmod>" in two["sitemap.xml"]


def test_two_renders_are_byte_identical(demo, tmp_path: Path) -> None:
    """`python -m generator render` (the pages for another engine) twice: the same Markdown."""
    env = {"DECISION_MAP_CACHE": str(tmp_path / "cache")}
    outputs = []
    for name in ("one", "two"):
        run = run_cli("render", "--decisions", demo.decisions, "--pages", demo.pages, "--out", tmp_path / name,
                      "--quiet", env=env)
        assert run.code == 0, run.stderr
        outputs.append(contents(tmp_path / name))
    assert any(name.endswith(".md") for name in outputs[0])
    assert outputs[0] == outputs[1]

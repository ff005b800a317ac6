"""Edition verdicts: what a bump did to each entry (unchanged, moved, changed, re-written), read
from the demo map's edition record (tests/site_fixtures/decisions/demo/editions/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.edition import entry_verdicts
from generator.load import load_maps
from site_fixtures.demo_site import make_demo_site, replace_in


@pytest.fixture
def demo(tmp_path: Path):
    return make_demo_site(tmp_path)


def _verdicts(demo) -> dict[str, str]:
    [demo_map] = load_maps(demo.decisions)
    [edition] = demo_map.editions
    return {v.entry_id: v.verdict for v in entry_verdicts(demo_map, edition)}


def test_each_entry_gets_its_verdict(demo) -> None:
    # D2: its one citation ok; D1: one moved, one ok; P1: its code changed, its text is as it was;
    # G1: one citation changed, one gone, one moved, and its answer re-written since the bump
    assert _verdicts(demo) == {"D1": "moved", "D2": "unchanged", "G1": "rewritten", "P1": "changed"}


def test_rewording_an_entry_after_the_bump_makes_it_rewritten(demo) -> None:
    replace_in(demo.map_folder / "P1.yaml", "including <b>tags</b>", "including <i>tags</i>")
    replace_in(demo.map_folder / "D2.yaml", "You do, each time", "You do, every time")
    verdicts = _verdicts(demo)
    assert verdicts["P1"] == "rewritten"
    assert verdicts["D2"] == "rewritten"  # a re-write counts even where no code moved


def test_only_the_claim_counts_not_the_citations_or_dates(demo) -> None:
    replace_in(demo.map_folder / "P1.yaml", "checked: 2026-11-03", "checked: 2026-11-20")
    replace_in(demo.map_folder / "D1.yaml", "note: the hook, asked for every call", "note: the hook")
    assert _verdicts(demo) == {"D1": "moved", "D2": "unchanged", "G1": "rewritten", "P1": "changed"}


def test_an_entry_that_left_the_map_is_removed(demo) -> None:
    (demo.map_folder / "D2.yaml").unlink()
    replace_in(demo.map_folder / "map.yaml", "ids: [D1, D2]", "ids: [D1]")
    assert _verdicts(demo)["D2"] == "removed"


def test_a_problem_whose_code_changed_needs_a_status_recheck(demo) -> None:
    [demo_map] = load_maps(demo.decisions)
    [edition] = demo_map.editions
    found = {v.entry_id: v for v in entry_verdicts(demo_map, edition)}
    assert [i for i, v in found.items() if v.needs_recheck] == ["P1"]  # G1's code changed, but it is a decision
    assert [r.status for r in found["G1"].drifted] == ["changed", "missing"]
    assert [r.file for r in found["G1"].moved] == ["src/session.ts"]
    assert [r.status for r in found["D1"].unmoved] == ["ok"]


def test_once_settled_later_edits_are_not_the_editions_re_writes(demo) -> None:
    """`accept` records what an entry said when a person settled it; text edited afterwards (a
    later review, say) is not counted as a re-write in this edition."""
    from generator.bump import claim_digest, edition_text

    [demo_map] = load_maps(demo.decisions)
    [edition] = demo_map.editions
    settled = (("G1", claim_digest(demo_map.entry("G1"))),)  # G1 was re-written and accepted
    edition.path.write_text(edition_text(edition.from_version, edition.to_version, edition.date,
                                         list(edition.citations), edition.probes, settled))
    assert _verdicts(demo) == {"D1": "moved", "D2": "unchanged", "G1": "rewritten", "P1": "changed"}
    replace_in(demo.map_folder / "P1.yaml", "including <b>tags</b>", "including <i>tags</i>")
    replace_in(demo.map_folder / "D2.yaml", "You do, each time", "You do, every time")
    assert _verdicts(demo) == {"D1": "moved", "D2": "unchanged", "G1": "rewritten", "P1": "changed"}

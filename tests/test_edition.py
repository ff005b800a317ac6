"""Edition verdicts: what a bump did to each entry (unchanged, moved, changed, re-written), read
from the demo map's edition record (tests/site_fixtures/decisions/demo/editions/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.release.edition import entry_verdicts
from generator.map.load import load_finished_maps, load_maps
from conftest import entry_yaml
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


def test_a_rewrite_with_no_cited_code_changed_is_a_rewording(demo) -> None:
    replace_in(demo.map_folder / "D2.yaml", "You do, each time", "You do, every time")
    replace_in(demo.map_folder / "D1.yaml", "runs?", "runs at all?")  # D1's code only moved
    [demo_map] = load_maps(demo.decisions)
    [edition] = demo_map.editions
    found = {v.entry_id: v for v in entry_verdicts(demo_map, edition)}
    assert [i for i, v in found.items() if v.reworded] == ["D1", "D2"]
    assert found["G1"].verdict == "rewritten" and not found["G1"].reworded  # its code changed
    assert not found["P1"].reworded  # code changed, text kept: not re-written at all


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
    from generator.release.bump import claim_digest, edition_text

    [demo_map] = load_maps(demo.decisions)
    [edition] = demo_map.editions
    settled = (("G1", claim_digest(demo_map.entry("G1"))),)  # G1 was re-written and accepted
    edition.path.write_text(edition_text(edition.from_version, edition.to_version, edition.date,
                                         list(edition.citations), edition.probes, settled))
    assert _verdicts(demo) == {"D1": "moved", "D2": "unchanged", "G1": "rewritten", "P1": "changed"}
    replace_in(demo.map_folder / "P1.yaml", "including <b>tags</b>", "including <i>tags</i>")
    replace_in(demo.map_folder / "D2.yaml", "You do, each time", "You do, every time")
    assert _verdicts(demo) == {"D1": "moved", "D2": "unchanged", "G1": "rewritten", "P1": "changed"}


def test_text_edited_after_the_settlement_is_told_apart(demo) -> None:
    """The edition page shows today's text beside the old one: it says when that text was edited
    again after the move was settled, so part of the difference is wording."""
    from generator.release.bump import claim_digest, edition_text
    from generator.release.edition import edited_since

    def edited() -> list[str]:
        [demo_map] = load_maps(demo.decisions)
        [edition] = demo_map.editions
        return [v.entry_id for v in entry_verdicts(demo_map, edition) if edited_since(edition, v)]

    assert edited() == []  # no settlement recorded: the re-write is the only edit known
    [demo_map] = load_maps(demo.decisions)
    [edition] = demo_map.editions
    settled = (("G1", claim_digest(demo_map.entry("G1"))),)
    edition.path.write_text(edition_text(edition.from_version, edition.to_version, edition.date,
                                         list(edition.citations), edition.probes, settled))
    assert edited() == []  # G1 as it was accepted
    replace_in(demo.map_folder / "G1.yaml", "unless messages are queued", "unless a message is queued")
    assert edited() == ["G1"]


def test_an_edition_reads_back_as_bump_wrote_it(demo) -> None:
    """Every field of an edition record, as `bump` writes it, is what the loader gives the pages:
    a range moved to another file, a citation whose code is gone (no `new`), a citation checked at
    an older version, the probes that flipped, the entries a person settled and what entries said
    at the earlier version (set beside what they say now)."""
    from dataclasses import replace

    from generator.release.bump import edition_text
    from generator.map.model import Edition, EditionCitation, EditionProbe

    rows = [EditionCitation("D1", "src/session.ts", (7, 12), (3, 8), "0.8.0", "moved", "e011524fb68e", 0,
                            "src/elsewhere.ts"),
            EditionCitation("G1", "src/loop.js", (2, 4), None, "0.7.0", "missing", "e4ac0351182b", 0)]
    probes = (EditionProbe("P1", "holds", "fails"), EditionProbe("D2", "error", "holds"))
    settled = (("G1", "000000000001"), ("D1", "e011524fb68e"))
    before = (("G1", 'It stops: "done".'), ("D1", "Plain code."))
    path = demo.decisions / "demo" / "editions" / "1.0.0-to-1.1.0.yaml"
    path.write_text(edition_text("1.0.0", "1.1.0", "2026-11-20", rows, probes, settled, before))
    [demo_map] = load_maps(demo.decisions)
    edition = next(e for e in demo_map.editions if e.to_version == "1.1.0")
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("  - id:")]
    assert edition == Edition("1.0.0", "1.1.0", "2026-11-20",
                              tuple(replace(row, line=n) for row, n in zip(rows, lines)), path, probes, settled,
                              before)
    assert edition.said_before("G1") == 'It stops: "done".' and edition.said_before("P1") is None


def test_a_map_loaded_without_its_unfinished_files_keeps_its_editions(demo) -> None:
    """`probe` and `new` load the map leaving out the files still being written; its edition records
    come with it unless left out on purpose."""
    [whole] = load_maps(demo.decisions)
    [finished] = load_finished_maps(demo.decisions)
    assert finished.editions == whole.editions != ()
    [finished] = load_finished_maps(demo.decisions, editions=False)
    assert finished.editions == ()
    # and so when an entry still being written is left out
    (demo.map_folder / "D9.yaml").write_text(entry_yaml("D9", [("src/a.ts", 1)]).replace("Plain code.", "TODO"))
    [finished] = load_finished_maps(demo.decisions)
    assert finished.editions == whole.editions and "D9" not in {e.id for e in finished.entries}
    [finished] = load_finished_maps(demo.decisions, editions=False)
    assert finished.editions == ()


def test_editions_of_one_day_are_in_version_order(demo) -> None:
    """The pages list editions newest first: by date, then by version as numbers (1.9.0 before 1.10.0)."""
    from generator.release.bump import edition_text
    from generator.map.model import EditionCitation

    for before, after in (("1.10.0", "2.0.0-beta"), ("1.8.0", "1.9.0"), ("1.9.0", "1.10.0")):
        row = EditionCitation("D2", "src/session.ts", (5, 5), (5, 5), before, "ok", "9a1b64d9f957", 0)
        path = demo.decisions / "demo" / "editions" / f"{before}-to-{after}.yaml"
        path.write_text(edition_text(before, after, "2026-11-20", [row]))
    [demo_map] = load_maps(demo.decisions)
    assert [e.to_version for e in demo_map.editions] == ["1.0.0", "1.9.0", "1.10.0", "2.0.0-beta"]

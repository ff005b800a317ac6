"""`mkdocs serve` rebuilds after each YAML edit: only the YAML is read again, no source re-parsed."""

from __future__ import annotations

from pathlib import Path

from conftest import entry_yaml, make_project
from generator.site import plugin
from generator.site.render import render_folder

SOURCE = "export function f(): number {\n  return 1;\n}\n\nexport function g(): number {\n  return 2;\n}\n"


def test_a_rebuild_after_a_yaml_edit_parses_nothing_again(tmp_path: Path, monkeypatch, parsed_files) -> None:
    p = make_project(tmp_path, {"1": {"src/a.ts": SOURCE}},
                     {"D1": entry_yaml("D1", [("src/a.ts", "1-3")]), "D2": entry_yaml("D2", [("src/a.ts", "5-7")])})
    parsed = parsed_files
    monkeypatch.setattr(plugin, "_KEPT", {})

    def build() -> dict[str, str]:
        return render_folder(p.decisions, trees_for=lambda m: plugin.kept_trees(m, quiet=True)).pages

    first = build()
    assert parsed == ["src/a.ts"]
    p.write_entry("D2", entry_yaml("D2", [("src/a.ts", "5-7")]).replace("Plain code.", "Plain code, edited."))
    second = build()
    assert parsed == ["src/a.ts"], "the second build parsed a source file again"
    assert first != second and "Plain code, edited." in second["demo/map.md"]


def test_the_symbol_memo_gives_the_same_answers_as_parsing(tmp_path: Path, capsys, cache: Path) -> None:
    from conftest import run_main

    p = make_project(tmp_path, {"1": {"src/a.ts": SOURCE}},
                     {"D1": entry_yaml("D1", [("src/a.ts", "1-3")]), "D2": entry_yaml("D2", [("src/a.ts", "5-7")])})
    cold = run_main(capsys, "verify", "--decisions", p.decisions, "--format", "json", "--quiet")
    [memo] = cache.glob("symbols-*.json")
    assert "f" in memo.read_text().split('"') and "g" in memo.read_text().split('"')
    warm = run_main(capsys, "verify", "--decisions", p.decisions, "--format", "json", "--quiet")
    assert cold.json() == warm.json() and [r["symbol"] for r in warm.json()["citations"]] == ["f", "g"]
    memo.write_text("not json")  # a damaged memo is only a lost shortcut
    again = run_main(capsys, "verify", "--decisions", p.decisions, "--format", "json", "--quiet")
    assert again.json() == cold.json()

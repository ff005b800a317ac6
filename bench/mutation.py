"""`make mutation`: mutation testing of the core and the guards with mutmut, a score per module.

mutmut (configured in pyproject.toml, [tool.mutmut]) changes one small thing at a time in a
module (a `<` for a `<=`, a string, a dropped argument): the core (CORE below), then the modules
that guard the user's machine and the reader's page (GUARDS). It runs the tests that reach the
changed function (fastest first: bench/mutation_order.py); a mutant the tests do not notice
*survived*. Each survivor is either a gap in the tests a user could notice, or equivalent (no
observable difference): those are explained in bench/mutation-equivalents.md, one line each,
and count as such in the table.

Each module runs in a copy of its own (<work>/<module>: see default_work), so the tree is
never touched and edits made meanwhile do not mix into it, against the test files written for it
(TESTS below: small fixture projects; `--all-tests` takes every fast test instead, hours more).
The report (a Markdown table, then every unexplained survivor with its diff) goes to
test-artifacts/mutation/report.md and covers every module run so far.

    .venv/bin/python bench/mutation.py                          # every module (CORE and GUARDS)
    .venv/bin/python bench/mutation.py generator/map/rewrite.py     # some of them
    .venv/bin/python bench/mutation.py --report-only            # the table of the last runs
    .venv/bin/python bench/mutation.py --again generator/citations/verify.py  # after new tests or edits

`--again` works in the copy of the last run: it brings in the current code and tests and tests
only the mutants that survived and those of functions whose code changed (mutmut keeps the
verdicts of the rest, whose code is the same and whose tests only grew).

Exit 1 when a module scores below --min-score (default 90) counting explained equivalents as
killed, 2 when mutmut itself fails.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "mutation"
sys.path.insert(0, str(ROOT / "tests"))
from memory_root import in_memory_root  # noqa: E402  (tests/: the suite's folders go there the same way)

# What the copies of every module take, with mutmut's mutants and each module's test folders: 42 MB
# for fetch.py's (measured), 1.5 GB for all 34; twice that free is asked of memory.
COPIES_ROOM = 3 * 2**30
EQUIVALENTS = ROOT / "bench" / "mutation-equivalents.md"
# The core and, for the command line, every command but two, and its argument parsing: the
# commands, their flags and their help (tests/test_cli_help.py reads every command's --help against
# its golden text). Not measured: `probe`, which runs pi itself from the registry: only the network
# tests reach it, too slow to run for each mutant (`source --extension` and the pin of an overlay
# still being written, _unfinished_pin, are: against a fake npm). The order is the order of
# priority: the first six are the ones a short run covers first.
CORE = {
    "generator/citations/resolve.py": ["*"], "generator/citations/verify.py": ["*"], "generator/citations/record.py": ["*"],
    "generator/citations/report.py": ["*"], "generator/site/prose.py": ["*"], "generator/map/load.py": ["*"],
    "generator/map/rewrite.py": ["*"], "generator/release/bump.py": ["*"], "generator/map/schema.py": ["*"],
    "generator/release/edition.py": ["*"],
    "generator/cli.py": ["main", "_verify", "_fix", "_record", "_bump", "_accept", "_render", "_source",
                         "_HelpFormatter._fill_text", "_parser", "_decisions_option", "_common", "_probe_command",
                         "_leads_command", "_levers_command", "_site_commands", "_resolve_all", "_settle_editions",
                         "_leads", "_levers", "_schema", "_new", "_build", "_unfinished_pin"],
}
# Beyond the core: the modules that guard the user's machine (the fetched tarball, the cache, the
# folders written, the probes' sandbox and limits) and the reader's page (a failed build keeps the
# old site, leaked markup fails it, every page's escaping and links). Some are measured on part of
# their functions, said where they are listed: the rest needs the registry, or reaches every page.
# The probes' runs are measured with a stand-in for pi laid into the test's cache and run in the
# real sandbox (tests/probe_fixtures.py); pi itself, from the registry, is left to the network tests.
GUARDS = {
    # fetch: what keeps a hostile or broken download off the machine and the cache whole (the
    # tarball's integrity, the source maps' paths, a shipped package's files, the locked atomic
    # publish, the manifest and its digests), how its failures are worded, and the npm and git
    # calls against a fake npm in a folder and local git repositories (tests/test_fetch.py): the
    # download (npm view, npm pack, their answers read), the packages fetched together, the clone
    # at a ref or a commit, git run clear of a calling hook's repository (_git); the tree fetched or
    # reused (fetch_tree, refetch), the cache's folder and key, the history repository's writing,
    # the progress display; npm and what it started killed when the build is stopped (stop_npm: a
    # fake npm whose children hang)
    "generator/source/fetch.py": ["_rebuild_sources", "_check_integrity", "_open", "SourceTree.read", "SourceTree._classify",
                           "SourceTree.classify", "publish_once", "renamed_files", "_npm_failure", "_git_failure",
                           "_npm", "_missing_package", "_download_npm", "registry_integrity", "_npm_json",
                           "_fetch_npm", "_unpack_shipped", "_write_manifest", "_fetch_git", "_git", "_repository_variables",
                           "fetch_tree", "refetch",
                           "_source_key", "_record_history", "history_path", "cache_root", "_Progress.__init__",
                           "_Progress.__enter__", "_Progress.step", "_Progress.__exit__", "stop_npm", "allow_npm",
                           "_kill_group", "_descendants", "SourceTree._real_root", "SourceTree.has_file"],
    "generator/site/page_check.py": ["*"], "generator/site/build.py": ["*"],
    # scaffold: a new entry (its position, group and ID guessed, nothing written when refused), and a
    # new overlay (`new_extension`) for an extension fetched from a fake npm in a folder (its pin,
    # each lever's items and citations, the name, what is refused): all of the module
    "generator/scaffold.py": ["parse_position", "new_entry", "guess_group", "next_id", "_loaded_map", "new_extension"],
    "generator/citations/replay.py": ["*"],
    # the install pi's probes run: a copy edited after it was installed is refused (its manifest, the
    # digest of every file, mode and link); the install itself with npm a stand-in that lays the
    # packages and writes their lockfile (tests/test_probe_install.py: npm's command and settings,
    # the lockfile's checks, the install kept and reused); the Node found (the wheel's, or
    # $DECISION_MAP_NODE a stand-in that prints a version) and its npm. The real npm, from the
    # registry, is left to the network tests
    "generator/probes/install.py": ["_open", "_tree", "_entry", "_changed", "_tree_digest", "find_node", "_node",
                                    "_wheel_node", "install_pi", "_npm_install", "_check_lock", "Node.bin_dir",
                                    "PiInstall.node_modules"],
    # the sandbox chosen, or the run refused (no bwrap, a bwrap that cannot make its sandbox, bad
    # limits); and a probe run in it, with a stand-in for pi laid into the test's cache
    # (tests/probe_fixtures.py, run by tests/test_probe_run.py in the real bubblewrap sandbox and
    # under Node's permission model): the commands and environment, the run supervised and
    # stopped, what went wrong in a user's words. The attacks on the sandbox need pi from the
    # registry (the network tests)
    "generator/probes/sandbox.py": ["Limits.from_environment", "choose_sandbox", "_working_bwrap", "Sandbox.name",
                                    "Sandbox.describe", "explain", "error_line", "_environment", "_node_command",
                                    "_bwrap_command", "_isolation_flags", "_memory_file", "run_sandboxed",
                                    "_supervise", "_limit_resources", "_kill_leader", "_stop_tree", "_running",
                                    "_descendants", "stop_every_run", "stopping", "allow_runs"],
    "generator/site/search_index.py": ["*"],
    # what Material's search reads of a page: the cut and where it is refused, against Material's own parser
    "generator/site/search_view.py": ["*"],
    # how a refused input reads (path:line: what, relative to where the command runs, in order)
    "generator/errors.py": ["*"],
    # the control group bounding a probe's whole tree: the hierarchy found, the limits written, the
    # tree killed and the group removed, what it ran out of, the groups a killed `probe` left
    "generator/probes/limits.py": ["*"],
    # an extension's probe: which are run, pi and the extension installed together (npm a stand-in
    # that lays the packages: the lockfile's checks, the refusals, the install reused), the run
    "generator/probes/extension.py": ["*"],
    # a map's probes: the verdicts and what they say, the remembered results and their key, time
    # and output limits, `probe` stopped by a signal, the site build and `bump` (all in the sandbox)
    "generator/probes/run.py": ["*"],
    "generator/citations/leads.py": ["*"], "generator/extensions/levers.py": ["*"],
    "generator/extensions/patterns.py": ["*"],  # the code patterns `levers` finds (its inline tests)
    # the pages' escaping filters, an npm extension's page and the index, the code before and after an
    # edition, the loop drawing: rendered in-process from small inline models and from the demo map
    "generator/site/pages/environment.py": ["*"], "generator/site/pages/extensions.py": ["*"],
    "generator/site/pages/editions.py": ["*"], "generator/site/pages/diagram.py": ["*"],
    # the MkDocs plugin's hooks, driven through MkDocs' own plugin collection with a rendered site
    "generator/site/plugin.py": ["*"],
    # the data model: a citation's label and upstream link, an entry's group and headline, an
    # overlay's decisions and citations, the shared modules a probe takes along, an extension's own map
    "generator/map/model.py": ["*"],
    # the pages of a map from its loaded YAML: every page, hand-written extension pages, several maps,
    # the navigation (tests/test_pages_inline.py renders in the test's process, no git, no MkDocs)
    "generator/site/render.py": ["*"],
    # what the pages of a map say that is derived, not written, as far as measured: the links between
    # entries, and from entries to extensions and back (anchors, neighbours, the shared levers, issue
    # links), what an overlay says of a decision's own holders, fixed problems, reviews, the overrule
    # badges, what a probe printed, the groups, the code cut for a citation, the home page's counts
    # (the same in-process tests), the views' assembly (map_view), a probe's view (_probe), the census
    # (_census) and the extension links (_extension_links); and the views' small properties (a card's
    # headline, its page and its short answer, the map's counts and gaps, a group's anchor and stage),
    # their getters unwrapped in the copy (unwrap_decorators: mutmut leaves a decorated function alone)
    "generator/site/pages/views.py": ["CitedCode.label", "CitedCode.line_count", "CitedCode.opens",
                                      "ReviewView.current", "ReviewView.worst", "ProbeView.command",
                                      "ProbeView.expect_json", "Card.id", "Card.page", "Card.headline",
                                      "Card.search_boost", "Card.page_description", "Card.short_answer",
                                      "Card.overrides", "Card.exception_count", "Card.excerpts", "Card.fixed",
                                      "Card.plain_code", "Card.changing", "Card.touching", "GroupView.anchor",
                                      "GroupView.stage", "OverlayView.through_levers", "OverlayView.overridden",
                                      "OverlayView.touched", "OverlayView.name", "OverlayView.page", "MapView.name",
                                      "MapView.version", "MapView.latest", "MapView.open_problems",
                                      "MapView.fixed_problems", "MapView.title_in_sentence", "MapView.download",
                                      "MapView.decision_count", "MapView.marked_decision_count",
                                      "MapView.overruled_decision_count", "MapView.overruled_percent",
                                      "MapView.overruled_by_several", "MapView.id_gaps", "MapView.last_check",
                                      "MapView.git_ref", "MapView.href",
                                      "MapView.link", "MapView.issue_url", "MapView.neighbours", "MapView.shared_levers_of",
                                      "MapView.group_of", "Card.code_anchor", "GroupView.count", "changed_decisions",
                                      "fixed_in", "observed", "change_anchors", "worded", "gallery_view", "version_key",
                                      "_review", "overrule_actions", "overrule_labels", "percent", "distinct_cites",
                                      "_group_views", "_cited_code", "map_view", "_probe", "_census",
                                      "_extension_links"],
}
MODULES = {**CORE, **GUARDS}
# The tests that check each module: what a mutant of it must fail. Every one works on fixture
# projects built in a temporary folder; the tests over pi's real tree or the whole site (minutes of
# fixtures for each mutant) are left to `--all-tests`.
_CITATIONS = ["tests/test_resolve.py", "tests/test_resolve_whitespace.py", "tests/test_resolve_elsewhere.py",
              "tests/test_resolve_placement.py", "tests/test_record_command.py",
              "tests/test_line_counts.py", "tests/test_drift_fails.py", "tests/test_records.py", "tests/test_fix.py"]
_COMMANDS = ["tests/test_cli.py", "tests/test_exit_codes.py", "tests/test_fix.py", "tests/test_bump.py",
             "tests/test_record_command.py", "tests/test_records.py", "tests/test_drift_fails.py",
             "tests/test_verify_output.py", "tests/test_edition.py"]
# the page tests about prose (the rest of test_render.py builds whole sites: a minute for each mutant)
_PROSE_ON_PAGES = [
    "test_an_id_in_prose_links_to_its_page_and_shows_its_question",
    "test_nav_titles_are_escaped_plain_text",
    "test_injected_markup_in_an_answer_is_text",
    "test_allowed_prose_becomes_code_emphasis_and_http_links",
    "test_code_spans_keep_backticks_in_both_forms",
    "test_the_download_escapes_for_plain_markdown",
    "test_no_prose_ever_becomes_other_html",
    "test_plain_text_shows_exactly_as_written",
    "test_the_download_keeps_injected_markup_as_text",
    "test_prose_keeps_every_escape_and_allows_nothing_else",
    "test_the_opening_of_an_answer_is_whole_sentences",
]
_GOLDEN = "tests/test_render.py::test_pages_match_the_golden_files"
# the demo map's edition varied: an older edition, a re-wording, a problem settled since its code changed
_EDITION_PAGES = [f"tests/test_render.py::{name}" for name in (
    "test_every_edition_keeps_its_page_and_the_index_lists_them_newest_first",
    "test_the_edition_page_shows_changes_of_behaviour_first_and_folds_rewordings",
    "test_the_edition_and_the_census_say_why_their_counts_differ",
    "test_no_alarm_for_a_problem_already_settled_since_its_code_changed")]
TESTS = {
    "generator/citations/resolve.py": _CITATIONS,
    "generator/citations/verify.py": sorted(set(_CITATIONS + _COMMANDS)),
    "generator/citations/record.py": sorted(set(_CITATIONS + _COMMANDS)),
    "generator/citations/report.py": ["tests/test_verify_output.py", "tests/test_cli.py", "tests/test_drift_fails.py",
                            "tests/test_probe_output.py", "tests/test_leads.py",
                            # an overlay's own release in the table, each overlay fetched from a fake npm
                            "tests/test_new_extension.py::test_code_that_is_not_utf8_is_cited_all_the_same"],
    "generator/site/prose.py": ["tests/test_prose_escapes.py", "tests/test_link_escape.py",
                           *(f"tests/test_render.py::{name}" for name in _PROSE_ON_PAGES)],
    "generator/map/load.py": ["tests/test_load.py", "tests/test_load_checks.py", "tests/test_bad_inputs.py",
                          "tests/test_edits_and_schemas.py", "tests/test_edition.py", "tests/test_probe.py",
                          "tests/test_render.py::test_shared_levers_naming_no_entry_is_an_error_with_its_line",
                          # overlays pinned on npm, the lever table, an overlay still being written (a fake npm)
                          "tests/test_levers.py", "tests/test_levers_command.py", "tests/test_new_extension.py"],
    "generator/map/rewrite.py": ["tests/test_fix.py", "tests/test_bump.py", "tests/test_record_command.py",
                             "tests/test_records.py", "tests/test_never_lose.py", "tests/test_faults.py",
                             "tests/test_edits_and_schemas.py",
                             # an overlay's citations and its pin rewritten in one file (`bump --extension`)
                             "tests/test_new_extension.py::test_bump_extension_pins_the_next_release_and_records_"
                             "its_own_edition"],
    # and `bump --extension` against a fake npm; the leads bump prints for entries whose code changed
    "generator/release/bump.py": ["tests/test_bump.py", "tests/test_edition.py", "tests/test_cli.py",
                                  "tests/test_new_extension.py::test_bump_extension_pins_the_next_release_and_records_"
                                  "its_own_edition",
                                  "tests/test_new_extension.py::test_bump_extension_to_a_release_already_fetched_needs_"
                                  "no_registry",
                                  "tests/test_leads.py::test_bump_lists_the_leads_new_at_the_target_for_entries_whose_"
                                  "code_changed"],
    "generator/map/schema.py": ["tests/test_edits_and_schemas.py", "tests/test_load.py", "tests/test_load_checks.py",
                            "tests/test_bad_inputs.py", "tests/test_link_escape.py",
                            # the JSON Schema the editors use, generated and checked against the loader
                            *(f"tests/test_contributing.py::{name}" for name in (
                                "test_committed_schemas_are_the_generated_ones",
                                "test_every_file_in_decisions_validates_against_its_schema",
                                "test_the_schema_rejects_what_the_loader_rejects",
                                "test_the_schema_and_the_loader_accept_the_same_good_entry"))],
    "generator/release/edition.py": ["tests/test_edition.py", "tests/test_bump.py", "tests/test_render.py"],
    # `render`: its pages folder and probe results reach the site (the one render test that checks both);
    # `levers` with the registry faked in the test's process: its package, format and --quiet; `leads`,
    # `schema`, `new` (an entry, an overlay from a fake npm) and `build` (MkDocs on small projects);
    # `source --extension`, `bump --extension`'s refusals and `fix` beside an extension (a fake npm)
    "generator/cli.py": [*_COMMANDS, "tests/test_cli_help.py", "tests/test_render.py::test_the_render_command_writes_the_site_with_its_pages_"
                                     "and_probe_results",
                         "tests/test_levers_command.py", "tests/test_leads.py", "tests/test_contributing.py",
                         "tests/test_new_entry.py", "tests/test_new_extension.py", "tests/test_build_site.py",
                         "tests/test_extension_commands.py"],
    # the registry and git faked or local (tests/test_faults.py's registry): no network
    "generator/source/fetch.py": ["tests/test_fetch_messages.py", "tests/test_fetch.py", "tests/test_faults.py", "tests/test_load.py",
                           "tests/test_records.py::test_a_file_git_sees_renamed_is_followed",
                           "tests/test_record_command.py::test_renames_are_followed_from_each_citations_own_version"],
    # the leak check on its own (what it finds and what it lets through), then on every rendered page
    "generator/site/page_check.py": ["tests/test_page_check.py",
                                "tests/test_site_build.py::test_the_leak_check_tells_leaks_from_text_and_code",
                                "tests/test_render.py::test_no_page_leaks_markdown_or_template_syntax",
                                "tests/test_site_build.py::test_a_leaked_attribute_list_or_template_text_fails_the_build",
                                "tests/test_site_build.py::test_a_list_or_table_markdown_did_not_read_fails_the_build"],
    # `generator build` on the demo site: a build that replaces the old site, one that fails and keeps it
    "generator/site/build.py": ["tests/test_build_site.py", *(f"tests/test_site_build.py::{name}" for name in (
        "test_generator_build_replaces_the_previous_site", "test_a_failed_build_leaves_the_previous_site_untouched",
        "test_a_bad_entry_fails_the_mkdocs_build_with_one_clean_line_per_problem")), "tests/test_drift_fails.py"],
    "generator/scaffold.py": ["tests/test_new_entry.py", "tests/test_new_extension.py"],
    "generator/citations/replay.py": ["tests/test_replay.py"],
    "generator/probes/install.py": ["tests/test_probe_install.py", "tests/test_probe_sandbox.py", "tests/test_probe.py",
                                    "tests/test_bad_inputs.py"],
    "generator/probes/sandbox.py": ["tests/test_probe_sandbox.py", "tests/test_probe_run.py", "tests/test_probe.py",
                                    "tests/test_bad_inputs.py"],
    # an entry's hit, the forms of its words and the index file (test_search_index.py), the words as
    # Material's search splits them, and the demo site built (each entry one hit, no code, its ID first)
    "generator/site/search_view.py": ["tests/test_search_view.py"],
    "generator/site/search_index.py": ["tests/test_search_index.py", *(f"tests/test_site_build.py::{name}" for name in (
        "test_the_search_index_has_one_hit_per_entry_and_no_code",
        "test_shaping_the_search_index_keeps_each_id_on_its_own_page",
        "test_the_stop_words_are_the_ones_material_search_leaves_out_of_the_index",
        "test_search_words_are_split_as_materials_search_splits_them",
        "test_a_word_family_holds_the_forms_a_reader_types",
        "test_an_entry_hit_carries_the_other_forms_of_its_words_where_they_weigh_as_its_own"))],
    # the messages on their own (every other test reaches them too, none asks more of them)
    "generator/errors.py": ["tests/test_errors.py"],
    # fake control-group trees, and one real group of this machine's
    "generator/probes/limits.py": ["tests/test_probe_limits.py"],
    "generator/probes/extension.py": ["tests/test_probe_extension.py"],
    # (the extension's tests reach run_probes and site_probes too)
    "generator/probes/run.py": ["tests/test_probe_run.py", "tests/test_probe_extension.py"],
    "generator/citations/leads.py": ["tests/test_leads.py"],
    # the inline packages of test_levers.py, and the command with the registry faked (test_levers_command.py)
    "generator/extensions/levers.py": ["tests/test_levers.py", "tests/test_levers_command.py"],
    "generator/extensions/patterns.py": ["tests/test_levers.py"],
    # the pages' pieces from inline models (test_pages_more_inline.py), and the demo map's every page
    # against its golden file, in this process (two seconds; the site builds in a subprocess are left out)
    "generator/site/pages/environment.py": ["tests/test_pages_more_inline.py", _GOLDEN],
    "generator/site/pages/extensions.py": ["tests/test_pages_more_inline.py", _GOLDEN],
    "generator/site/pages/editions.py": ["tests/test_pages_more_inline.py", _GOLDEN, *_EDITION_PAGES],
    "generator/site/pages/diagram.py": ["tests/test_pages_more_inline.py", _GOLDEN],
    "generator/site/plugin.py": ["tests/test_pages_more_inline.py"],
    # the model's objects built inline and shown as a reader or a command shows them (test_model.py),
    # then loaded from YAML: each object's file and line, the probes' shared modules
    "generator/map/model.py": ["tests/test_model.py", "tests/test_load_checks.py"],
    # the renderer in process, its sources read from folders: a render takes hundredths of a second
    # (test_render.py builds each fixture from a git repository, seconds for each test)
    "generator/site/render.py": ["tests/test_pages_inline.py"],
    # (and an npm extension's probe, whose view _probe makes too)
    "generator/site/pages/views.py": ["tests/test_pages_inline.py", "tests/test_pages_more_inline.py::"
                                      "test_an_npm_extensions_probe_and_releases_reach_its_page"],
}
COPIED = ["generator", "tests", "bench", "pyproject.toml", "decisions", "schema", "site_src", "mkdocs.yml", ".github", ".ci",
          ".pre-commit-config.yaml", "Makefile", "README.md", "CONTRIBUTING.md", "requirements.lock"]
# mutmut's exit codes of a mutant's test run (mutmut.stats.status_by_exit_code)
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 36: "timeout",
          24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout", 37: "killed", None: "not checked",
          # killed by a signal: the hard stop a second after the CPU limit, or a crash; the tests did not pass
          -9: "timeout", -11: "timeout"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help="modules to mutate (default: all)")
    parser.add_argument("--work", type=Path, default=default_work(),
                        help="the folder of the copies mutmut runs in, one per module (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="mutants tested at once")
    parser.add_argument("--min-score", type=float, default=90.0, help="lowest score a module may have (percent)")
    parser.add_argument("--report-only", action="store_true", help="report the last run in --work again")
    parser.add_argument("--reuse", action="store_true", help="run in the copy already in --work (its tests and "
                        "configuration as they are there), instead of copying the project anew")
    parser.add_argument("--again", action="store_true", help="in the copy of the last run, with the current code "
                        "and tests: test the survivors and the mutants of changed functions again")
    # one path per --tests (repeat it): a list after one flag would swallow the module names after it
    parser.add_argument("--tests", action="append", metavar="PATH",
                        help="run this test file or test instead of the module's own (repeat for more)")
    parser.add_argument("--all-tests", action="store_true", help="run every fast test (the selection in "
                        "pyproject.toml) instead of the module's own")
    parser.add_argument("--deselect", action="append", default=[], metavar="NODEID",
                        help="leave out a test that fails for another reason (mutmut needs a green run first)")
    args = parser.parse_args(argv)
    modules = args.modules or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        parser.error(f"not a module mutation covers: {', '.join(unknown)} (covered: {', '.join(MODULES)})")

    seconds: dict[str, float] = {}
    for module in modules if not args.report_only else []:
        work = work_of(args.work, module)
        names = [f"{dotted(module)}.{pattern_of(f)}" for f in MODULES[module]]
        if args.again:
            if not (work / "mutants" / f"{module}.meta").is_file():
                parser.error(f"--again: no earlier run of {module} in {work}")
            reselected = bring_in_current(work, module, None if args.all_tests else (args.tests or TESTS[module]))
            if names == [f"{dotted(module)}.*"]:
                names = []  # without names mutmut tests only the mutants without a verdict
            elif not reselected:  # named, mutmut tests them all again: name only the untested ones
                names = untested(work, module)
                if not names:
                    continue
                if any(name.endswith("*") for name in names):
                    # mutmut's record of the tests that reach each function knows no test of a function
                    # it never mutated (its mutants would have "no tests"): a whole first pass again
                    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
            # (a new test selection makes mutmut drop every verdict: the chosen functions' all again)
        elif not args.reuse:
            tests = None if args.all_tests else (args.tests or TESTS[module])
            copy_project(work, module, args.deselect, tests)
        started = time.monotonic()
        done = subprocess.run([*isolation(), sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs),
                               *names], cwd=work, env=mutmut_environment(work))
        seconds[module] = time.monotonic() - started
        if done.returncode != 0:
            print(f"mutmut run failed for {module} (exit {done.returncode}); see its output above", file=sys.stderr)
            return 2
    # the table covers every module with results, the ones just run and those of earlier runs
    shown = modules if args.modules else list(MODULES)
    rows, survivors = [], {}
    for module in shown:
        found, left = results(work_of(args.work, module), [module])
        rows += found
        survivors.update(left)
    if not rows:
        print(f"no mutation results under {args.work}; run without --report-only first", file=sys.stderr)
        return 2
    explained = read_equivalents()
    report = render_report(rows, survivors, explained, seconds, args)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    diffs = "\n".join(survivor_diffs(work_of(args.work, m), {m: survivors[m]}, explained) for m in survivors)
    (ARTIFACTS / "report.md").write_text(report + "\n\n## Survivors not listed as equivalent in "
                                         "bench/mutation-equivalents.md\n\n" + diffs)
    print(report)
    print(f"report: {(ARTIFACTS / 'report.md').relative_to(ROOT)}")
    low = [r["module"] for r in rows if r["score"] < args.min_score]
    if low:
        print(f"below {args.min_score:.0f}%: {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


def isolation() -> list[str]:
    """The command that runs mutmut in a PID namespace of its own, where the machine allows it (as
    root), else nothing, with a warning. A mutant of the code that stops processes (the probes'
    sandbox, fetch's npm, the control groups) can signal the wrong ones: outside a namespace that
    can be any of the user's (a browser and a shell were killed so). Inside, mutmut is not the
    namespace's first process, which inherits every orphan: sh is, and mutmut waits for its own."""
    command = ["unshare", "--pid", "--fork", "--mount-proc", "--"]
    try:
        works = os.geteuid() == 0 and subprocess.run([*command, "true"], capture_output=True).returncode == 0
    except OSError:
        works = False
    if works:
        return [*command, "sh", "-c", '"$@"; exit $?', "sh"]
    print("warning: mutmut runs without a PID namespace of its own (that needs root and unshare): a mutant of the "
          "code that stops processes may signal other processes of yours", file=sys.stderr)
    return []


def default_work() -> Path:
    """Where the copies go: in memory (/dev/shm) where it has room, else test-artifacts/mutation/work.
    The tests' git repositories and files cost less there: bump.py's tests (what each of its
    mutants runs) took 19.2-27.0 s and 15.3-20.6 CPU-s in memory, 32.2-35.2 s and 22.4-23.2 CPU-s
    on this machine's ext4 (two runs each, beside other work). A folder per checkout, so that two
    checkouts' runs do not mix; gone when the machine restarts, as `--again` then says."""
    memory = in_memory_root(COPIES_ROOM)
    if memory is None:
        return ARTIFACTS / "work"
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return memory / f"decision-map-mutation-{os.getuid()}-{checkout}"


def mutmut_environment(work: Path) -> dict[str, str]:
    """mutmut's environment: pytest's temporary folders inside the copy. In the shared default
    (/tmp/pytest-of-<user>) each mutant's run would delete the older folders of every other pytest
    run on the machine, and spend minutes on it when they hold installs of pi. Git looks for a
    repository no higher than the copy: the copy lies inside the project's own checkout, and a
    mutant that drops the environment a git command is given (fetch's history) otherwise tagged and
    staged into the project's repository (seen)."""
    (work / "tmp").mkdir(exist_ok=True)
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DEBUG_TEMPROOT": str(work / "tmp"),
            "GIT_CEILING_DIRECTORIES": str(work.resolve().parent)}


def work_of(folder: Path, module: str) -> Path:
    """The copy one module's mutants are run in."""
    return folder / Path(module).stem


def dotted(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


def pattern_of(function: str) -> str:
    """A mutmut name glob for a function's mutants (mutmut names them x_<function>__mutmut_<n>;
    methods, named Class.method here: xǁ<Class>ǁ<method>__mutmut_<n>)."""
    if function == "*":
        return "*"
    if "." in function:
        return "xǁ{}ǁ{}__mutmut_*".format(*function.split(".", 1))
    return f"x_{function}__mutmut_*"


_IGNORED = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")


def copy_project(work: Path, module: str, deselect: list[str], tests: list[str] | None) -> None:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=_IGNORED, symlinks=True)
        elif source.is_file():
            shutil.copy2(source, work / name)
    unwrap_decorators(work / module, MODULES[module])
    # Changes for this run go into the copy's configuration only: one module is mutated (the
    # others are only copied), against its tests.
    config = work / "pyproject.toml"
    text = config.read_text()
    text = only_mutate(text, module)
    if deselect:
        extra = "".join(f'"--deselect", {json.dumps(node)}, ' for node in deselect)
        text, found = re.subn(r"^pytest_add_cli_args = \[", lambda m: m.group(0) + extra, text, flags=re.MULTILINE)
        assert found == 1, "pyproject.toml: no pytest_add_cli_args line in [tool.mutmut]"
    config.write_text(select_tests(text, tests) if tests else text)


def unwrap_decorators(path: Path, functions: list[str]) -> None:
    """The functions named in ``functions`` (``name`` or ``Class.name``) that have one decorator
    (``@property``, ``@lru_cache(maxsize=None)``) rewritten in the copy from ``@decorator def name``
    to ``def name`` followed by ``name = decorator(name)``: the same module, whose decorated
    functions mutmut now mutates (it leaves every decorated function alone)."""
    wanted = set(functions)
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    edits = []  # (the decorator's line, the function's last line, its indent, its name, the decorator), 1-based
    scopes = [("", ast.parse(source))] + [(f"{c.name}.", c) for c in ast.walk(ast.parse(source))
                                          if isinstance(c, ast.ClassDef)]
    for prefix, scope in scopes:
        for node in scope.body:
            if (isinstance(node, ast.FunctionDef) and f"{prefix}{node.name}" in wanted
                    and len(node.decorator_list) == 1):
                decorator = node.decorator_list[0]
                edits.append((decorator.lineno, node.end_lineno, node.col_offset, node.name, ast.unparse(decorator)))
    for line, end, indent, name, decorator in sorted(edits, reverse=True):
        lines.insert(end, f"{' ' * indent}{name} = {decorator}({name})\n")
        del lines[line - 1]
    path.write_text("".join(lines), encoding="utf-8")


def select_tests(config: str, tests: list[str]) -> str:
    """A [tool.mutmut] configuration that runs ``tests`` against the mutants."""
    chosen = f"pytest_add_cli_args_test_selection = {json.dumps(tests)}"
    config, found = re.subn(r"^pytest_add_cli_args_test_selection = \[.*?\]", lambda m: chosen, config,
                            flags=re.MULTILINE | re.DOTALL)
    assert found == 1, "pyproject.toml: no pytest_add_cli_args_test_selection in [tool.mutmut]"
    return config


def only_mutate(config: str, module: str) -> str:
    """A [tool.mutmut] configuration that mutates ``module`` alone."""
    config, found = re.subn(r"^only_mutate = \[.*?\]", lambda m: f"only_mutate = {json.dumps([module])}", config,
                            flags=re.MULTILINE | re.DOTALL)
    assert found == 1, "pyproject.toml: no only_mutate in [tool.mutmut]"
    return config


def bring_in_current(work: Path, module: str, tests: list[str] | None) -> bool:
    """The current code, tests and test selection into the copy of an earlier run, and that run's
    survivors not explained as equivalent marked untested: mutmut then tests them, and the mutants
    of every function whose code changed (it runs the tests new to the selection first, to learn
    which functions they reach). True when the test selection changed."""
    for name in ("generator", "tests", "bench"):  # bench: the plugin that orders the tests
        shutil.rmtree(work / name)
        shutil.copytree(ROOT / name, work / name, ignore=_IGNORED, symlinks=True)
    unwrap_decorators(work / module, MODULES[module])
    config = work / "pyproject.toml"
    before = config.read_text()
    text = only_mutate(before, module)
    text = select_tests(text, tests) if tests else text
    config.write_text(text)
    meta = work / "mutants" / f"{module}.meta"
    data = json.loads(meta.read_text())
    # a survivor explained as equivalent keeps its verdict (mutmut tests it again if its function changed)
    explained = read_equivalents()
    data["exit_code_by_key"] = {name: (None if STATUS.get(code) in ("survived", "no tests") and name not in explained
                                       else code) for name, code in data["exit_code_by_key"].items()}
    meta.write_text(json.dumps(data))
    return before != text


def results(work: Path, modules: list[str]) -> tuple[list[dict], dict[str, list[str]]]:
    """Per module: counts of each status and the score; and the surviving mutants' names."""
    rows, survivors = [], {}
    for module in modules:
        meta = work / "mutants" / f"{module}.meta"
        if not meta.is_file():
            continue
        data = json.loads(meta.read_text())
        codes = data["exit_code_by_key"]
        wanted = [re.compile(fnmatch_to_regex(f"{dotted(module)}.{pattern_of(f)}")) for f in MODULES[module]]
        codes = {name: code for name, code in codes.items() if any(w.fullmatch(name) for w in wanted)}
        # the time the module's mutants kept a worker busy (each mutant's test run, summed)
        busy = sum(s for name, s in (data.get("durations_by_key") or {}).items() if name in codes and s)
        counts: dict[str, int] = {}
        for name, code in codes.items():
            status = STATUS.get(code, "suspicious")
            counts[status] = counts.get(status, 0) + 1
        checked = sum(n for s, n in counts.items() if s != "not checked")
        if not checked:
            continue
        survivors[module] = sorted((n for n, c in codes.items() if STATUS.get(c) in ("survived", "no tests")),
                                   key=natural)
        rows.append({"module": module, "mutants": checked, "killed": counts.get("killed", 0),
                     "timeout": counts.get("timeout", 0), "survived": counts.get("survived", 0),
                     "no tests": counts.get("no tests", 0), "busy": busy, "other": checked - sum(
                         counts.get(s, 0) for s in ("killed", "timeout", "survived", "no tests"))})
    return rows, survivors


def untested(work: Path, module: str) -> list[str]:
    """The mutants of the module's chosen functions (MODULES) that have no verdict yet; and, by their
    glob, the chosen functions of which the last run made no mutant (listed since, or a decorator
    unwrapped since): mutmut, given one, mutates the module again and tests what the glob matches.
    (A function that has no mutant to make, a one-line getter, is named for nothing each time.)"""
    codes = json.loads((work / "mutants" / f"{module}.meta").read_text())["exit_code_by_key"]
    wanted = {f"{dotted(module)}.{pattern_of(f)}": re.compile(fnmatch_to_regex(f"{dotted(module)}.{pattern_of(f)}"))
              for f in MODULES[module]}
    left = [name for name, code in codes.items() if code is None and any(w.fullmatch(name) for w in wanted.values())]
    return left + [glob for glob, w in wanted.items() if not any(w.fullmatch(name) for name in codes)]


def fnmatch_to_regex(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in pattern.split("*"))


def natural(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def read_equivalents() -> dict[str, str]:
    """Mutant name -> why it is equivalent, from the lines "- `NAME`: why" of the equivalents file
    (those under its "## Not equivalent" heading are explained, but still count as survivors)."""
    if not EQUIVALENTS.is_file():
        return {}
    text = EQUIVALENTS.read_text(encoding="utf-8").split("\n## Not equivalent", 1)[0]
    return dict(re.findall(r"^- `([^`]+)`: (.+)$", text, re.MULTILINE))


def render_report(rows, survivors, explained, seconds, args) -> str:
    lines = ["| module | mutants | killed | survived | explained equivalent | score | score with equivalents "
             "| worker time | wall time |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        detected = row["killed"] + row["timeout"]  # a mutant that hangs the tests is noticed too
        left = survivors.get(row["module"], [])
        equivalent = sum(1 for name in left if name in explained)
        raw = 100 * detected / row["mutants"]
        row["score"] = 100 * (detected + equivalent) / row["mutants"]
        wall = f"{seconds[row['module']] / 60:.1f} min" if row["module"] in seconds else "earlier run"
        wall += " (again)" if args.again and row["module"] in seconds else ""
        lines.append(f"| {row['module']} | {row['mutants']} | {detected} | {len(left)} | {equivalent} | "
                     f"{raw:.1f}% | {row['score']:.1f}% | {row['busy'] / 60:.1f} min | {wall} |")
    tests = ("every fast test" if args.all_tests else "the tests given" if args.tests
             else "its own tests (TESTS in bench/mutation.py)")
    lines += ["", f"mutmut {mutmut_version()}, {args.jobs} mutants at a time; each module against {tests}. Killed "
              "includes timeouts; survived includes mutants no selected test reaches. Worker time: the module's "
              "mutants' test runs added up; wall time: its run from start to end (first pass included)."]
    return "\n".join(lines)


def survivor_diffs(work: Path, survivors: dict[str, list[str]], explained: dict[str, str]) -> str:
    out = []
    for module, names in survivors.items():
        for name in names:
            if name in explained:
                continue
            shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work, capture_output=True,
                                   text=True)
            out += [f"### {name}", "", "```diff", shown.stdout.strip(), "```", ""]
    return "\n".join(out)


def mutmut_version() -> str:
    from importlib.metadata import version

    return version("mutmut")


if __name__ == "__main__":
    sys.exit(main())

"""The problems P4-P10 are reproduced by running pi, and each probe can fail.

Each problem's probe runs pi 1.6.0 (installed from the registry into a session cache) and must
hold; with ``PROBE_COUNTER=1`` each probe sets up the case where the behaviour is absent (the fixed
input: a UTF-8 file, a closed stdin, a session of this project, an exact match, a file instead of a
folder, no user tool list, a small chunk) and must then fail, on the key that carries the claim.
P9 also fails at pi 0.87.1, where a project's empty `defaultTools` list still turned the tools off.
P11 has tests of its own; its counter gives replies pi does not keep back (a reply cut off at the
model's own limit, an error that is not an overflow), which pi then reports.
P12 and P13 (project trust) have tests of their own: P12's counter names the session folder with
`--session-dir`, P13's starts each folder with a settings file, so that trust is settled at setup.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import probe_json

pytestmark = pytest.mark.network

PROBLEMS = ["P4", "P5", "P6", "P7", "P8", "P9", "P10"]

# For each problem, the result keys that must flip when the behaviour is absent.
FLIPS = {
    "P4": {"untouched_line_kept": True, "replacement_char_written": False},
    "P5": {"open_stdin_still_running": False},
    "P6": {"asked_on_stderr": False, "first_command_answered": True},
    "P7": {"curly_quotes_kept": True, "exact_edit_line_quotes_kept": True},
    "P8": {"eisdir": False, "reached_model_check": True},
    "P9": {"tool_count": 0},
    "P10": {"large_chunk_sent_as": "text"},
}


@pytest.fixture
def decisions(pi_map_with_probes: Path) -> Path:
    return pi_map_with_probes


def test_every_new_problem_is_reproduced_at_the_pin(decisions: Path) -> None:
    code, results = probe_json(decisions, *PROBLEMS)
    assert sorted(results) == sorted(PROBLEMS)
    assert code == 0, {i: r.get("message") for i, r in results.items() if r["status"] != "holds"}
    assert all(r["status"] == "holds" for r in results.values())
    # What a user would notice, read off the results rather than only the expect lists.
    assert results["P4"]["result"]["reported_success"] and not results["P4"]["result"]["untouched_line_kept"]
    assert results["P5"]["result"]["open_stdin_still_running"]
    assert results["P6"]["result"]["stdout_chars"] == 0 and results["P6"]["result"]["exit_code"] == 0
    assert results["P7"]["result"]["edited_line"] == 'title: "Draft" - v2'
    assert results["P8"]["result"]["stack_trace_shown"]
    assert results["P9"]["result"]["active_tools"] == "read,bash,grep"
    assert results["P10"]["result"]["large_chunk_sent_as"] == "image"


def test_every_new_problem_probe_fails_where_the_behaviour_is_absent(decisions: Path) -> None:
    code, results = probe_json(decisions, *PROBLEMS, env={"PROBE_COUNTER": "1"})
    assert code == 1
    for problem, flipped in FLIPS.items():
        assert results[problem]["status"] == "fails", (problem, results[problem])
        for key, value in flipped.items():
            assert results[problem]["result"][key] == value, (problem, key, results[problem]["result"])


def test_p9_fails_at_pi_0_87_1_where_an_empty_project_list_still_applied(decisions: Path) -> None:
    code, results = probe_json(decisions, "--target", "0.87.1", "P9")
    assert code == 1
    assert results["P9"]["status"] == "fails"
    assert results["P9"]["result"]["tool_count"] == 0


def test_p11_a_kept_back_reply_with_nothing_to_compact_ends_pi_p_silently(decisions: Path) -> None:
    code, results = probe_json(decisions, "P11")
    assert code == 0 and results["P11"]["status"] == "holds", results["P11"].get("message")
    shown = results["P11"]["result"]
    # What a script running `pi -p` sees: no answer, no error, success.
    assert (shown["cut_reply_exit"], shown["cut_reply_stdout"], shown["cut_reply_stderr"]) == (0, "", "")
    assert (shown["overflow_error_exit"], shown["overflow_error_stderr"]) == (0, "")
    # The same reply is reported when compaction is off, and recovered when there is history to compact.
    assert (shown["compaction_off_exit"], shown["compaction_off_stdout"]) == (1, "cut sho")
    assert shown["with_history_stdout"] == "retried answer"


def test_p11_probe_fails_when_the_replies_are_not_kept_back(decisions: Path) -> None:
    code, results = probe_json(decisions, "P11", env={"PROBE_COUNTER": "1"})
    assert code == 1 and results["P11"]["status"] == "fails"
    shown = results["P11"]["result"]
    assert (shown["cut_reply_exit"], shown["cut_reply_stdout"]) == (1, "an answer cut at the model limit")
    assert (shown["overflow_error_exit"], shown["overflow_error_stderr"]) == (1, "invalid request: scripted failure")
    assert shown["next_prompt_sees_cut_reply"] is True


def test_p12_an_untrusted_project_picks_the_session_folder_and_pi_c_takes_up_its_session(decisions: Path) -> None:
    code, results = probe_json(decisions, "P12")
    assert code == 0 and results["P12"]["status"] == "holds", results["P12"].get("message")
    shown = results["P12"]["result"]
    # The project is not trusted: its extension stays out, yet its settings place the session...
    assert shown["project_extension_ran"] is False
    assert shown["session_saved_in_project_folder"] is True and shown["sessions_in_default_folder"] == 0
    # ...and `pi -c --no-approve` hands the model a conversation the project shipped.
    assert shown["messages_sent"] == "shipped question | shipped answer | next"
    # The screens drawn before trust take the project's theme; the session's own settings do not.
    assert (shown["startup_screen_theme"], shown["theme_once_untrusted"]) == ("light", "dark")


def test_p12_probe_fails_when_the_person_names_the_session_folder(decisions: Path) -> None:
    code, results = probe_json(decisions, "P12", env={"PROBE_COUNTER": "1"})
    assert code == 1 and results["P12"]["status"] == "fails"
    shown = results["P12"]["result"]
    assert shown["session_saved_in_project_folder"] is False
    assert shown["model_saw_shipped_conversation"] is False and shown["messages_sent"] == "next"


def test_p13_an_extension_added_during_the_run_loads_on_reload_and_trust_is_saved(decisions: Path) -> None:
    code, results = probe_json(decisions, "P13")
    assert code == 0 and results["P13"]["status"] == "holds", results["P13"].get("message")
    shown = results["P13"]["result"]
    # The model writes an extension; only the reload loads it, with `never` set and nobody asked.
    assert shown["extension_written_by_model"] and shown["loaded_after_reload"]
    assert not shown["loaded_without_reload"] and not shown["loaded_after_reload_with_no_approve"]
    assert (shown["print_mode_exit"], shown["print_mode_stderr"], shown["print_mode_saved_trust"]) == (0, "", False)
    # Interactive mode's reload step writes a lasting yes that the next start obeys over `never`.
    assert shown["trust_json_answer"] is True and shown["next_start_trusted_despite_never"] is True


def test_p13_probe_fails_when_trust_is_settled_at_setup(decisions: Path) -> None:
    code, results = probe_json(decisions, "P13", env={"PROBE_COUNTER": "1"})
    assert code == 1 and results["P13"]["status"] == "fails"
    shown = results["P13"]["result"]
    assert shown["extension_written_by_model"] is True and shown["loaded_after_reload"] is False
    assert shown["interactive_reload_saved_trust"] is False and shown["trust_json_answer"] is None
    assert shown["next_start_trusted_despite_never"] is False

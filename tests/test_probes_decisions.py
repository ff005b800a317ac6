"""The 12 decisions of the summary page are demonstrated by running pi, and each probe can fail.

Each decision's probe runs pi 1.6.0 (installed from the registry into a session cache) and must
hold. With ``PROBE_COUNTER=1`` each probe (E8 aside) switches in a setup where its claim is false:
an extension that asks and blocks (D1), a runner that asks every handler (D2), `defaultProjectTrust:
always` (D7), a before-settle handler that goes on (G1), a cut-off reply labelled an error (G4),
`--mode json` (A16), an extension that adds a timeout (E9), a reserve one token larger (F1), a
summary cut at its length limit (F5), a handler that blocks every call (C1), sequential tool
execution (E3). The probe must then fail, on the keys that carry the claim. E8 fails at pi 0.79.8,
which still rewrote a whole file in normalized form after a near match (issue 5899).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import probe_json

pytestmark = pytest.mark.network

DECISIONS = ["D1", "D2", "D7", "G1", "G4", "A16", "E9", "F1", "F5", "C1", "E3", "E8"]

# For each decision with a counter-setup, result keys that must flip when its claim is false.
FLIPS = {
    "D1": {"asked": 1, "ran": False},
    "D2": {"later_handler_asked": True},
    "D7": {"prompt_asked": 0, "closed_prompt_untrusted_unsaved": False, "no_ui_trusted": True},
    "G1": {"requests_tool_call_then_text": 3},
    "G4": {"length_turn_end": "error", "length_before_settle": "error"},
    "A16": {"error_exit": 0, "aborted_exit": 0, "length_exit": 0},
    "E9": {"no_timeout_timers_armed": 1},
    "F1": {"session_at_line_compacted": True},
    "F5": {"summary_is_reply_then_files": False, "compactions_saved": 1},
    "C1": {"valid_calls_ran": False},
    "E3": {"default_mode": "sequential", "finish_order": "slow,quick"},
}


@pytest.fixture
def decisions(pi_map_with_probes: Path) -> Path:
    return pi_map_with_probes


def test_every_summary_decision_holds_when_pi_runs_at_the_pin(decisions: Path) -> None:
    code, results = probe_json(decisions, *DECISIONS)
    assert sorted(results) == sorted(DECISIONS)
    assert code == 0, {i: r.get("message") for i, r in results.items() if r["status"] != "holds"}
    # What a user would notice, read off the results rather than only the expect lists.
    r = {i: results[i]["result"] for i in DECISIONS}
    assert r["D1"]["asked"] == 0 and r["D1"]["ran"] and not r["D1"]["ran_with_blocking_handler"]
    assert r["D2"]["model_told"] == "first says no" and not r["D2"]["later_handler_asked"]
    assert r["D7"]["prompt_asked"] == 1 and not r["D7"]["print_mode_loaded_project_extension"]
    assert r["G1"]["requests_tool_call_then_text"] == 2
    assert r["G4"]["length_turn_end"] == "completed"
    assert r["A16"]["error_exit"] == 1 and r["A16"]["error_stdout_empty"]
    assert r["E9"]["no_timeout_timers_armed"] == 0 and r["E9"]["timeout_timer_ms"] == 400
    assert not r["F1"]["session_at_line_compacted"] and r["F1"]["session_one_over_compacted"] == "threshold"
    assert r["F5"]["compactions_saved"] == 2
    assert r["C1"]["valid_calls_ran"] and not r["C1"]["cut_off_reply_call_ran"]
    assert r["E3"]["finish_order"] == "quick,slow" and r["E3"]["result_order"] == "slow,quick"
    assert r["E8"]["untouched_line_kept"] and not r["E8"]["tabs_vs_spaces_matched"]


def test_every_summary_decision_probe_fails_where_its_claim_is_false(decisions: Path) -> None:
    ids = sorted(FLIPS)
    code, results = probe_json(decisions, *ids, env={"PROBE_COUNTER": "1"})
    assert code == 1
    for decision, flipped in FLIPS.items():
        assert results[decision]["status"] == "fails", (decision, results[decision])
        for key, value in flipped.items():
            assert results[decision]["result"][key] == value, (decision, key, results[decision]["result"])


def test_e8_fails_at_pi_0_79_8_where_a_near_match_rewrote_the_whole_file(decisions: Path) -> None:
    code, results = probe_json(decisions, "--target", "0.79.8", "E8")
    assert code == 1
    assert results["E8"]["status"] == "fails"
    assert results["E8"]["result"]["near_match_applied"] is True
    assert results["E8"]["result"]["untouched_line_kept"] is False

"""Where the suite's own folders go (tests/conftest.py): memory only where there is room for a run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import conftest


def test_a_folder_that_is_not_a_tmpfs_of_its_own_is_passed_over(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "MEMORY_ROOT", tmp_path)  # a plain folder, not a mount point
    monkeypatch.setattr(conftest, "MEMORY_ROOT_ROOM", 0)
    assert conftest.in_memory_root() is None


def test_a_tmpfs_without_room_for_a_run_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    # a container's /dev/shm is 64 MB: here, asking for more than the whole of /dev/shm
    room = os.statvfs(conftest.MEMORY_ROOT)
    monkeypatch.setattr(conftest, "MEMORY_ROOT_ROOM", room.f_blocks * room.f_frsize + 1)
    assert conftest.in_memory_root() is None


def test_a_missing_folder_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "MEMORY_ROOT", tmp_path / "nowhere")
    monkeypatch.setattr(conftest, "MEMORY_ROOT_ROOM", 0)
    assert conftest.in_memory_root() is None

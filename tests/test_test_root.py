"""Where the suite's folders and the mutation run's copies go (tests/memory_root.py): memory only
where it is a tmpfs with room."""

from __future__ import annotations

import os
from pathlib import Path

from memory_root import MEMORY, in_memory_root


def test_a_folder_that_is_not_a_tmpfs_of_its_own_is_passed_over(tmp_path: Path) -> None:
    assert in_memory_root(0, tmp_path) is None  # a plain folder, even one inside a tmpfs


def test_a_tmpfs_without_room_is_passed_over() -> None:
    # a container's /dev/shm is 64 MB: here, more than the whole of this machine's is asked for
    whole = os.statvfs(MEMORY)
    assert in_memory_root(whole.f_blocks * whole.f_frsize + 1) is None


def test_a_missing_folder_is_passed_over(tmp_path: Path) -> None:
    assert in_memory_root(0, tmp_path / "nowhere") is None

"""Build the site with MkDocs into a fresh folder, then put it in place of the old one.

A failed build (a bad entry, a drifted citation, a broken link in strict mode) leaves the
previous site exactly as it was: the new site is built beside it and swapped in only when done.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from ..errors import DecisionMapError, SiteError


def build_site(config: Path, site_dir: Path | None = None, *, quiet: bool = False) -> Path:
    """Build the MkDocs site of ``config`` (a mkdocs.yml) into ``site_dir`` and return it.

    ``site_dir`` defaults to the ``site_dir`` of ``config``. Errors in the decision map are
    raised as they are (:class:`InputError`, :class:`DriftError`, :class:`FetchError`), with
    every problem in them; anything else MkDocs refuses becomes a :class:`SiteError`.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError, MkDocsException

    from .plugin import DecisionMapPlugin

    config = Path(config)
    if not config.is_file():
        raise SiteError(f"{config}: no such file; pass the site's mkdocs.yml")
    mkdocs_log = logging.getLogger("mkdocs")
    level = mkdocs_log.level
    captured = _Captured()
    mkdocs_log.addHandler(captured)
    staging: Path | None = None
    try:
        try:
            settings = load_config(str(config))
        except (ConfigurationError, Abort) as err:
            raise SiteError(f"{config}: {err}") from None
        final = Path(site_dir) if site_dir is not None else Path(settings.site_dir)
        final = final.resolve()
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}-build-", dir=final.parent))
        os.chmod(staging, 0o777 & ~_umask())  # mkdtemp makes it private; a site is for serving
        settings.site_dir = str(staging)
        # Load, verify and render before MkDocs starts, so a bad map is reported as itself,
        # one problem per line, rather than as MkDocs' "Aborted with a BuildError".
        for plugin in settings.plugins.values():
            if isinstance(plugin, DecisionMapPlugin):
                plugin.prepare(settings)
        if quiet:
            mkdocs_log.setLevel(logging.WARNING)
        try:
            build(settings)
        except (Abort, MkDocsException) as err:
            detail = "; ".join(captured.messages) or str(err)
            raise SiteError(f"mkdocs could not build the site: {detail}") from None
        _swap(staging, final)
        staging = None
        return final
    except DecisionMapError:
        raise
    except OSError as err:
        raise SiteError(f"cannot write the site: {err}") from None
    finally:
        mkdocs_log.removeHandler(captured)
        mkdocs_log.setLevel(level)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _swap(new: Path, final: Path) -> None:
    """Put ``new`` where ``final`` is; the old folder is removed only once the new one is in place."""
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}-old-", dir=final.parent))
        os.rename(final, old / final.name)
    try:
        os.rename(new, final)
    except OSError:
        if old is not None:  # put the previous site back
            os.rename(old / final.name, final)
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


class _Captured(logging.Handler):
    """Keeps MkDocs' warnings and errors, to say why a build was aborted (strict mode aborts on
    warnings, and its own message only counts them)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

"""Fetching pi's (and extensions') pinned source: npm tarballs and git tags, cached."""

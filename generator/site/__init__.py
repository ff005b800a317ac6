"""The site: pages, search index, templates and the MkDocs plugin."""

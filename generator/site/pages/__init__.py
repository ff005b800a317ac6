"""The site's pages, built in two steps: views (what a page shows, computed once per map from
the loaded, verified map) and templates (``generator/site/templates``) that write them as Markdown.

- :mod:`.views`: a map's cards, groups, overlays, census and the facts a reader is told about
  each entry (who decides, who can overrule, whether a problem is fixed, the review, the probe);
- :mod:`.editions`: what each edition changed, with the old and new code of what drifted;
- :mod:`.diagram`: the agent's loop as an inline SVG, each decision a link to its page;
- :mod:`.environment`: the Jinja2 environments and the escaping filters the templates use.

:mod:`generator.site.render` is the entry point: it says which page comes from which template.
"""

"""Output formats: each module turns diagnostics into one format's text."""

from seedlint.report import full, github, json_format, sarif, statistics, text

FORMATS = {
    "concise": text.render,
    "full": full.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}

__all__ = ["FORMATS", "statistics"]

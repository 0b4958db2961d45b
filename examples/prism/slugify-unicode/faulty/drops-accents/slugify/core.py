"""URL slugs."""

import re


def slugify(text):
    """A URL slug: ASCII letters and digits, lower case, words joined by single hyphens."""
    ascii_text = text.encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    return "-".join(words)

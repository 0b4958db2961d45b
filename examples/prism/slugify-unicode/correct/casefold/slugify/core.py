"""URL slugs."""

import unicodedata


def slugify(text):
    """A URL slug built from casefolded, decomposed text (so "ß" becomes "ss")."""
    out = []
    pending = False
    for ch in unicodedata.normalize("NFKD", text.casefold()):
        if ch.isascii() and ch.isalnum():
            if pending and out:
                out.append("-")
            out.append(ch)
            pending = False
        elif ch.isascii():
            pending = True
    return "".join(out)

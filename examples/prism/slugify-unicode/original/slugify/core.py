"""URL slugs."""


def slugify(text):
    """Lower-case `text` and join its words with hyphens."""
    return "-".join(text.lower().split(" "))

"""Counted nouns in what assay prints: "1 file", "2 files", in one place so that no message reads
"1 files"."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, plural unless `n` is 1 (`plural` where adding "s" is wrong)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"

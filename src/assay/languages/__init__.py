"""The languages assay knows, by name. Adding a language = one module defining a `Language` + one
line here."""

from __future__ import annotations

from pathlib import Path

from assay.config import names
from assay.languages.base import Language, Toolchain, WritePlan
from assay.languages.csharp import CSHARP
from assay.languages.go import GO
from assay.languages.java import JAVA
from assay.languages.javascript import JAVASCRIPT
from assay.languages.python import PYTHON
from assay.languages.rust import RUST
from assay.languages.typescript import TYPESCRIPT

LANGUAGES: dict[str, Language] = {
    "python": PYTHON,
    "java": JAVA,
    "go": GO,
    "rust": RUST,
    "typescript": TYPESCRIPT,
    "javascript": JAVASCRIPT,
    "csharp": CSHARP,
}
names.register(
    names.TOOL_SECTION, lambda: [n for n, lang in LANGUAGES.items() if lang.tool_section]
)

__all__ = ["LANGUAGES", "Language", "Toolchain", "WritePlan", "language_of"]


def language_of(path: Path | str, root: Path | None = None) -> Language | None:
    """The language of a file from its extension; where several claim it, the one whose build file
    is nearest above it (below `root`)."""
    rel = str(path)
    owners = [lang for lang in LANGUAGES.values() if lang.owns(rel)]
    if len(owners) <= 1 or root is None:
        return owners[0] if owners else None
    here = Path(path).resolve().parent
    for d in (here, *here.parents):
        for lang in owners:
            if any((d / b).exists() for b in lang.build_files):
                return lang
        if d == root:
            break
    return owners[0]

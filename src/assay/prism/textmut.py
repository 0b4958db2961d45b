"""A minimal set of text mutation operators, for languages gate 4's engine does not parse.

Relational, equality, boolean, arithmetic and literal swaps on given lines only; comments and
strings are not recognised, so the validator is what sorts useful mutants from the rest (only killed
ones are kept).
"""

from __future__ import annotations

import re

from assay.mutation.model import Mutant

SWAPS = {
    "<=": "<",
    ">=": ">",
    "<": "<=",
    ">": ">=",
    "==": "!=",
    "!=": "==",
    "&&": "||",
    "||": "&&",
    "+": "-",
    "-": "+",
    "true": "false",
    "false": "true",
    "True": "False",
    "False": "True",
}
TOKEN = re.compile(
    r"<=|>=|==|!=|&&|\|\||(?<![<>=!\-+])[<>](?![=<>])|(?<![+\-=])[+\-](?![+\-=>])"
    r"|\b(?:true|false|True|False)\b|\b\d+\b"
)


def mutants(rel: str, text: str, lines: set[int]) -> list[Mutant]:
    """Mutants of `text` on the given 1-based lines, in source order."""
    out: list[Mutant] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if number in lines:
            for m in TOKEN.finditer(line):
                token = m.group(0)
                replacement = str(int(token) + 1) if token.isdigit() else SWAPS[token]
                start, end = offset + m.start(), offset + m.end()
                after = line[: m.start()] + replacement + line[m.end() :]
                out.append(
                    Mutant(
                        id=f"{rel}#{len(out) + 1}",
                        file=rel,
                        operator="text-swap",
                        start=start,
                        end=end,
                        line=number,
                        col=m.start(),
                        end_line=number,
                        end_col=m.end(),
                        original=token,
                        replacement=replacement,
                        function="<module>",
                        stmt_line=number,
                        before=line.strip(),
                        after=after.strip(),
                    )
                )
        offset += len(line)
    return out

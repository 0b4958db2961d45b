"""The test file in a model's answer, or why there is none: no code block, a truncated one,
the wrong language. Each problem is a reject with feedback the writer can act on, never a
crash. What a language's code block and tests look like are its own facts
(`Language.fences`, `Language.test_mark`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.languages import LANGUAGES, Language

FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)
FALLBACK = "python"  # the language of an answer whose language has no fences of its own


def _language(name: str) -> Language:
    lang = LANGUAGES.get(name)
    return lang if lang is not None and lang.fences else LANGUAGES[FALLBACK]


def fence_for(language: str) -> str:
    """The code block tag an answer in `language` is asked for (`python`, `go`, `ts` ...)."""
    return _language(language).fences[0]


HEADER = "REJECT: ANSWER — {what}"


@dataclass
class Extracted:
    code: str | None
    rationale: str
    problem: str | None = None  # feedback text when `code` is None


def _blocks(text: str) -> tuple[list[tuple[str, str]], bool]:
    """Fenced blocks as (language tag, body), and whether the last fence was left open."""
    blocks: list[tuple[str, str]] = []
    open_tag, open_at, fence = "", -1, ""
    for m in FENCE.finditer(text):
        if open_at < 0:
            open_tag, open_at, fence = m.group(2).lower(), m.end(), m.group(1)
        elif m.group(1).startswith(fence[0]) and len(m.group(1)) >= len(fence) and not m.group(2):
            blocks.append((open_tag, text[open_at : m.start()].strip("\n")))
            open_at = -1
    if open_at >= 0:
        blocks.append((open_tag, text[open_at:].strip("\n")))
    return blocks, open_at >= 0


def _problem(what: str, body: str, hint: str) -> str:
    return "\n".join([HEADER.format(what=what), body, hint])


def extract(text: str, finish: str = "stop", language: str = "python") -> Extracted:
    """The largest block of the language (preferring one with tests) of an answer; the text around
    it is the rationale."""
    lang = _language(language)
    fence, tags = lang.fences[0], {"", *lang.fences}
    name = (
        language
        if language == FALLBACK
        else LANGUAGES[language].title
        if language in LANGUAGES
        else language.capitalize()
    )
    blocks, left_open = _blocks(text)
    outside = FENCE.sub("", text)
    for _, body in blocks:
        outside = outside.replace(body, "")
    rationale = " ".join(outside.split())[:600]
    if not text.strip():
        return Extracted(
            None,
            "",
            _problem(
                "EMPTY",
                "The answer was empty.",
                f"Answer with the complete test file in one ```{fence} code block.",
            ),
        )
    matching = [(tag, body) for tag, body in blocks if tag in tags]
    if not blocks:
        return Extracted(
            None,
            rationale,
            _problem(
                "NO CODE BLOCK",
                "The answer has no fenced code block.",
                f"Answer with the complete test file in one ```{fence} "
                f"code block, then one line: Rationale: ...",
            ),
        )
    if not matching:
        found = ", ".join(sorted({tag for tag, _ in blocks}))
        return Extracted(
            None,
            rationale,
            _problem(
                "WRONG LANGUAGE",
                f"The code blocks are in {found}, not {name}.",
                f"Write the tests in {name}"
                + (" (pytest)" if language == "python" else "")
                + f", in one ```{fence} code block.",
            ),
        )
    with_tests = [b for b in matching if re.search(lang.test_mark, b[1], re.MULTILINE)]
    tag, code = max(with_tests or matching, key=lambda b: len(b[1]))
    truncated = finish == "length" or (left_open and code == blocks[-1][1])
    if truncated:
        lines = code.count("\n") + 1
        return Extracted(
            None,
            rationale,
            _problem(
                "TRUNCATED",
                f"The answer was cut off after {lines} lines of code (output limit reached).",
                "Write a shorter file: fewer, focused tests; no comments that restate the code.",
            ),
        )
    return Extracted(code.rstrip() + "\n", rationale)

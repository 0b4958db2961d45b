"""The test file in a model's answer, or why there is none: no code block, a truncated one,
the wrong language. Each problem is a reject with feedback the writer can act on, never a
crash. What a language's code block and tests look like are its own facts
(`Language.fences`, `Language.test_mark`)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from assay.languages import LANGUAGES, Language

FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)
# a model's closing words inside the code block: `# Rationale: ...`, `Rationale: ...`
TRAILER = re.compile(r"^\s*(#+|//+)?\s*\**(rationale|explanation)\**\s*:", re.IGNORECASE)
TEST_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|func|fn|void|public void)\s+(\w+)", re.MULTILINE)
CODE_START = re.compile(r"^(import |from |def |class |@|package |using |#include|use )", re.M)
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


def _blocks(text: str) -> list[tuple[str, str]]:
    """Fenced blocks as (language tag, body); a fence left open runs to the end of the answer
    (small models stop without closing it)."""
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
    return blocks


def _unfenced(text: str, test_mark: str) -> list[tuple[str, str]]:
    """An answer of bare code (no fence at all): from its first line of code on, when it has
    tests."""
    if not re.search(test_mark, text, re.MULTILINE):
        return []
    start = CODE_START.search(text)
    return [("", text[start.start() :].strip("\n"))] if start else []


def _problem(what: str, body: str, hint: str) -> str:
    return "\n".join([HEADER.format(what=what), body, hint])


def extract(text: str, finish: str = "stop", language: str = "python") -> Extracted:
    """The test file in an answer, read leniently (a fence left open, no language tag, a file
    split over several blocks, prose or a `Rationale:` line after the code); the text around it is
    the rationale. Only the server's `finish == "length"` makes an answer truncated."""
    lang = _language(language)
    fence, tags = lang.fences[0], {"", *lang.fences}
    name = (
        language
        if language == FALLBACK
        else LANGUAGES[language].title
        if language in LANGUAGES
        else language.capitalize()
    )
    blocks = _blocks(text) or _unfenced(text, lang.test_mark)
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
    code = _pick(matching, lang.test_mark, language)
    if finish == "length":
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
    if lang.test_mark and not re.search(lang.test_mark, code, re.MULTILINE):
        return Extracted(
            None,
            rationale,
            _problem(
                "NO TESTS",
                "The code block has no test: it repeats or rewrites the code under test.",
                f"Write {name} tests that import the code under test as shown and call it; do not "
                "copy the code into the test file.",
            ),
        )
    code, trailer = _trim(code, language)
    if trailer:
        rationale = " ".join(f"{rationale} {trailer}".split())[:600]
    return Extracted(code.rstrip() + "\n", rationale)


def _pick(blocks: list[tuple[str, str]], test_mark: str, language: str) -> str:
    """The test file in the answer's blocks: the largest block with tests, or (Python) the parts
    of a file split over several blocks (imports in one, tests in the next) joined, unless they
    repeat one another (a file, then a corrected copy)."""
    with_tests = [body for _, body in blocks if re.search(test_mark, body, re.MULTILINE)]
    if not with_tests:
        return max((body for _, body in blocks), key=len)
    names = [set(TEST_DEF.findall(body)) for _, body in blocks]
    repeated = sum(len(n) for n in names) != len(set().union(*names))
    joined = "\n\n\n".join(body.strip("\n") for _, body in blocks)
    if len(blocks) == 1 or repeated or language != "python" or not _parses(joined):
        return max(reversed(with_tests), key=len)
    return joined


def _trim(code: str, language: str) -> tuple[str, str]:
    """The code without what a model appends inside the block (a `Rationale:` line, commented or
    not; a sentence of prose after the last test), and the text removed."""
    lines = code.splitlines()
    last = max((i for i, ln in enumerate(lines) if TEST_DEF.match(ln)), default=0)
    cut = next((i for i, ln in enumerate(lines) if i > last and TRAILER.match(ln)), len(lines))
    code, trailer = "\n".join(lines[:cut]), "\n".join(lines[cut:])
    if language != "python" or _parses(code):
        return code, _uncomment(trailer)
    lines = code.splitlines()
    # unindented prose after the code: the longest prefix that parses, if what follows it is
    # not code (its first line does not parse on its own)
    for end in range(len(lines) - 1, max(0, len(lines) - 15), -1):
        head, tail = "\n".join(lines[:end]), lines[end:]
        if tail[0][:1].isalpha() and not _parses(tail[0]) and _parses(head):
            return head, _uncomment("\n".join(tail + [trailer]))
    return code, _uncomment(trailer)


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _uncomment(text: str) -> str:
    return " ".join(ln.strip().lstrip("#/").strip() for ln in text.splitlines())

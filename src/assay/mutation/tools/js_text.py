"""A StrykerJS mutant's code as the source writes it. Stryker's `replacement` is Babel's printing
of the mutated node alone, which keeps only the parentheses precedence needs and its own quotes
and spacing: `a && (b || c)` with `&&` swapped reads `a || b || c`, and the survivor feedback
showed code the mutant never had. The source's own text is kept wherever the printed code only
reformats it (parentheses dropped, quotes, spaces); what the mutant changed is Babel's.
"""

from __future__ import annotations

import difflib
import itertools
import re

# strings and template literals without substitutions, numbers, names, punctuators (longest first)
_TOKEN = re.compile(
    r"""'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\$])*`|"""
    r"""\d[\w.]*|[A-Za-z_$][\w$]*|>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|\?\?=|&&=|\|\|=|"""
    r"""=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\+\+|--|\*\*|<<|>>|[-+*/%&|^]=|\S""",
    re.S,
)
_NAME = re.compile(r"[\w$]")


def _grouping(tokens: list[str]) -> dict[int, int]:
    """The parentheses that only group, each index to its partner's: a `(` after an operator or
    at the start, and its `)`, unless an arrow's parameters (`) =>`); a call's, `if (`'s or
    `return (`'s are kept."""
    out: dict[int, int] = {}
    stack: list[int | None] = []
    for i, tok in enumerate(tokens):
        if tok == "(":
            prev = tokens[i - 1] if i else ""
            grouping = not (prev in (")", "]", "}") or _NAME.match(prev[:1] or " "))
            stack.append(i if grouping else None)
        elif tok == ")" and stack:
            opened = stack.pop()
            if opened is not None and tokens[i + 1 : i + 2] != ["=>"]:
                out |= {opened: i, i: opened}
    return out


def _widened(pairs: dict[int, int], first: int, last: int) -> tuple[int, int]:
    """Tokens `first..last` (indexes in the whole list) and the grouping parentheses that go
    with them: those whose partner lies inside, and those wrapping them whole. Replacing
    `!(this instanceof Router)` by `false` left its `)` behind: `if (false)) {`."""
    while True:
        before = [pairs[i] for i in range(first, last + 1) if pairs.get(i, first) < first]
        after = [pairs[i] for i in range(first, last + 1) if pairs.get(i, last) > last]
        if pairs.get(first - 1) == last + 1:
            before, after = [first - 1], [last + 1]
        if not before and not after:
            return first, last
        first, last = min([first, *before]), max([last, *after])


def _key(token: str) -> str:
    """What a token means: a string's text whatever its quotes."""
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"`":
        return "s:" + token[1:-1].replace("\\'", "'").replace('\\"', '"')
    return token


def _comment(tokens: list[str]) -> bool:
    return any(a == "/" and b in ("/", "*", "*=") for a, b in itertools.pairwise(tokens))


def _tokens(code: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(code))


def exact_replacement(original: str, printed: str) -> str:
    """`printed` (Babel's code of the mutated node) in `original`'s own text: the tokens both
    have, compared without grouping parentheses, are written as `original` writes them (its
    parentheses, quotes and spaces); the tokens that differ are `printed`'s. Text the tokens do
    not cover (a comment) gives `printed` back."""
    if not original or not printed:
        return printed
    old, new = _tokens(original), _tokens(printed)
    every = [t.group() for t in old]
    if "".join(every) != "".join(original.split()) or not new or _comment(every):
        return printed  # a comment or text the tokenizer does not know: leave Babel's
    whole = old
    pairs = _grouping([t.group() for t in old])
    drop_new = _grouping([t.group() for t in new])
    index = [i for i in range(len(old)) if i not in pairs]  # `old`'s tokens in `whole`
    old = [whole[i] for i in index]
    new = [t for i, t in enumerate(new) if i not in drop_new]
    if not old or not new:
        return printed
    keys_old, keys_new = [_key(t.group()) for t in old], [_key(t.group()) for t in new]
    out: list[str] = []
    pos = 0  # how far `original` is written out

    def take(upto: int) -> None:
        nonlocal pos
        out.append(original[pos:upto])
        pos = upto

    def skip(upto: int) -> None:
        nonlocal pos
        pos = upto

    matcher = difflib.SequenceMatcher(a=keys_old, b=keys_new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            take(old[i2 - 1].end())
            continue
        if i1 < i2:  # the original's tokens this change removes or replaces
            first, last = _widened(pairs, index[i1], index[i2 - 1])
            take(max(pos, whole[first].start()))
            skip(whole[last].end())
        else:
            take(old[i1].start() if i1 < len(old) else len(original))
        if j1 < j2:
            text = printed[new[j1].start() : new[j2 - 1].end()]
            before = " " if out and out[-1][-1:].isalnum() and text[:1].isalnum() else ""
            after = " " if text[-1:].isalnum() and original[pos : pos + 1].isalnum() else ""
            out.append(before + text + after)
    take(len(original))
    exact = "".join(out)
    opened = [t.group() for t in _tokens(exact)]
    if opened.count("(") != opened.count(")"):
        return printed  # a parenthesis left without its partner: Babel's text
    # the same tokens as Babel's (only spaces differ: a body emptied to `{}`): Babel's text
    same = [t.group() for t in _tokens(exact)] == [t.group() for t in _tokens(printed)]
    return printed if same else exact

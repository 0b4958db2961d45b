"""Where the operators apply: the walk of a module's AST that yields each mutant as an exact text
edit, and what it never mutates.

Each finding is an exact text edit (character span + replacement) so that the report's `replacement`
reproduces the mutant on disk. Operator tokens (`+`, `and`, `+=`) have no AST position, so they are
found in the text between the operands, skipping blanks, parentheses and comments.

Never mutated: docstrings, annotations and type expressions outside them
(`typing.Callable[["State"], int]` in a type alias; `Literal[...]` and `Annotated[...]` are values
at run time and are mutated), `__all__`, logging calls, f-strings, `if __name__ == "__main__"`
blocks, `@overload` signatures, `if TYPE_CHECKING` tests, comparisons with the running interpreter
or platform (`sys.version_info >= (3, 14)`, `sys.platform == "win32"`, `os.name`), and lines
marked `# pragma: no mutate` / `# assay: no mutate`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from assay._assay_sandbox.mutation.entries import overload_stub
from assay.mutation.operators import (
    ARITHMETIC,
    AUGMENTED,
    BOUNDARY,
    NEGATION,
    constant_replacement,
)

LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
_SKIP = re.compile(r"(?:\s|[()]|\\\n|#[^\n]*)*")


@dataclass(frozen=True)
class Edit:
    operator: str
    start: int  # character offsets into the module text
    end: int
    replacement: str
    # enclosing defs, innermost first: (name, first line, qualname)
    chain: tuple[tuple[str, int, str], ...]


class _Positions:
    """AST positions (line, UTF-8 byte column) to character offsets."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(i + 1)
        self.lines = text.split("\n")

    def offset(self, line: int, col_bytes: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:col_bytes]
        return self.starts[line - 1] + len(raw.decode("utf-8", "replace"))

    def start(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return ""


def _is_logging_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    receiver = _dotted(node.func.value).lower()
    return node.func.attr in LOG_METHODS and "log" in receiver.rsplit(".", 1)[-1]


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _targets_all(stmt: ast.stmt) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


_TYPE_FORMS = {
    "Union",
    "Optional",
    "Callable",
    "List",
    "Dict",
    "Set",
    "FrozenSet",
    "Tuple",
    "Type",
    "ClassVar",
    "Final",
    "Iterable",
    "Iterator",
    "Sequence",
    "Mapping",
    "MutableMapping",
    "MutableSequence",
    "Generator",
    "AsyncGenerator",
    "AsyncIterator",
    "AsyncIterable",
    "Awaitable",
    "Coroutine",
    "Collection",
    "Container",
    "DefaultDict",
    "OrderedDict",
    "Counter",
    "Deque",
    "TypeGuard",
    "Required",
    "NotRequired",
    "Concatenate",
    "Unpack",
}


def _is_type_expression(node: ast.expr) -> bool:
    """`typing.Union[...]`, `Optional["Node"]`: what it holds only matters to type checkers."""
    if not isinstance(node, ast.Subscript):
        return False
    name = _dotted(node.value)
    module, _, form = name.rpartition(".")
    return form in _TYPE_FORMS and module in (
        "",
        "typing",
        "typing_extensions",
        "t",
        "tp",
        "collections.abc",
    )


# what the running interpreter and platform are: one run of the tests sees one value of each
RUNNING = ("sys.version_info", "sys.platform", "sys.implementation", "os.name", "platform.")


def _reads_running(node: ast.expr) -> bool:
    """A comparison with `sys.version_info` (`sys.version_info[:2]`, `.major`), `sys.platform`,
    `os.name`, `platform.system()`, ...: async_lru 2.4.0's `if sys.version_info >= (3, 14):` gave
    ten survivors to each of its files on 3.11 (`> (3, 14)`, `>= (3, 15)`, `if True:`), which no
    test run on one interpreter can tell apart."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return _dotted(node).startswith(RUNNING)


def _is_environment(test: ast.expr) -> bool:
    """A test of what runs the code, not of its input: every part compares or asks the running
    interpreter or platform (`sys.platform.startswith("win")`)."""
    if isinstance(test, ast.BoolOp):
        return all(_is_environment(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_environment(test.operand)
    if isinstance(test, ast.Compare):
        return any(_reads_running(x) for x in [test.left, *test.comparators])
    return isinstance(test, ast.Call) and _reads_running(test.func)


def _is_fixed(test: ast.expr) -> bool:
    """A test that is the same in every run of the tests: `if TYPE_CHECKING`, or one of the
    interpreter or platform. Its mutants only change what no test run can see."""
    return _dotted(test).endswith("TYPE_CHECKING") or _is_environment(test)


# enclosing defs, innermost first: (name, first line, qualname)
Chain = tuple[tuple[str, int, str], ...]


class Finder:
    """Walks a module and yields `Edit`s; `chain` tracks the enclosing function definitions."""

    def __init__(self, text: str):
        self.text = text
        self.pos = _Positions(text)

    def find(self, tree: ast.Module) -> Iterator[Edit]:
        yield from self._body(tree.body, (), "")

    # --- helpers -------------------------------------------------------------------------------
    def _token(self, lo: int, hi: int, pattern: str) -> tuple[int, int] | None:
        """Span of the operator `pattern` (regex) at the first token after `lo`, before `hi`."""
        skipped = _SKIP.match(self.text, lo, hi)  # matches the empty string at least
        at = skipped.end() if skipped else lo
        m = re.compile(pattern).match(self.text, at, hi)
        return (m.start(), m.end()) if m else None

    # --- statements ----------------------------------------------------------------------------
    def _body(self, body: list[ast.stmt], chain: Chain, qual: str) -> Iterator[Edit]:
        for i, stmt in enumerate(body):
            if i == 0 and _is_docstring(stmt):
                continue
            yield from self._stmt(stmt, chain, qual)

    def _def(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, chain: Chain, qual: str
    ) -> Iterator[Edit]:
        for dec in node.decorator_list:
            yield from self._expr(dec, chain)
        args = node.args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            yield from self._expr(default, chain, default_arg=True)
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        name = f"{qual}{node.name}"
        inner = ((node.name, first, name), *chain)
        yield from self._body(node.body, inner, f"{name}.<locals>.")

    def _stmt(self, node: ast.stmt, chain: Chain, qual: str) -> Iterator[Edit]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not overload_stub(node):  # a signature for type checkers: it never runs
                yield from self._def(node, chain, qual)
            return
        if isinstance(node, ast.ClassDef):
            for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
                yield from self._expr(expr, chain)
            yield from self._body(node.body, chain, f"{qual}{node.name}.")
            return
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and _targets_all(node):
            return
        if isinstance(node, ast.If) and _is_main_guard(node.test):
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Yield, ast.YieldFrom)):
            yield from self._yield(node.value, chain)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            if _is_logging_call(node.value):
                return
            yield Edit("call_removal", self.pos.start(node), self.pos.end(node), "None", chain)
        elif isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                yield Edit(
                    "return_value",
                    self.pos.start(value),
                    self.pos.end(value),
                    repr(not value.value),
                    chain,
                )
                return
            if not (isinstance(value, ast.Constant) and value.value is None):
                yield Edit(
                    "return_value", self.pos.start(value), self.pos.end(value), "None", chain
                )
        elif isinstance(node, ast.AugAssign) and type(node.op) in AUGMENTED:
            token, swapped = AUGMENTED[type(node.op)]
            span = self._token(
                self.pos.end(node.target), self.pos.start(node.value), re.escape(token)
            )
            if span:
                yield Edit("augmented_assignment", *span, swapped, chain)
                yield Edit("augmented_assignment", *span, "=", chain)
        elif isinstance(node, (ast.Break, ast.Continue)):
            swapped = "continue" if isinstance(node, ast.Break) else "break"
            yield Edit("break_continue", self.pos.start(node), self.pos.end(node), swapped, chain)
        elif isinstance(node, (ast.If, ast.While)) and not _is_fixed(node.test):
            test = node.test
            forced = ("False",) if isinstance(node, ast.While) else ("True", "False")
            if not isinstance(test, ast.Constant):
                for forced_value in forced:
                    yield Edit(
                        "condition", self.pos.start(test), self.pos.end(test), forced_value, chain
                    )
        yield from self._children(node, chain, qual)

    def _yield(self, node: ast.Yield | ast.YieldFrom, chain: Chain) -> Iterator[Edit]:
        """A generator's `return`: `yield x` -> `yield None`, `yield from xs` -> `yield from ()`
        (a generator such as `butlast` has often no other mutant: its tests would judge nothing)."""
        value = node.value
        empty = "None" if isinstance(node, ast.Yield) else "()"
        if value is None or ast.unparse(value) == empty:
            return
        yield Edit("yield_value", self.pos.start(value), self.pos.end(value), empty, chain)

    def _children(self, node: ast.AST, chain: Chain, qual: str) -> Iterator[Edit]:
        for fname, value in ast.iter_fields(node):
            if fname in ("annotation", "returns", "type_comment"):
                continue
            if isinstance(node, ast.If) and fname == "test" and _is_fixed(node.test):
                continue
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.stmt):
                    yield from self._stmt(item, chain, qual)
                elif isinstance(item, ast.expr):
                    yield from self._expr(item, chain)
                elif isinstance(
                    item,
                    (
                        ast.excepthandler,
                        ast.match_case,
                        ast.withitem,
                        ast.comprehension,
                        ast.keyword,
                    ),
                ):
                    yield from self._children(item, chain, qual)

    # --- expressions ---------------------------------------------------------------------------
    def _expr(self, node: ast.expr, chain: Chain, default_arg: bool = False) -> Iterator[Edit]:
        if isinstance(node, ast.JoinedStr) or _is_logging_call(node) or _is_type_expression(node):
            return
        pos = self.pos
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            token, swapped = ARITHMETIC[type(node.op)]
            span = self._token(
                pos.end(node.left), pos.start(node.right), re.escape(token) + r"(?![*/=])"
            )
            if span:
                yield Edit("arithmetic", *span, swapped, chain)
        elif isinstance(node, ast.Compare):
            if _is_environment(node):  # `PY314 = sys.version_info >= (3, 14)`, a ternary's test
                return
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                table, name = (
                    (BOUNDARY, "comparison_boundary")
                    if type(op) in BOUNDARY
                    else (NEGATION, "comparison_negation")
                )
                pattern, swapped = table[type(op)]
                pattern = pattern if table is NEGATION else re.escape(pattern) + r"(?!=)"
                span = self._token(pos.end(left), pos.start(right), pattern)
                if span:
                    yield Edit(name, *span, swapped, chain)
                left = right
        elif isinstance(node, ast.BoolOp):
            word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for a, b in zip(node.values, node.values[1:], strict=False):
                span = self._token(pos.end(a), pos.start(b), word + r"\b")
                if span:
                    yield Edit("boolean_operator", *span, other, chain)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start = pos.start(node)
            m = re.compile(r"not\s*").match(self.text, start)
            if m:
                yield Edit("not_removal", start, m.end(), "", chain)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            start = pos.start(node)
            if self.text.startswith("-", start):
                yield Edit("unary_minus_removal", start, start + 1, "", chain)
        elif isinstance(node, ast.Constant):
            new = constant_replacement(node.value)
            if new is not None:
                if default_arg:
                    name = "default_argument"
                elif isinstance(node.value, bool):
                    name = "boolean_literal"
                elif isinstance(node.value, (str, bytes)):
                    name = "string"
                else:
                    name = "number"
                yield Edit(name, pos.start(node), pos.end(node), new, chain)
            return
        if isinstance(node, ast.Lambda):
            for d in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                yield from self._expr(d, chain, default_arg=True)
            yield from self._expr(node.body, chain)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                yield from self._expr(
                    child, chain, default_arg and isinstance(node, (ast.Tuple, ast.UnaryOp))
                )
            elif isinstance(child, (ast.comprehension, ast.keyword)):
                yield from self._children(child, chain, "")

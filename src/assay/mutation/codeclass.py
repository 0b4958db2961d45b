"""Which kind of code a target is, from what it imports and calls: the mutation threshold depends
on it.

Pure functions, models and converters are cheap to test exhaustively (60%); business logic that
orchestrates other parts less so (50%); HTTP/DB/IO layers least (40%).
"""

from __future__ import annotations

import ast
import fnmatch

from assay.config.mutation import CodeClass, MutationConfig

IO_MODULES = {
    "requests",
    "httpx",
    "aiohttp",
    "urllib",
    "urllib3",
    "http",
    "socket",
    "ssl",
    "ftplib",
    "smtplib",
    "sqlite3",
    "sqlalchemy",
    "psycopg",
    "psycopg2",
    "asyncpg",
    "pymysql",
    "mysql",
    "pymongo",
    "motor",
    "redis",
    "boto3",
    "botocore",
    "flask",
    "django",
    "fastapi",
    "starlette",
    "grpc",
    "websockets",
    "subprocess",
    "shutil",
    "tempfile",
    "paramiko",
    "kafka",
    "pika",
    "elasticsearch",
    "peewee",
    "tortoise",
}
IO_CALLS = {"open", "input"}
IO_METHODS = {
    "read_text",
    "write_text",
    "read_bytes",
    "write_bytes",
    "execute",
    "executemany",
    "commit",
    "urlopen",
    "connect",
    "cursor",
    "fetchall",
    "fetchone",
    "send",
    "recv",
    "get_json",
}


def _imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def detect(text: str, project_modules: set[str]) -> CodeClass:
    """`io` when it imports or calls I/O; `service` when it uses other project modules or logging;
    else `pure`."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return "pure"
    imported = _imports(tree)
    if imported & IO_MODULES:
        return "io"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in IO_CALLS:
                return "io"
            if isinstance(node.func, ast.Attribute) and node.func.attr in IO_METHODS:
                return "io"
    relative = any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))
    if relative or imported & project_modules or "logging" in imported:
        return "service"
    return "pure"


def classify(rel: str, text: str, config: MutationConfig, project_modules: set[str]) -> CodeClass:
    for pattern, code_class in config.code_classes.items():
        if fnmatch.fnmatch(rel, pattern):
            return code_class
    return detect(text, project_modules)


def threshold_for(
    sources: dict[str, str], config: MutationConfig, project_modules: set[str]
) -> tuple[CodeClass, float]:
    """The code class of a set of targets (`rel -> source`) and its threshold: the strictest class
    among them."""
    classes = [classify(rel, text, config, project_modules) for rel, text in sources.items()]
    code_class = max(classes, key=lambda c: config.thresholds[c]) if classes else "pure"
    return code_class, config.thresholds[code_class]

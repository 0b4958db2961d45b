"""Prompt templates (Jinja2, in `llm/templates/`). A project may override any of them by putting a
file of the same name in the directory named by `[tool.assay.generate] templates`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.errors import ConfigError

PACKAGE_DIR = Path(__file__).resolve().parent / "templates"


class Prompts:
    def __init__(self, override: Path | None = None):
        import jinja2  # here: every command that never prompts a model would pay for it at start

        dirs = [str(PACKAGE_DIR)]
        if override is not None:
            if not override.is_dir():
                raise ConfigError(f"templates directory not found: {override}")
            dirs.insert(0, str(override))
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(dirs),
            autoescape=False,
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def render(self, name: str, **values: Any) -> str:
        import jinja2

        try:
            return self.env.get_template(f"{name}.j2").render(**values).strip() + "\n"
        except jinja2.TemplateError as err:
            raise ConfigError(f"prompt template {name}.j2: {err}") from None

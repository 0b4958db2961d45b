"""Writers of tests and the repair loop that verifies, repairs and keeps what they write.

`--writer NAME[:ARG]` picks the line `NAME` of `WRITERS`: a class (`base.WriterKind`) whose
`generate` runs the whole command. Every LLM provider (`assay.llm.PROVIDERS`) is a writer through
the LLM writer; the offline writer runs without a model. Adding a writer = one module + one line
here (a `session.LoopWriter` subclass gets the repair loop, the gates' feedback and the reports
for free)."""

from __future__ import annotations

import importlib

from assay.llm import PROVIDERS, parse_spec
from assay.writers.base import WriterKind

DEFAULT_WRITER = "offline"  # no `--writer` and no `[tool.assay.generate] writer`: no model, no key

WRITERS: dict[str, str] = {  # name -> "module:Class"
    **dict.fromkeys(PROVIDERS, "assay.writers.llm:LLMWriter"),  # openai, anthropic, command, replay
    "offline": "assay.writers.offline.session:OfflineSession",
}


def writer_kind(spec: str) -> WriterKind:
    """The registered class of `spec`'s writer (`name` or `name:arg`); a ConfigError naming
    the choices."""
    name = spec.partition(":")[0]
    if name not in WRITERS:
        parse_spec(spec, "writer")  # not a writer: say what a model writer's spec looks like
    module, _, cls = WRITERS[name].partition(":")
    kind: WriterKind = getattr(importlib.import_module(module), cls)
    return kind

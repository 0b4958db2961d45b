"""Writers of tests and the repair loop that verifies, repairs and keeps what they write.

`--writer NAME:ARG`: a name in `WRITERS` picks that writer (constructed with `(arg, settings)`); any other name
is an LLM provider (`assay.llm.PROVIDERS`) and gets the LLM writer. Adding a writer = one module + one line here.
Nothing is imported at package import: `assay.config` imports `writers.config`."""

from __future__ import annotations

WRITERS: dict[str, str] = {  # name -> "module:Class"; the offline writer (issue 13) registers here
}

"""The LLM writer: a prompt from templates, one model call, the test file out of the answer.
Revisions send the target excerpt, the current file and the gate's feedback - not the conversation
so far - so a revision costs about as much as the first attempt, however many came before."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from assay.config import Settings
from assay.languages import LANGUAGES
from assay.llm import LLMClient, Prompt, make_client, parse_spec
from assay.llm.brief import WriteBrief
from assay.llm.context import tests_of
from assay.llm.extract import extract, fence_for
from assay.llm.prompts import Prompts
from assay.targets.model import Target
from assay.writers.advice import off_target, top_level_names
from assay.writers.base import Attempt, AttemptKind, Feedback, WriteContext, Writer
from assay.writers.borrow import borrow_constants, literal_tables
from assay.writers.copies import strip_copies, strip_labels
from assay.writers.imports import (
    add_missing_imports,
    drop_unbound,
    module_bindings,
    unimport_unbound,
)
from assay.writers.session import LoopWriter, Resources


class LLMWriter(LoopWriter):
    """The writer of every LLM provider (`openai:MODEL`, `anthropic:MODEL`,
    `command:CMD`, `replay:FILE`)."""

    revises: ClassVar[bool] = True

    def __init__(self, client: LLMClient, prompts: Prompts):
        self.client = client
        self.prompts = prompts
        self.name = client.spec
        self._tables: dict[tuple[str, str], dict[str, str]] = {}

    @classmethod
    def create(cls, spec: str, settings: Settings, resources: Resources) -> Writer:
        parse_spec(spec, "writer")
        client = make_client(
            spec,
            settings.llm,
            role="writer",
            store=resources.store,
            use_cache=resources.use_cache,
            budget=resources.budget,
            recorder=resources.recorder,
            root=resources.root,
        )
        return cls(client, resources.prompts)

    def _system(self, context: WriteContext) -> str:
        plan = context.plan
        if plan is None:
            return self.prompts.render(
                "writer_system", language="Python", framework="pytest", fence="python"
            )
        return self.prompts.render(
            "writer_system",
            language=LANGUAGES[context.language].title,
            framework=plan.framework,
            fence=fence_for(context.language),
        )

    def _facts(self, context: WriteContext) -> dict[str, str]:
        """What the `_lang` templates add for another language than Python."""
        plan = context.plan
        assert plan is not None
        return {
            "language": LANGUAGES[context.language].title,
            "framework": plan.framework,
            "imports": plan.imports,
            "fence": fence_for(context.language),
        }

    def _constants(self, context: WriteContext, target: Target) -> dict[str, str]:
        """The literal tables of the project's tests of the target's module (read once)."""
        key = (str(context.project.root), target.module)
        if key not in self._tables:
            paths = tests_of(context.project, target.module, exclude=context.test_path)
            self._tables[key] = literal_tables(paths)
        return self._tables[key]

    def _ask(
        self,
        prompt: Prompt,
        target: Target,
        context: WriteContext,
        kind: AttemptKind,
        parent: Attempt | None,
    ) -> Attempt:
        prompt = replace(prompt, subject=target.id)  # a replay answers by target and order
        completion = self.client.complete(prompt)
        call = self.client.record(prompt, completion)
        found = extract(completion.text, completion.finish, context.language)
        code, copied, imported, unbound = found.code, list[str](), list[str](), list[str]()
        borrowed, problem = list[str](), found.problem
        if code is not None and context.language == "python":
            module = _module_source(context, target)
            code = strip_labels(code, context.existing_tests)
            code, copied = strip_copies(code, top_level_names(module), target.dotted)
            code, imported = add_missing_imports(code, module_bindings(module, target.dotted))
            code = unimport_unbound(code, module, target.dotted)
            code, borrowed = borrow_constants(code, self._constants(context, target))
            code, unbound = drop_unbound(code, module, target.dotted)
            if (missed := off_target(code, target)) is not None:
                code, problem = None, missed
        return Attempt(
            target,
            context,
            code,
            kind,
            found.rationale,
            problem,
            [call],
            parent,
            copied,
            imported,
            unbound,
            borrowed,
        )

    def write(self, target: Target, context: WriteContext) -> Attempt:
        extra = self._facts(context) if context.plan else {}
        brief = context.brief or WriteBrief("import pytest")
        user = self.prompts.render(
            "write_lang" if extra else "write",
            test_path=context.test_path,
            task=target.task,
            excerpt=context.excerpt,
            existing_tests=context.existing_tests,
            rules=context.rules,
            imports=extra.get("imports", brief.imports),
            behaviours=brief.behaviours,
            example=brief.example if brief.example_is_ours or not context.existing_tests else "",
            example_is_ours=brief.example_is_ours,
            **{k: v for k, v in extra.items() if k != "imports"},
        )
        return self._ask(
            Prompt(self._system(context), user, "write"), target, context, "write", None
        )

    def revise(self, attempt: Attempt, feedback: Feedback) -> Attempt:
        context = attempt.context
        source = attempt.source or "(no usable file in your last answer)\n"
        kind: AttemptKind = "review-revise" if feedback.gate == "review" else "revise"
        extra = self._facts(context) if context.plan else {}
        user = self.prompts.render(
            "revise_lang" if extra else "revise",
            test_path=context.test_path,
            task=attempt.target.task,
            excerpt=context.excerpt,
            source=source,
            feedback=feedback.text,
            dropped=feedback.dropped,
            rules=context.rules,
            **extra,
        )
        return self._ask(
            Prompt(self._system(context), user, kind), attempt.target, context, kind, attempt
        )


def _module_source(context: WriteContext, target: Target) -> str:
    """The code under test's module: what a pasted copy redefines, what a missing name is bound
    to."""
    try:
        return (context.project.root / target.module).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""

"""The model's word on a task no rule classifies (only with `--writer`): one prompt, one word
back. An answer that is not a class leaves the task unclassified, with the answer quoted."""

from __future__ import annotations

from pathlib import Path

from assay.config import Settings
from assay.llm import LLMError, Recorder, make_client
from assay.llm.base import Prompt
from assay.sprint.classify import Model
from assay.sprint.model import Classification, Task, TaskClass

SYSTEM = (
    "You sort a software team's sprint tasks. Answer with exactly one word: core (backend "
    "logic: a feature or a bug fix), frontend (only UI: CSS, templates, components), adapters "
    "(integrations: a channel, a webhook, an external API client), technical (infrastructure: "
    "CI, migrations, dependency bumps) or incident (SRE work)."
)
CLASSES = {c.value for c in TaskClass if c is not TaskClass.UNCLASSIFIED}


def model_classifier(
    spec: str, settings: Settings, root: Path, recorder: Recorder | None = None
) -> Model:
    client = make_client(spec, settings.llm, role="writer", root=root, recorder=recorder)

    def decide(task: Task) -> Classification | None:
        user = f"Task {task.id}: {task.title}\nType: {task.type}\nLabels: {', '.join(task.labels)}"
        user += f"\n\n{task.description[:2000]}"
        try:
            answer = client.complete(Prompt(SYSTEM, user, "classify", f"task {task.id}")).text
        except LLMError as err:
            return Classification(
                TaskClass.UNCLASSIFIED, f"no rule decides; the model failed: {err}"
            )
        word = answer.strip().strip(".`'\"").lower().split()[:1]
        first = (answer.strip().splitlines() or [""])[0]
        if word and word[0] in CLASSES:
            return Classification(TaskClass(word[0]), f"model {spec} (no rule decides)")
        return Classification(
            TaskClass.UNCLASSIFIED, f"no rule decides; the model answered {first[:40]!r}"
        )

    return decide

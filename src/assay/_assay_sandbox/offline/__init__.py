"""The offline writer's probe, run inside the sandbox under the user's interpreter (stdlib +
pytest; hypothesis when importable): build inputs for the functions of one module, run them (the
oracle), run them against the module's mutants, and report which input kills which mutant. Never
imports `assay`.

Modules: `values` (values as Python source, boundary values by type), `inputs` (candidate inputs
per function; `shapes`: values for untyped parameters from how they are used), `calls` (timed,
memory-bounded calls and their outcomes), `mutants` (the outcomes under each mutant), `worker` (the
job), `markers` (a pytest plugin registering the markers of generated tests).
"""

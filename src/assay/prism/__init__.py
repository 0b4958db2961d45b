"""`assay prism`: judge test suites against panels of correct and faulty implementations (issue 12).

A task holds an original tree, a reference change, alternative correct changes and faulty ones; a
suite is judged by whether it fails on the original, accepts every correct member and rejects every
faulty one (`metrics`). Modules: `task` (loading, validation), `patch` (unified diffs), `command`
(how a test command runs), `worker` (one run in a scratch tree and the sandbox), `matrix` (runs
through `execution.executor`, resumable), `evaluate`/`check`/`build` (the three commands), `pycov`
(change and entry coverage), `model` (reports and their JSON), `api` (library functions).
"""

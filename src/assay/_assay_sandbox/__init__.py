"""Code that runs inside the sandbox, under the interpreter of the user's tests (stdlib +
pytest only).

It never imports `assay`: the user's interpreter need not have assay installed. It is loaded as one
name, `_assay_sandbox`, through `launch.argv()`: the package's parent directory is on `sys.path`
only while the package is imported, so none of assay's own modules can shadow a module of the
user's project.

Modules: `boot` (imports from the scratch copy), `protocol` (typed jobs shared with assay), `fork`
(forked children with a JSON result), `pytest_runner` (collect / run / isolate), `mutation/` (the
mutant server). This file imports nothing: assay imports `assay._assay_sandbox.protocol` without
pulling in pytest.
"""

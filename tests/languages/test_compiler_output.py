"""Compiler output to feedback: errors only, at the test file's lines, first lines each,
deduplicated, capped."""

from __future__ import annotations

from assay.languages.compiler_output import (
    MAX_PROBLEMS,
    error_tail,
    go_errors,
    javac_errors,
    tsc_errors,
)

MAVEN = """\
[INFO] Scanning for projects...
Downloading from central: https://example.invalid/maven2/org/x/1.0/x-1.0.pom
Progress (1): 2.1/4.5 kB
[WARNING] Using platform encoding (UTF-8 actually) to copy filtered resources
[ERROR] COMPILATION ERROR :
[ERROR] /tmp/ws/project/src/test/java/com/acme/PriceTest.java:[5,21] package com.acme.pricing does not exist
[ERROR] /tmp/ws/project/src/test/java/com/acme/PriceTest.java:[11,33] cannot find symbol
[ERROR]   symbol:   method totl(int,int)
[ERROR]   location: class com.acme.Price
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:testCompile
[ERROR] /tmp/ws/project/src/test/java/com/acme/PriceTest.java:[5,21] package com.acme.pricing does not exist
[ERROR] -> [Help 1]
"""
GO = """\
# example.com/price/price
vet: price/typo_test.go:10:19: undefined: pricing
price/typo_test.go:12:2: declared and not used: x
price/typo_test.go:12:2: declared and not used: x
"""
TSC = """\
test/a.test.ts(2,21): error TS2307: Cannot find module '../src/pricing' or its corresponding type declarations.
test/a.test.ts(6,9): error TS2322: Type 'number' is not assignable to type 'string'.
src/other.ts(1,1): error TS1005: ';' expected.
"""


def test_maven_errors_keep_javac_details_and_drop_the_noise():
    problems = javac_errors(MAVEN, ["/tmp/ws/project"])
    assert [(p.where, p.line) for p in problems] == [
        ("src/test/java/com/acme/PriceTest.java", 5),
        ("src/test/java/com/acme/PriceTest.java", 11),
    ]
    assert problems[1].message == (
        "cannot find symbol (symbol: method totl(int,int); location: class com.acme.Price)"
    )
    assert all(p.kind == "compile" for p in problems)


def test_go_errors_relative_to_the_module_and_deduplicated():
    problems = go_errors(GO, ["/tmp/ws/project"], "sub")
    assert [(p.where, p.line, p.message) for p in problems] == [
        ("sub/price/typo_test.go", 10, "undefined: pricing"),
        ("sub/price/typo_test.go", 12, "declared and not used: x"),
    ]


def test_tsc_errors_name_the_file_line_and_code():
    problems = tsc_errors(TSC, [], ".")
    assert [p.where for p in problems] == ["test/a.test.ts", "test/a.test.ts", "src/other.ts"]
    assert problems[1].message.startswith("TS2322: Type 'number'")


def test_at_most_fifty_errors_and_no_progress_in_a_crash_message():
    many = "\n".join(f"a_test.go:{i}:1: undefined: x{i}" for i in range(200))
    assert len(go_errors(many, [])) == MAX_PROBLEMS == 50
    assert error_tail(MAVEN).splitlines()[0].startswith("[ERROR] COMPILATION ERROR")
    assert "Downloading" not in error_tail(MAVEN) and "[WARNING]" not in error_tail(MAVEN)


# `mvn -B -o -q test-compile` of commons-lang3 3.17.0 failing in a plugin, verbatim: the failure
# line starts with colour resets even under -B, and Maven's advice follows it
MAVEN_PLUGIN = (
    "\x1b[0m\x1b[0m[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.16.1:check "
    "(rat-check) on project commons-lang3: Too many files with unapproved license: 8 See RAT "
    "report in: /tmp/ws/project/target/rat.txt -> [Help 1]\n"
    "[ERROR] \n"
    "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n"
    "[ERROR] Re-run Maven using the -X switch to enable full debug logging.\n"
    "[ERROR] \n"
    "[ERROR] For more information about the errors and possible solutions, please read the "
    "following articles:\n"
    "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException\n"
    "\x1b[0m\x1b[0m\n"
)


def test_a_maven_failure_outside_javac_is_named_not_buried_under_mavens_advice():
    # it read "[ERROR]\n[ERROR] To see the full stack trace ... [Help 1] http://cwiki..." only
    assert error_tail(MAVEN_PLUGIN) == (
        "[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.16.1:check "
        "(rat-check) on project commons-lang3: Too many files with unapproved license: 8 See RAT "
        "report in: /tmp/ws/project/target/rat.txt -> [Help 1]"
    )


def test_an_offline_maven_build_names_the_plugin_it_lacks():
    from assay.languages.java_compile import offline_gap

    # commons-lang3 3.17.0 in the sandbox, verbatim but for the path (the message named nothing)
    text = MAVEN_PLUGIN.replace(
        "org.apache.rat:apache-rat-plugin:0.16.1:check (rat-check) on project commons-lang3: "
        "Too many files with unapproved license: 8 See RAT report in: "
        "/tmp/ws/project/target/rat.txt",
        "org.codehaus.mojo:build-helper-maven-plugin:3.6.0:parse-version (parse-version) on "
        "project commons-lang3: Execution parse-version of goal org.codehaus.mojo:build-helper-"
        "maven-plugin:3.6.0:parse-version failed: Plugin org.codehaus.mojo:build-helper-maven-"
        "plugin:3.6.0 or one of its dependencies could not be resolved: Cannot access central "
        "(https://repo.maven.apache.org/maven2) in offline mode",
    )
    assert offline_gap(text, ".", "maven") == (
        "a dependency or plugin of . (org.codehaus.mojo:build-helper-maven-plugin:3.6.0) is not "
        "in the local cache and the sandbox has no network: run `mvn dependency:go-offline` in "
        ". once"
    )


def test_a_maven_plugin_other_than_the_compiler_failing_is_not_the_tests_compile_error():
    from assay.languages.java_compile import failed_outside_javac

    # the RAT check failed on a file of the project without a license header: a "COMPILE ERROR"
    assert failed_outside_javac(MAVEN_PLUGIN) == (
        "Failed to execute goal org.apache.rat:apache-rat-plugin:0.16.1:check (rat-check) on "
        "project commons-lang3: Too many files with unapproved license: 8 See RAT report in: "
        "/tmp/ws/project/target/rat.txt"
    )
    assert failed_outside_javac(MAVEN) is None  # javac's own failure stays the test's
    # commons-csv (commons-parent 104) on Debian's Maven 3.8.7: the reason is on the next lines
    enforcer = (
        "\x1b[0m\x1b[0m[ERROR] Failed to execute goal org.apache.maven.plugins:maven-enforcer-plugin"
        ":3.6.3:enforce (enforce-maven-version) on project commons-csv: \n[ERROR] Rule 0: org.apache"
        ".maven.enforcer.rules.version.RequireMavenVersion failed with message:\n[ERROR] Detected "
        "Maven Version: 3.8.7 is not in the allowed range [3.9,).\n[ERROR] -> [Help 1]\n[ERROR] \n"
    )
    assert failed_outside_javac(enforcer) == (
        "Failed to execute goal org.apache.maven.plugins:maven-enforcer-plugin:3.6.3:enforce "
        "(enforce-maven-version) on project commons-csv: Detected Maven Version: 3.8.7 is not in "
        "the allowed range [3.9,)."
    )

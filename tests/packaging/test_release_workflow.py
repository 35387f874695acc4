"""The release workflow (.github/workflows/release.yml) is a valid GitHub Actions workflow that builds,
self-tests and uploads the installers on Linux, Windows and macOS runners.

Validation uses check-jsonschema's vendored copy of the workflow schema, so it needs no network.
"""

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(path)], capture_output=True, text=True, timeout=120)


def test_the_release_workflow_matches_the_github_workflow_schema():
    result = validate(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_refuses_a_broken_workflow(tmp_path):
    # A job without runs-on, and a step that is neither `uses` nor `run`: GitHub rejects both.
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  build:\n    steps:\n      - name: nothing\n        with: {a: 1}\n")
    result = validate(broken)
    assert result.returncode != 0
    assert "broken.yml" in result.stdout + result.stderr


def steps_text(job: dict) -> str:
    return "\n".join(str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"])


def test_each_os_builds_with_its_recipe_self_tests_and_uploads():
    # PyYAML reads the `on:` key as True, as YAML 1.1 says; only the jobs matter here.
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    expected = {"linux": ("ubuntu", "make package-check", "packaging/linux/check_debs.sh"),
                "windows": ("windows", "packaging\\windows\\build.ps1", "--self-test"),
                "macos": ("macos", "packaging/macos/build.sh", "--self-test")}
    for name, (runner, recipe, self_test) in expected.items():
        job = jobs[name]
        assert job["runs-on"].startswith(runner)
        text = steps_text(job)
        assert recipe in text and self_test in text, name
        uploads = [step for step in job["steps"] if step.get("uses", "").startswith("actions/upload-artifact@")]
        assert uploads and uploads[0]["with"]["if-no-files-found"] == "error", name
    assert set(jobs["publish"]["needs"]) == set(expected)


def test_windows_and_macos_test_before_they_build():
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    for name, platform, recipe in (("windows", "win32", "build.ps1"), ("macos", "darwin", "build.sh")):
        runs = [str(step.get("run", "")) for step in jobs[name]["steps"]]
        tests = next(index for index, run in enumerate(runs) if "python -m pytest" in run)
        build = next(index for index, run in enumerate(runs) if recipe in run)
        assert tests < build, name
        for suite in ("tests/server", "tests/console", f"mypy --platform {platform}"):
            assert suite in runs[tests], (name, suite)

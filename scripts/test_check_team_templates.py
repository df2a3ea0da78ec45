"""`make test-ci-team`'s own tests (issue 33): check_ci_templates.py with --require-make install, as
the team templates in ci/team/ are checked, must fail on planted mistakes.

Run with .venv-tools/bin/python -m pytest (PyYAML); needs .build/debug/crosscheck.
"""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CROSSCHECK = ROOT / ".build/debug/crosscheck"
SCRIPT = ROOT / "scripts/check_ci_templates.py"


def check(tmp_path, text):
    template = tmp_path / "t.yml"
    template.write_text(text)
    return subprocess.run([sys.executable, str(SCRIPT), "--require-make", "install", "--crosscheck", str(CROSSCHECK), str(template)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_a_team_template_that_installs_and_runs_crosscheck_passes(tmp_path):
    result = check(tmp_path, """
on: push
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: cd .crosscheck-src && make install PREFIX=/opt/crosscheck
      - run: /opt/crosscheck/bin/crosscheck --version
      - run: crosscheck remote --host 10.77.0.2 --port "$PI_PORT" --known-failures k.json --junit reports/pi.xml
      - run: crosscheck init --profile rsa-socket --server server.py:Handler
""")
    assert result.returncode == 0, result.stdout


def test_planted_mistakes_are_found(tmp_path):
    result = check(tmp_path, """
on: push
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: make instal PREFX=/opt/crosscheck
      - run: crosscheck remote --clinet seed-app
      - run: crosscheck --verison
""")
    assert result.returncode == 1, result.stdout
    assert "make instal: the Makefile has no target instal" in result.stdout
    assert "make PREFX=…: the Makefile has no variable PREFX" in result.stdout
    assert "crosscheck remote --clinet: no such option" in result.stdout
    assert "`crosscheck --verison`: crosscheck has no such command" in result.stdout
    assert "no job runs `make install`" in result.stdout

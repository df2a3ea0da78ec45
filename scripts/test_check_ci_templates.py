"""`make test-ci`'s own tests: check_ci_templates.py must fail on planted mistakes (so its pass on
the real templates means something), and `crosscheck report --markdown` on a real report must
render in GitHub's Markdown (cmark-gfm, the library GitHub's own renderer is built on) as meant.

Run with .venv-tools/bin/python -m pytest (PyYAML, cmarkgfm); needs .build/debug/crosscheck.
"""

import pathlib
import re
import subprocess
import sys

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

ROOT = pathlib.Path(__file__).resolve().parent.parent
CROSSCHECK = ROOT / ".build/debug/crosscheck"
SCRIPT = ROOT / "scripts/check_ci_templates.py"


def check(tmp_path, text, name="t.yml"):
    template = tmp_path / name
    template.write_text(text)
    return subprocess.run([sys.executable, str(SCRIPT), "--crosscheck", str(CROSSCHECK), str(template)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


GOOD_GITHUB = """
on: push
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: |
          if [ -f b.xml ]; then make interop BASELINE=b.xml; else make interop; fi
      - run: >-
          .build/release/crosscheck remote --targets fleet.txt -j 8
          --shard ${{ matrix.shard }}/4 --profile rsa-socket --junit r.xml
"""


def test_real_templates_pass():
    result = subprocess.run([sys.executable, str(SCRIPT), "--crosscheck", str(CROSSCHECK),
                             "ci/github-actions.yml", "ci/gitlab-ci.yml"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"ci/github-actions.yml: \d+ shell pieces, [1-9]\d* crosscheck and [1-9]\d* `make interop` commands: ok", result.stdout)
    assert re.search(r"ci/gitlab-ci.yml: \d+ shell pieces, [1-9]\d* crosscheck and [1-9]\d* `make interop` commands: ok", result.stdout)


def test_good_template_passes(tmp_path):
    result = check(tmp_path, GOOD_GITHUB)
    assert result.returncode == 0, result.stdout
    assert "1 crosscheck and 2 `make interop` commands: ok" in result.stdout


@pytest.mark.parametrize("mistake, said", [
    ("--shard ${{ matrix.shard }}/4", None),
    ("--shards ${{ matrix.shard }}/4", "crosscheck remote --shards: no such option"),
    ("--junit r.xml", None),
])
def test_unknown_crosscheck_option_fails(tmp_path, mistake, said):
    text = GOOD_GITHUB.replace("--shard ${{ matrix.shard }}/4", mistake)
    result = check(tmp_path, text)
    if said is None:
        assert result.returncode == 0, result.stdout
    else:
        assert result.returncode == 1, result.stdout
        assert said in result.stdout


def test_unknown_command_target_variable_and_missing_interop_fail(tmp_path):
    gitlab = """
stages: [test]
job:
  script:
    - make interopp
    - make interop BASELIN=x.xml
    - ./crosscheck reprot --markdown s.md r.xml
    - .build/debug/crosscheck report --markdown
"""
    result = check(tmp_path, gitlab, "g.yml")
    assert result.returncode == 1, result.stdout
    assert "make interopp: the Makefile has no target interopp" in result.stdout
    assert "make BASELIN=…: the Makefile has no variable BASELIN" in result.stdout
    assert "`./crosscheck reprot`: crosscheck has no such command" in result.stdout
    assert "crosscheck report --markdown needs a value" in result.stdout

    nothing = check(tmp_path, "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo make interop\n")
    assert nothing.returncode == 1
    assert "no job runs `make interop`" in nothing.stdout and "no job runs a crosscheck command" in nothing.stdout


def planted_report(tmp_path):
    """A real run of 22 checks with one testcase turned into a failure whose message is hostile."""
    report = tmp_path / "run.xml"
    run = subprocess.run([str(CROSSCHECK), "run", "--filter", "kdf.", "--seed", "3", "--quiet", "--junit", str(report)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    xml = report.read_text()
    case = '<testcase name="kdf.base64-raw.aes128.envelope" classname="crosscheck.aes-https.swift_to_python"'
    start = xml.index(case)
    end = xml.index("</testcase>", start) + len("</testcase>")
    message = "ciphertext | differs &lt;script&gt;alert(1)&lt;/script&gt; `x` @channel"
    body = ("byte diff: 1 of 32 bytes differ (first at offset 31, last at offset 31); expected 32 bytes, actual 32 bytes\n"
            "  expected @31  1f\n  actual   @31  20\n               ^^\n")
    xml = xml[:start] + case + f' time="0.001"><failure message="{message}" type="mismatch">{body}</failure></testcase>' + xml[end:]
    report.write_text(xml)
    return report


def test_markdown_summary_renders_in_github_markdown(tmp_path):
    report = planted_report(tmp_path)
    summary = tmp_path / "summary.md"
    result = subprocess.run([str(CROSSCHECK), "report", "--markdown", str(summary), str(report)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    html = cmarkgfm.github_flavored_markdown_to_html(summary.read_text(), options=Options.CMARK_OPT_UNSAFE)
    # Headings and tables as tables (totals and the coverage matrix).
    assert "<h2>crosscheck: 1 of 22 checks failed</h2>" in html
    assert html.count("<table>") == 2
    assert re.search(r'<th[^>]*>swift → python</th>', html), html
    assert re.search(r'<td><strong>aes-https</strong></td>\n<td[^>]*>❌ 1 fail, 5 pass</td>', html), html
    # The failing testcase named with its message, and the message's markup shown as text.
    item = re.search(r"<li>\s*(?:<p>)?<strong>FAIL</strong> (.*?)</li>", html, re.DOTALL)
    assert item, html
    assert "crosscheck.aes-https.swift_to_python.kdf.base64-raw.aes128.envelope — ciphertext | differs " \
           "&lt;script&gt;alert(1)&lt;/script&gt; `x` @\u200bchannel<br />" in item.group(1), item.group(1)
    assert "<script>" not in html and "<code>x</code>" not in html
    # The byte diff as a code block, the differing byte marked.
    assert '<pre lang="text"><code>expected @31  1f\nactual   @31  20\n              ^^\n</code></pre>' in html, html


@pytest.mark.parametrize("template, schema, good, bad, said", [
    ("ci/github-actions.yml", "vendor.github-workflows", "    timeout-minutes: 90\n", "    timeout-minute: 90\n",
     "'timeout-minute' was unexpected"),
    ("ci/gitlab-ci.yml", "vendor.gitlab-ci", "      junit: reports/junit.xml\n", "      junitt: reports/junit.xml\n",
     "'junitt' was unexpected"),
])
def test_schema_check_catches_a_misspelt_key(tmp_path, template, schema, good, bad, said):
    """The schema stage of `make test-ci` can fail: one misspelt key in a copy of the template."""
    text = (ROOT / template).read_text()
    assert good in text
    planted = tmp_path / pathlib.Path(template).name
    planted.write_text(text.replace(good, bad, 1))
    tool = pathlib.Path(sys.executable).parent / "check-jsonschema"
    result = subprocess.run([str(tool), "--builtin-schema", schema, str(planted)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout
    assert said in result.stdout

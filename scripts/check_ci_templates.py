"""Every `make` and `crosscheck` command a CI template runs, checked to exist with its options.

    python check_ci_templates.py --crosscheck .build/debug/crosscheck ci/github-actions.yml ci/gitlab-ci.yml

Reads the shell a template runs (GitHub Actions: each step's `run`; GitLab CI: each job's
`before_script`, `script` and `after_script`, and `default:`'s), joins continued lines, splits it
into simple commands (at `;`, `&&`, `||`, `|`, newlines, `{ }`, `if/then/else`), and for each:

- `make TARGET... VAR=value...`: TARGET must be a target the Makefile has (`make -n -p` on an empty
  target lists them without running anything), and VAR a variable the Makefile reads;
- `crosscheck SUBCOMMAND --option value ... FILE...` (any path ending in `/crosscheck`):
  SUBCOMMAND must be one `crosscheck --help` lists, and every option one that
  `crosscheck SUBCOMMAND --help` lists; an option that takes a value takes the next word.

Exit 0 when every command checks out, 1 with one line per problem, 66 for an unreadable template.
It also fails when a template runs no `make interop` or no crosscheck command at all, so a
template cannot pass by running nothing this script understands.

Needs PyYAML (in the .venv-tools that `make test-ci` makes; yamllint depends on it).
"""

import argparse
import re
import shlex
import subprocess
import sys

import yaml

SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "{", "}", "!"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in"}


def shell_of(document: dict, path: str) -> list:
    """(where, shell text) for every piece of shell the template runs."""
    pieces = []
    if isinstance(document.get("jobs"), dict):  # GitHub Actions
        for job_name, job in document["jobs"].items():
            for number, step in enumerate(job.get("steps", []) or []):
                if isinstance(step, dict) and isinstance(step.get("run"), str):
                    pieces.append((f"{path}: jobs.{job_name}.steps[{number}]", step["run"]))
        return pieces
    for job_name, job in document.items():  # GitLab CI: every mapping with script keys
        if not isinstance(job, dict):
            continue
        for key in ("before_script", "script", "after_script"):
            lines = job.get(key)
            if isinstance(lines, str):
                lines = [lines]
            for number, line in enumerate(lines or []):
                if isinstance(line, str):
                    pieces.append((f"{path}: {job_name}.{key}[{number}]", line))
    return pieces


def simple_commands(text: str) -> list:
    """The simple commands of a piece of shell, each a list of words (variables left as written)."""
    text = re.sub(r"\\\n", " ", text)
    # GitHub expressions are values, not shell: one word each.
    text = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", text)
    commands = []
    for line in text.split("\n"):
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|(){}!")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            words = list(lexer)
        except ValueError as error:
            raise ValueError(f"cannot split {line!r}: {error}")
        current = []
        for word in words:
            if word in SEPARATORS or all(c in ";&|" for c in word):
                if current:
                    commands.append(current)
                current = []
            elif not current and word in KEYWORDS:
                continue
            else:
                current.append(word)
        if current:
            commands.append(current)
    # Leading assignments (VAR=value command ...) are not the command.
    return [[w for i, w in enumerate(c) if not (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w) and all(
        re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", x) for x in c[:i + 1]))] for c in commands]


class Checker:
    def __init__(self, crosscheck: str, makefile_dir: str):
        self.crosscheck = crosscheck
        self.makefile_dir = makefile_dir
        self.problems = []
        self.seen = {"make interop": 0, "crosscheck": 0}
        self.make_targets = set()
        self._help = {}
        self._make = None

    def help_text(self, subcommand: str) -> str:
        if subcommand not in self._help:
            arguments = [self.crosscheck] + ([subcommand] if subcommand else []) + ["--help"]
            result = subprocess.run(arguments, capture_output=True, text=True, timeout=60)
            self._help[subcommand] = result.stdout if result.returncode == 0 else ""
        return self._help[subcommand]

    def options(self, subcommand: str) -> dict:
        """--option -> whether it takes a value, from the OPTIONS section of the help."""
        found = {}
        text = self.help_text(subcommand)
        section = text.split("\nOPTIONS:\n", 1)[1] if "\nOPTIONS:\n" in text else ""
        section = section.split("\nEXIT STATUS:", 1)[0]
        for line in section.split("\n"):
            # "  --jobs N, -j N      help…", "  --strict            help…", "  --pin CERT" (help on the next line)
            match = re.match(r"^  (-\S*(?: [^ ,]+)?(?:, -\S*(?: [^ ,]+)?)*)(?:\s{2,}|$)", line)
            if not match:
                continue
            for part in match.group(1).split(", "):
                name, _, value = part.partition(" ")
                found[name] = bool(value)
        return found

    def subcommands(self) -> set:
        text = self.help_text("")
        return set(re.findall(r"^  ([a-z][a-z-]*)\s", text, re.MULTILINE))

    def make_database(self):
        """(targets, variables) of the Makefile, from make's database without running a recipe."""
        if self._make is None:
            result = subprocess.run(["make", "-n", "-p", "-f", "Makefile", "-f", "/dev/null", ".crosscheck-ci-no-such-target"],
                                    cwd=self.makefile_dir, capture_output=True, text=True, timeout=60)
            targets = set(re.findall(r"^([A-Za-z0-9_.-]+):(?!=)", result.stdout, re.MULTILINE))
            variables = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*) [:?+]?= ", result.stdout, re.MULTILINE))
            with open(f"{self.makefile_dir}/Makefile", encoding="utf-8") as makefile:
                source = makefile.read()
            # Variables the Makefile reads: those it defines, and those its recipes use.
            used = set(re.findall(r"\$\(([A-Z_][A-Z0-9_]*)\)", source))
            self._make = (targets, variables & (used | set(re.findall(r"^([A-Z_][A-Z0-9_]*)\s*[:?+]?=", source, re.MULTILINE))))
        return self._make

    def check_make(self, where: str, words: list):
        targets, variables = self.make_database()
        names = []
        for word in words[1:]:
            if word.startswith("-"):
                continue
            if "=" in word:
                variable = word.split("=", 1)[0]
                if variable not in variables:
                    self.problems.append(f"{where}: make {variable}=…: the Makefile has no variable {variable}")
            else:
                names.append(word)
        if not names:
            self.problems.append(f"{where}: `{' '.join(words)}` names no target (say which one)")
        for name in names:
            if name not in targets:
                self.problems.append(f"{where}: make {name}: the Makefile has no target {name}")
        if "interop" in names:
            self.seen["make interop"] += 1
        self.make_targets.update(names)
        dry = subprocess.run(["make", "-n"] + words[1:], cwd=self.makefile_dir, capture_output=True, text=True, timeout=120)
        if dry.returncode != 0:
            self.problems.append(f"{where}: `make -n {' '.join(words[1:])}` fails: {dry.stderr.strip()[:300]}")

    def check_crosscheck(self, where: str, words: list):
        self.seen["crosscheck"] += 1
        if words[1:] == ["--version"]:
            return
        if len(words) < 2 or words[1] not in self.subcommands():
            self.problems.append(f"{where}: `{' '.join(words[:2])}`: crosscheck has no such command ({', '.join(sorted(self.subcommands()))})")
            return
        subcommand = words[1]
        known = self.options(subcommand)
        if not known:
            self.problems.append(f"{where}: `crosscheck {subcommand} --help` lists no options")
            return
        index = 2
        while index < len(words):
            word = words[index]
            index += 1
            if not word.startswith("-") or word == "-":
                continue
            name = word.split("=", 1)[0]
            if name not in known:
                self.problems.append(f"{where}: crosscheck {subcommand} {name}: no such option (`crosscheck {subcommand} --help`)")
            elif known[name] and "=" not in word:
                if index >= len(words):
                    self.problems.append(f"{where}: crosscheck {subcommand} {name} needs a value")
                index += 1

    def check(self, where: str, text: str):
        try:
            commands = simple_commands(text)
        except ValueError as error:
            self.problems.append(f"{where}: {error}")
            return
        for words in commands:
            if not words:
                continue
            if words[0] == "make":
                self.check_make(where, words)
            elif words[0] == "crosscheck" or words[0].endswith("/crosscheck"):
                self.check_crosscheck(where, words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crosscheck", required=True, help="the crosscheck binary whose --help is the reference")
    parser.add_argument("--makefile-dir", default=".", help="where the Makefile is (default: .)")
    parser.add_argument("--require-make", default="interop",
                        help="the make target a template must run (default interop; a team's templates: install)")
    parser.add_argument("templates", nargs="+")
    arguments = parser.parse_args()
    failed = False
    for path in arguments.templates:
        try:
            with open(path, encoding="utf-8") as file:
                document = yaml.safe_load(file)
        except (OSError, yaml.YAMLError) as error:
            print(f"check_ci_templates: cannot read {path}: {error}", file=sys.stderr)
            return 66
        checker = Checker(arguments.crosscheck, arguments.makefile_dir)
        pieces = shell_of(document or {}, path)
        for where, text in pieces:
            checker.check(where, text)
        if arguments.require_make not in checker.make_targets:
            checker.problems.append(f"{path}: no job runs `make {arguments.require_make}`")
        if checker.seen["crosscheck"] == 0:
            checker.problems.append(f"{path}: no job runs a crosscheck command")
        for problem in checker.problems:
            print(problem)
        failed = failed or bool(checker.problems)
        print(f"{path}: {len(pieces)} shell pieces, {checker.seen['crosscheck']} crosscheck and "
              f"{checker.seen['make interop']} `make interop` commands: {'PROBLEMS' if checker.problems else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

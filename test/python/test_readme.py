"""README.md's examples run as written. Every fenced ```python block runs, in
order, as one script, as a reader would paste them into a file (later blocks
use the names earlier ones define); every ```sh block runs in a directory
holding the files the blocks before it write (gemm.mlir) and the repository's
examples/, scripts/ and build/, with build/bin first on PATH; every ```mlir
block parses and verifies. A command that is not run here is named in NOT_RUN
with the reason, so a new example is never skipped silently, and a fenced
block in another language fails until this file runs it."""

import os
import re
import subprocess
import sys

import pytest

import ext

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__)))
BUILD = os.path.dirname(PACKAGE_PARENT)
BIN = os.path.join(BUILD, "bin")

# sh commands (a line of a block, its comment left off) not run here, and why.
NOT_RUN = {
    "bash scripts/demo.sh": "it builds first; test_demo.py runs its reports (demo.sh --no-build)",
    "bash scripts/test.sh": "the test command itself, which runs this test",
    "/usr/bin/python3 -m venv --system-site-packages /tmp/ext-venv":
        "test_pip_install.py makes a virtual environment and pip-installs ext into it",
    "/tmp/ext-venv/bin/pip install .":
        "test_pip_install.py makes a virtual environment and pip-installs ext into it",
}
# Fenced blocks with no language are output and layouts, not run
# (test_demo.py checks the report blocks against a fresh report).
LANGUAGES = ("python", "sh", "mlir", "")
# A ```mlir block after a line ending in "`NAME.mlir`:" is that file.
FILE_INTRO = re.compile(r"`([\w.-]+\.mlir)`:\s*$")


def _blocks():
    """(language, line of the opening fence, text, file it is) for every
    fenced block of the README, in order."""
    text = open(README).read()
    blocks = []
    for m in re.finditer(r"^```(\S*)\n(.*?)^```$", text, re.M | re.S):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        named = FILE_INTRO.search(before)
        blocks.append((m.group(1), text.count("\n", 0, m.start()) + 1, m.group(2),
                       named.group(1) if named else None))
    return blocks


def _of(language):
    return [pytest.param(b, id=f"line {b[1]}") for b in _blocks() if b[0] == language]


def _command(line):
    return re.sub(r"(^|\s)#.*$", "", line).strip()


def _tools_built():
    return all(os.path.exists(os.path.join(BIN, t)) for t in ("ext-opt", "ext-translate", "ext-run"))


def test_every_block_is_run():
    unknown = [(lang, line) for lang, line, _, _ in _blocks() if lang not in LANGUAGES]
    assert not unknown, f"README.md blocks in a language this test does not run: {unknown}"
    commands = {_command(line) for lang, _, text, _ in _blocks() if lang == "sh"
                for line in text.splitlines()}
    stale = [c for c in NOT_RUN if c not in commands]
    assert not stale, f"NOT_RUN names commands README.md no longer has: {stale}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A reader's directory: the repository's examples/, scripts/ and the
    build as build/, and every file an ```mlir block names."""
    d = tmp_path_factory.mktemp("readme")
    for name, target in (("examples", os.path.join(ROOT, "examples")),
                         ("scripts", os.path.join(ROOT, "scripts")), ("build", BUILD)):
        os.symlink(target, d / name)
    for _, _, text, name in _blocks():
        if name:
            (d / name).write_text(text)
    return d


@pytest.fixture(scope="module")
def python_run(workdir):
    """The ```python blocks as one script whose line numbers are README.md's
    (a traceback names the README line); each block's closing fence line
    prints that the block ran."""
    lines = [""] * (open(README).read().count("\n") + 1)
    for language, start, text, _ in _blocks():
        if language != "python":
            continue
        for i, line in enumerate(text.splitlines()):
            lines[start + i] = line
        lines[start + len(text.splitlines())] = f"print('@@ README block at line {start} ran', flush=True)"
    script = workdir / "readme_blocks.py"
    script.write_text("\n".join(lines) + "\n")
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT,
               EXT_TUNING_DB=str(workdir / "tuning.json"))  # tune for real, not ~/.cache's pick
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=workdir, env=env, timeout=600)


@pytest.mark.parametrize("block", _of("python"))
def test_python_block(block, python_run):
    _, start, _, _ = block
    ran = f"@@ README block at line {start} ran" in python_run.stdout
    assert ran, (
        f"README.md's python block at line {start} failed (line numbers are README.md's):\n"
        + python_run.stderr[-4000:])


@pytest.mark.parametrize("block", _of("sh"))
def test_sh_block(block, workdir):
    _, start, text, _ = block
    skipped = {c: NOT_RUN[c] for c in map(_command, text.splitlines()) if c in NOT_RUN}
    script = "\n".join(":" if _command(line) in NOT_RUN else line for line in text.splitlines())
    if not any(_command(line) for line in script.splitlines() if _command(line) != ":"):
        pytest.skip(f"README.md line {start}: not run here: {skipped}")
    if not _tools_built():
        pytest.skip(f"no ext tools in {BIN}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = BIN + os.pathsep + env["PATH"]
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], capture_output=True,
                       text=True, cwd=workdir, env=env, timeout=600)
    assert r.returncode == 0, f"README.md's sh block at line {start}:\n{r.stdout[-2000:]}{r.stderr[-4000:]}"
    written = [out for line in script.splitlines()
               for out in re.findall(r"(?<![\d&>])>\s*([\w.][\w./-]*)", _command(line))]
    for out in written:
        assert os.path.getsize(os.path.join(workdir, out)) > 0, f"README.md line {start}: {out} is empty"


@pytest.mark.parametrize("block", _of("mlir"))
def test_mlir_block(block, tmp_path):
    _, start, text, _ = block
    if not _tools_built():
        pytest.skip(f"no ext tools in {BIN}")
    path = tmp_path / "block.mlir"
    path.write_text(text)
    r = subprocess.run([os.path.join(BIN, "ext-opt"), str(path), "-o", os.devnull],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"README.md's mlir block at line {start}:\n{r.stderr[-3000:]}"

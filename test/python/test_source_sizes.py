"""The house's size rule, kept by a test: no source file over 800 lines and no
function over 250 (TableGen and generated files aside), measured by
scripts/source_sizes.py. Each exception is listed here with its reason; an
exception that no longer holds (the file was split) must be removed, so the
list only shrinks on purpose."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import source_sizes  # noqa: E402

# Files over the limit, each with why it is allowed for now.
FILE_EXCEPTIONS = {
}

# Functions over the limit, as (file, function): why.
FUNCTION_EXCEPTIONS = {
}


@pytest.fixture(scope="module")
def sizes():
    return source_sizes.measure(ROOT)


def test_no_source_file_is_over_the_limit(sizes):
    files, _ = sizes
    over = {p: n for p, n in files.items() if n > source_sizes.FILE_LIMIT}
    new = sorted(f"{p} ({n} lines)" for p, n in over.items() if p not in FILE_EXCEPTIONS)
    assert not new, (f"over {source_sizes.FILE_LIMIT} lines: {new}; split them, or list "
                     "each in FILE_EXCEPTIONS with its reason")
    stale = sorted(p for p in FILE_EXCEPTIONS if p not in over)
    assert not stale, f"no longer over the limit (remove from FILE_EXCEPTIONS): {stale}"


def test_no_function_is_over_the_limit(sizes):
    _, functions = sizes
    over = {(p, f): n for p, f, n in functions if n > source_sizes.FUNCTION_LIMIT}
    new = sorted(f"{p}: {f} ({n} lines)" for (p, f), n in over.items()
                 if (p, f) not in FUNCTION_EXCEPTIONS)
    assert not new, (f"over {source_sizes.FUNCTION_LIMIT} lines: {new}; split them, or "
                     "list each in FUNCTION_EXCEPTIONS with its reason")
    stale = sorted(f"{p}: {f}" for p, f in FUNCTION_EXCEPTIONS if (p, f) not in over)
    assert not stale, f"no longer over the limit (remove from FUNCTION_EXCEPTIONS): {stale}"


def test_the_measure_finds_cpp_functions_and_ignores_braces_in_text():
    body = "\n".join(f"  x += {i};" for i in range(300))
    text = f"""// a comment with {{ braces
namespace ext {{
namespace {{
struct Local {{
  int method(int a) const {{
    return a;
  }}
}};
}} // namespace
static const char *kText = "{{ not a body";
int ext::Outer::longOne(int x) {{
  auto lambda = [&](int y) {{ return y; }};
  if (x) {{
{body}
  }}
  return lambda(x);
}}
}} // namespace ext
"""
    found = {name: last - first + 1 for name, first, last in source_sizes.cpp_functions(text)}
    assert found["method"] == 3
    assert found["ext::Outer::longOne"] == 306
    assert len(found) == 2


def test_the_measure_finds_python_functions_nested_and_in_classes():
    text = "class K:\n    @staticmethod\n    def f():\n        def g():\n            pass\n" \
           "        return 1\n\ndef h():\n" + "    x = 1\n" * 260
    found = {n: last - first + 1 for n, first, last in source_sizes.python_functions(text)}
    assert found == {"K.f": 5, "K.f.g": 2, "h": 261}

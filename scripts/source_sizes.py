#!/usr/bin/env python3
"""The sizes of ext's sources: lines per file and per function, against the
house rule (no source file over 800 lines, no function over 250; TableGen
and generated files aside). test/python/test_source_sizes.py holds the rule
and its listed exceptions; this script measures and prints.

    source_sizes.py [--root DIR] [--top N]

C++ functions are found by their braces (comments and literals stripped): a
brace at namespace or class scope whose head ends in a parameter list opens
a function, and everything to its matching brace (lambdas, local classes)
is its body; lines count from the head's first line. Python functions and
methods are measured by `ast` (decorators included), nested ones within
their parent as well as alone.
"""

import argparse
import ast
import os
import re
import subprocess
import sys

FILE_LIMIT = 800
FUNCTION_LIMIT = 250

# What counts as ext's source: the code under these folders, by suffix.
# TableGen (.td) is declarations ODS turns into code; tests and docs are
# not sources; build outputs are not in git.
SOURCE_DIRS = ("lib", "include", "python", "runtime", "tools", "fuzz", "scripts", "bench",
               "unittests", "examples")
SOURCE_SUFFIXES = (".cpp", ".h", ".c", ".py", ".sh")


def source_files(root):
    """Tracked source files, relative to `root`."""
    out = subprocess.run(["git", "-C", root, "ls-files", "--", *SOURCE_DIRS],
                         capture_output=True, text=True, check=True).stdout
    return sorted(p for p in out.splitlines() if p.endswith(SOURCE_SUFFIXES)
                  and os.path.exists(os.path.join(root, p)))


def _strip_cpp(text):
    """`text` with comments, string and character literals blanked (newlines
    kept, so offsets map to the same lines)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or
                                                            text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and \
                    text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " " * (j - i))
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n"):
            # Preprocessor lines (continuations included) hold no bodies.
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


_SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b|\bextern\s*\"")


def cpp_functions(text):
    """(name, first line, last line) of each function defined in C++
    `text`, nested ones (a local class's methods) not listed."""
    code = _strip_cpp(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, ch in enumerate(code):
        line_of[k] = line
        if ch == "\n":
            line += 1
    line_of[len(code)] = line
    functions = []
    # Per open brace: "scope" (namespace, class, extern "C"), "function"
    # (ours to measure) or "inner" (anything inside a function, and data).
    stack = []
    head_start = 0
    for k, ch in enumerate(code):
        if ch == "{":
            inside = any(kind != "scope" for kind, _, _ in stack)
            head = code[head_start:k]
            kind = "inner"
            if not inside:
                if _SCOPE.search(head) and "(" not in head.split("{")[0][:_first_scope(head)]:
                    kind = "scope"
                elif _is_function_head(head):
                    kind = "function"
            stack.append((kind, head_start, head))
            head_start = k + 1
        elif ch == "}":
            if stack:
                kind, start, head = stack.pop()
                if kind == "function":
                    first = start + len(head) - len(head.lstrip())
                    functions.append((_function_name(head), line_of[first], line_of[k]))
            head_start = k + 1
        elif ch == ";":
            head_start = k + 1
    return functions


def _first_scope(head):
    m = _SCOPE.search(head)
    return m.start() if m else 0


def _is_function_head(head):
    """Whether the text before a `{` at namespace or class scope ends a
    function's declarator: a parameter list, then qualifiers, a trailing
    return type or a constructor's initializers."""
    h = head.strip()
    if not h or "(" not in h:
        return False
    # Data: `T x[] = {`, `auto f = [](...) {` at namespace scope is a
    # variable holding a lambda (measured as a function all the same).
    depth = 0
    for ch in h:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "=" and depth == 0 and not re.search(r"\boperator\s*\S*=\s*$", h[:h.index(ch) + 1]):
            return "[" in h and "](" in h.replace(" ", "")
    return True


def _function_name(head):
    h = " ".join(head.split())
    depth = 0
    for i, ch in enumerate(h):
        if ch == "(":
            if depth == 0:
                m = re.search(r"(~?[\w:]+(?:<[^()]*>)?|operator\s*\S+)\s*$", h[:i])
                if m:
                    return m.group(1)
            depth += 1
        elif ch == ")":
            depth -= 1
    return h[:60]


def python_functions(text, path="<python>"):
    """(qualified name, first line, last line) of each Python function."""
    try:
        tree = ast.parse(text, path)
    except SyntaxError:
        return []
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((prefix + child.name, first, child.end_lineno))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def measure(root):
    """{path: lines} and [(path, function, lines)] over ext's sources."""
    files, functions = {}, []
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        files[rel] = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if rel.endswith(".py"):
            found = python_functions(text, rel)
        elif rel.endswith((".cpp", ".h", ".c")):
            found = cpp_functions(text)
        else:
            found = []
        for name, first, last in found:
            functions.append((rel, name, last - first + 1))
    return files, functions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    files, functions = measure(args.root)
    print(f"{len(files)} source files, {sum(files.values())} lines, {len(functions)} functions")
    print(f"\nlargest files (limit {FILE_LIMIT}):")
    for path, n in sorted(files.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {n:6}  {path}" + ("  OVER" if n > FILE_LIMIT else ""))
    print(f"\nlongest functions (limit {FUNCTION_LIMIT}):")
    for path, name, n in sorted(functions, key=lambda f: -f[2])[:args.top]:
        print(f"  {n:6}  {path}: {name}" + ("  OVER" if n > FUNCTION_LIMIT else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The loader under fuzzing (onnx_fuzz.py): 500 mutations of three valid
models, seed 0, in a subprocess (a crash fails the test and names its
case). Each case must load and run, or raise one of ext's ONNX errors."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("onnx")

HERE = os.path.dirname(os.path.abspath(__file__))


def test_mutated_models_load_or_raise_ext_errors():
    r = subprocess.run([sys.executable, os.path.join(HERE, "onnx_fuzz.py"), "--seed", "0",
                        "--count", "500"], capture_output=True, text=True, timeout=600)
    last_case = (r.stderr.strip().splitlines() or ["(none)"])[-1]
    assert r.returncode == 0, f"the fuzzer died (rc {r.returncode}) at {last_case}:\n" \
                              f"{r.stderr[-3000:]}"
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"\nonnx fuzz: {summary['cases']} cases ({summary['distinct']} distinct models), "
          f"{summary['loaded']} loaded and ran, refused {summary['refused']}, "
          f"{summary['failed']} failed, {summary['seconds']} s")
    failures = "\n".join(f"case {f['case']} ({', '.join(f['mutations'])}): {f['error']}\n"
                         f"{f['traceback']}" for f in summary["failures"][:5])
    assert summary["failed"] == 0, failures
    # Both ways out are exercised.
    assert summary["loaded"] >= 50, summary
    assert summary["refused"].get("InvalidModelError", 0) >= 100, summary
    assert summary["refused"].get("OnnxImportError", 0) >= 50, summary

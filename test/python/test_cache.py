"""ext.build's kernel cache: bounded (least recently used dropped first),
cleared on demand, and a dropped kernel's memory is given back (issue 34)."""

import numpy as np
import pytest

import ext


def build_scaled(n):
    A = ext.placeholder((n,), "float32", name="A")
    C = ext.compute((n,), lambda j: A[j] * 2.0 + 1.0, name="C")
    return ext.build(ext.schedule(C, tile=(32,), threads=(32,)))


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    pytest.skip("no /proc/self/status")


@pytest.fixture(autouse=True)
def fresh_cache():
    ext.clear_cache()
    ext.set_cache_limit(64)
    yield
    ext.clear_cache()
    ext.set_cache_limit(64)


def test_hits_misses_and_clear():
    k = build_scaled(40)
    assert build_scaled(40) is k
    # The disk cache is off in the suite (conftest.py): the miss compiled.
    assert ext.cache_info() == {"kernels": 1, "limit": 64, "hits": 1, "misses": 1,
                                "disk_hits": 0, "compiles": 1}
    ext.clear_cache()
    assert ext.cache_info()["kernels"] == 0
    again = build_scaled(40)
    assert again is not k
    # A kernel held elsewhere stays usable after the cache forgets it.
    np.testing.assert_allclose(k.run(np.ones(40, np.float32)), 3.0)


def test_least_recently_used_is_dropped():
    ext.set_cache_limit(2)
    a, b = build_scaled(33), build_scaled(34)
    assert build_scaled(33) is a  # a is now the most recent
    build_scaled(35)              # drops b
    assert ext.cache_info()["kernels"] == 2
    assert build_scaled(33) is a
    assert build_scaled(34) is not b


def test_limit_zero_turns_the_cache_off_and_bad_limits_raise():
    ext.set_cache_limit(0)
    assert build_scaled(36) is not build_scaled(36)
    assert ext.cache_info()["kernels"] == 0
    for bad in (-1, 2.5, True, "8"):
        with pytest.raises(ValueError, match="count of kernels"):
            ext.set_cache_limit(bad)


def test_distinct_builds_stay_within_the_limit():
    """Each distinct build costs about 1.3 MB while cached; with a limit of
    4, builds 40..120 must not grow the process by the ~100 MB an unbounded
    cache would (bench/python_cache measures 1,000 builds)."""
    ext.set_cache_limit(4)
    for n in range(40):
        build_scaled(64 + n).run(np.ones(64 + n, np.float32))
    before = rss_mb()
    for n in range(40, 120):
        build_scaled(64 + n).run(np.ones(64 + n, np.float32))
    grown = rss_mb() - before
    assert ext.cache_info()["kernels"] == 4
    assert grown < 40, f"80 more builds grew the process by {grown:.0f} MB"

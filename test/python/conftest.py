"""The suite runs with ext's disk cache of kernels off (the processes it
starts too): each test's kernels are compiled by the compiler under test,
and nothing is written to ~/.cache. test_disk_cache.py turns it on in
folders of its own."""

import os

os.environ["EXT_DISABLE_DISK_CACHE"] = "1"

# -*- Python -*- lit configuration for ext's GoogleTest unit tests: every
# TEST() in every *Tests binary under unittests/ counts as one lit test.

import os

import lit.formats

config.name = "EXT-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.ext_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

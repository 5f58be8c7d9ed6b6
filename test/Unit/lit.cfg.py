# -*- Python -*-
# lit configuration that runs the GoogleTest unit tests (one lit test per
# gtest case).

import os

import lit.formats

config.name = "AMP-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.amp_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# -*- Python -*- lit configuration of the example plugin's tests: they run
# the *installed* ext tools (from the package found by find_package(Ext)).

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "EXT_EXAMPLE_PLUGIN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.plugin_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.use_default_substitutions()

plugin_dir = config.plugin_obj_root
config.substitutions.append(
    ("%plugin", os.path.join(plugin_dir, "ExtExamplePlugin" + config.llvm_shlib_ext)))
config.substitutions.append(
    ("%other_version_plugin",
     os.path.join(plugin_dir, "ExtExamplePluginOtherVersion" + config.llvm_shlib_ext)))
config.substitutions.append(("%ext_version", config.ext_version))

# Only the installed ext's tools: no other ext-opt may be found on PATH.
llvm_config.add_tool_substitutions(["ext-opt", "ext-translate", "ext-run"],
                                   [config.ext_tools_dir])
llvm_config.add_tool_substitutions(["FileCheck", "not", "llvm-readelf"],
                                   [config.llvm_tools_dir])

if config.ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))

# Python tests need the installed package (ext built with its bindings).
if config.ext_python_dir and config.python:
    config.available_features.add("python")
    config.environment["PYTHONPATH"] = config.ext_python_dir
    config.substitutions.append(("%python", config.python))

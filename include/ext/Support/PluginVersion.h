//===- PluginVersion.h - the ext version a plugin was built for -*- C++ -*-===//
//
// ext's C++ API has no stable ABI: a plugin that uses it must be loaded by
// the very ext it was built against. Such a plugin records that version in
// one exported constant; ext-opt, ext-run and ext.load_plugin read it from
// the file before loading it and refuse a mismatch, naming both versions.
//
// ext_add_plugin (the installed ExtAddPlugin.cmake) generates the definition
// from the package's version; a plugin built some other way writes
//   EXT_PLUGIN_DEFINE_EXT_VERSION(EXT_VERSION_STRING)   // ext/Version.h
// in one of its sources. This header includes nothing, so that the
// generated source compiles with nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_PLUGINVERSION_H
#define EXT_SUPPORT_PLUGINVERSION_H

#define EXT_PLUGIN_VERSION_SYMBOL extPluginBuiltForExtVersion
#define EXT_PLUGIN_STRINGIFY_(x) #x
#define EXT_PLUGIN_STRINGIFY(x) EXT_PLUGIN_STRINGIFY_(x)
/// The exported name ext's loaders look up.
#define EXT_PLUGIN_VERSION_SYMBOL_NAME                                        \
  EXT_PLUGIN_STRINGIFY(EXT_PLUGIN_VERSION_SYMBOL)

/// Defines the constant: a NUL-terminated string in read-only data, so that
/// it can be read from the file without running any of the plugin's code.
#define EXT_PLUGIN_DEFINE_EXT_VERSION(VERSION)                                \
  extern "C" __attribute__((visibility("default"), used))                    \
  const char EXT_PLUGIN_VERSION_SYMBOL[] = VERSION;

#endif // EXT_SUPPORT_PLUGINVERSION_H

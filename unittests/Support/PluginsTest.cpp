//===- PluginsTest.cpp - which arguments name plugins, what is refused ----===//
//
// The version refusal itself needs a plugin built against the installed
// package: examples/plugin/test/version-mismatch.mlir checks it.
//
//===----------------------------------------------------------------------===//

#include "ext/Support/Plugins.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

/// The error checkPluginArguments gives for `args`, "" if none.
std::string check(std::vector<std::string> args) {
  args.insert(args.begin(), "ext-opt");
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  llvm::Error err =
      ext::checkPluginArguments(static_cast<int>(argv.size()), argv.data());
  return err ? llvm::toString(std::move(err)) : "";
}

TEST(Plugins, EverySpellingOfBothOptionsIsChecked) {
  for (const char *option : {"--load-pass-plugin", "--load-dialect-plugin",
                             "-load-pass-plugin", "-load-dialect-plugin"}) {
    std::string joined = check({"in.mlir", std::string(option) + "=/no/a.so"});
    EXPECT_NE(joined.find("could not read plugin '/no/a.so'"),
              std::string::npos)
        << option << ": " << joined;
    std::string separate = check({option, "/no/b.so", "in.mlir"});
    EXPECT_NE(separate.find("could not read plugin '/no/b.so'"),
              std::string::npos)
        << option << ": " << separate;
  }
}

TEST(Plugins, OtherArgumentsAreLeftAlone) {
  EXPECT_EQ(check({"in.mlir", "--pass-pipeline=builtin.module(cse)",
                   "--load-pass-pluginx=/no/c.so", "-o", "/no/d.so"}),
            "");
  // After "--" everything is a positional argument.
  EXPECT_EQ(check({"--", "--load-pass-plugin=/no/e.so"}), "");
  // An option at the very end has no value to check (cl reports that).
  EXPECT_EQ(check({"--load-dialect-plugin"}), "");
}

TEST(Plugins, AFileThatIsNotAnObjectIsRefused) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("not-a-plugin", "so", path));
  llvm::FileRemover remover(path);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << "func.func @f() { return }\n";
  }
  llvm::Error err = ext::checkPluginExtVersion(path);
  ASSERT_TRUE(static_cast<bool>(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("could not read plugin '" + std::string(path) + "'"),
            std::string::npos)
      << message;
}

TEST(Plugins, VersionIsThePackageVersion) {
  EXPECT_FALSE(ext::getExtVersion().empty());
  EXPECT_EQ(ext::getExtVersion().count('.'), 2u) << ext::getExtVersion().str();
}

} // namespace

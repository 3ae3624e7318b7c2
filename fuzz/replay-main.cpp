//===- replay-main.cpp - run ext-fuzz's entry point over files ------------===//
//
// `ext-fuzz-replay FILE|DIR...` feeds each file (each regular file of a
// directory, sorted) to LLVMFuzzerTestOneInput, as a libFuzzer binary does
// when given files, but built by any compiler: CI replays the corpus with it.
// A finding aborts the process; otherwise it prints how many files ran.
// No input at all (an empty or missing corpus) is an error.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      std::vector<std::string> inDir;
      for (auto &entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file())
          inDir.push_back(entry.path().string());
      std::sort(inDir.begin(), inDir.end());
      files.insert(files.end(), inDir.begin(), inDir.end());
    } else {
      files.push_back(path.string());
    }
  }
  // An empty corpus would pass without testing anything.
  if (files.empty()) {
    std::fprintf(stderr, "ext-fuzz-replay: no inputs\n");
    return 1;
  }
  for (const std::string &file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "ext-fuzz-replay: cannot read %s\n", file.c_str());
      return 1;
    }
    std::string data((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    std::fprintf(stderr, "ext-fuzz-replay: %s\n", file.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(data.data()),
                           data.size());
  }
  std::printf("ext-fuzz-replay: %zu inputs, no finding\n", files.size());
  return 0;
}

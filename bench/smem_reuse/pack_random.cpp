//===- pack_random.cpp - shared-memory packing on random problems ---------===//
//
// Standalone benchmark for ext::smem::packBuffers on random synthetic
// problems with 4 to 32 buffers, five per size: two with the interference of
// random live ranges in straight-line code (interval graphs, what a kernel
// without branches produces), three with random interference of increasing
// density. Prints one row per problem and writes the same table to argv[1]
// (default bench/smem_reuse/random.txt).
//
// Build and run from the repository root:
//   g++ -std=c++17 -O2 -Iinclude lib/Analysis/SharedMemoryPacking.cpp
//       bench/smem_reuse/pack_random.cpp -o /tmp/pack_random
//   /tmp/pack_random [OUTPUT]
//
//===----------------------------------------------------------------------===//

#include "ext/Analysis/SharedMemoryPacking.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ext::smem;

namespace {

/// Buffers shaped like tiles: elements times an element size of 1 to 16
/// bytes, aligned to the element size; a quarter get an odd byte count.
std::vector<PackingBuffer> randomBuffers(std::mt19937_64 &rng, size_t n) {
  std::uniform_int_distribution<uint64_t> elems(1, 64);
  std::uniform_int_distribution<unsigned> logAlign(0, 4);
  std::bernoulli_distribution odd(0.25);
  std::vector<PackingBuffer> buffers;
  for (size_t i = 0; i < n; ++i) {
    uint64_t align = uint64_t(1) << logAlign(rng);
    uint64_t size = odd(rng) ? elems(rng) : elems(rng) * align;
    buffers.push_back({size, align});
  }
  return buffers;
}

PackingProblem withEdges(std::vector<PackingBuffer> buffers) {
  PackingProblem p;
  size_t n = buffers.size();
  p.buffers = std::move(buffers);
  p.interferes.assign(n, std::vector<bool>(n, false));
  return p;
}

/// Live ranges [def, lastUse) over a program of 2n steps.
PackingProblem intervalProblem(std::mt19937_64 &rng, size_t n) {
  PackingProblem p = withEdges(randomBuffers(rng, n));
  std::uniform_int_distribution<size_t> start(0, 2 * n);
  std::uniform_int_distribution<size_t> length(1, std::max<size_t>(2, n / 2));
  std::vector<std::pair<size_t, size_t>> live;
  for (size_t i = 0; i < n; ++i) {
    size_t s = start(rng);
    live.emplace_back(s, s + length(rng));
  }
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      if (live[a].first < live[b].second && live[b].first < live[a].second)
        p.interferes[a][b] = p.interferes[b][a] = true;
  return p;
}

PackingProblem randomGraphProblem(std::mt19937_64 &rng, size_t n,
                                  double density) {
  PackingProblem p = withEdges(randomBuffers(rng, n));
  std::bernoulli_distribution coin(density);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      if (coin(rng))
        p.interferes[a][b] = p.interferes[b][a] = true;
  return p;
}

const char *methodName(PackingMethod m) {
  switch (m) {
  case PackingMethod::Trivial:
    return "trivial";
  case PackingMethod::Exact:
    return "exact";
  case PackingMethod::BestFitDecreasing:
    return "bfd";
  }
  return "?";
}

} // namespace

int main(int argc, char **argv) {
  std::string outPath = argc > 1 ? argv[1] : "bench/smem_reuse/random.txt";
  std::mt19937_64 rng(20240601);
  std::ostringstream table;
  char line[256];
  std::snprintf(line, sizeof(line),
                "%4s  %-12s %8s %8s %8s %8s %8s %8s %6s %10s\n", "N", "graph",
                "naive", "bfd", "ext", "lower", "ext/low", "method", "proved",
                "time_us");
  table << line;

  uint64_t sumNaive = 0, sumBfd = 0, sumExt = 0;
  size_t rows = 0, proved = 0;
  for (size_t n : {4, 6, 8, 10, 12, 14, 16, 20, 24, 32}) {
    for (int trial = 0; trial < 5; ++trial) {
      bool interval = trial < 2;
      double density = trial == 2 ? 0.3 : trial == 3 ? 0.6 : 0.9;
      PackingProblem p = interval ? intervalProblem(rng, n)
                                  : randomGraphProblem(rng, n, density);
      // Median of three runs, to steady the clock.
      std::vector<double> micros;
      PackingResult r;
      for (int run = 0; run < 3; ++run) {
        auto start = std::chrono::steady_clock::now();
        r = packBuffers(p);
        micros.push_back(std::chrono::duration<double, std::micro>(
                             std::chrono::steady_clock::now() - start)
                             .count());
      }
      std::sort(micros.begin(), micros.end());
      std::string why;
      if (!isValidPacking(p, r.offsets, &why)) {
        std::cerr << "invalid packing for N = " << n << ": " << why << "\n";
        return 1;
      }
      char graph[32];
      if (interval)
        std::snprintf(graph, sizeof(graph), "intervals");
      else
        std::snprintf(graph, sizeof(graph), "random-%.1f", density);
      double ratio = r.lowerBound ? double(r.total) / r.lowerBound : 1.0;
      std::snprintf(
          line, sizeof(line),
          "%4zu  %-12s %8llu %8llu %8llu %8llu %8.3f %8s %6s %10.0f\n", n,
          graph, (unsigned long long)r.naiveSum,
          (unsigned long long)r.bestFitTotal, (unsigned long long)r.total,
          (unsigned long long)r.lowerBound, ratio, methodName(r.method),
          r.provedOptimal ? "yes" : "no", micros[1]);
      table << line;
      sumNaive += r.naiveSum;
      sumBfd += r.bestFitTotal;
      sumExt += r.total;
      proved += r.provedOptimal;
      ++rows;
    }
  }
  std::snprintf(line, sizeof(line),
                "\n%zu problems, %zu proved optimal; total bytes: naive %llu, "
                "bfd %llu (%.1f%%), ext %llu (%.1f%%)\n",
                rows, proved, (unsigned long long)sumNaive,
                (unsigned long long)sumBfd, 100.0 * sumBfd / sumNaive,
                (unsigned long long)sumExt, 100.0 * sumExt / sumNaive);
  table << line;

  std::cout << table.str();
  std::ofstream out(outPath);
  if (!out) {
    std::cerr << "cannot write " << outPath << "\n";
    return 1;
  }
  out << table.str();
  std::cout << "(written to " << outPath << ")\n";
  return 0;
}

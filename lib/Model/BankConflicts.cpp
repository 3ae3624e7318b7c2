//===- BankConflicts.cpp - shared-memory bank conflict arithmetic ---------===//

#include "ext/Model/BankConflicts.h"

#include <algorithm>
#include <numeric>
#include <utility>

using namespace ext::bank;

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

bool isPowerOf2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

} // namespace

unsigned BankModel::lanesPerPhase(unsigned bytes) const {
  // Each phase moves at most one row of banks (128 bytes).
  unsigned perLane = std::max(bytes, bankBytes);
  unsigned pow2 = 1;
  while (pow2 < perLane)
    pow2 *= 2;
  unsigned lanes = std::max(1u, unsigned(period() / pow2));
  return std::min(lanes, warpSize);
}

std::optional<BankModel> BankModel::of(const ext::ChipInfo &chip) {
  if (!chip.hasBankModel)
    return std::nullopt;
  return BankModel{chip.sharedBanks, chip.bankBytes, chip.warpSize};
}

Cost ext::bank::countWavefronts(const BankModel &model,
                                const int64_t *addresses, const bool *active,
                                unsigned bytes) {
  Cost cost;
  unsigned lanes = model.lanesPerPhase(bytes);
  std::vector<std::pair<int64_t, int64_t>> bankWords; // (bank, word)
  for (unsigned first = 0; first < model.warpSize; first += lanes) {
    bankWords.clear();
    for (unsigned l = first; l < std::min(first + lanes, model.warpSize); ++l) {
      if (active && !active[l])
        continue;
      int64_t lo = floorDiv(addresses[l], model.bankBytes);
      int64_t hi = floorDiv(addresses[l] + int64_t(bytes) - 1, model.bankBytes);
      for (int64_t w = lo; w <= hi; ++w)
        bankWords.push_back({floorMod(w, model.banks), w});
    }
    if (bankWords.empty())
      continue;
    std::sort(bankWords.begin(), bankWords.end());
    bankWords.erase(std::unique(bankWords.begin(), bankWords.end()),
                    bankWords.end());
    // Distinct words per bank: runs of equal banks in the sorted list.
    unsigned worst = 0, run = 0;
    for (size_t i = 0; i < bankWords.size(); ++i) {
      run = (i > 0 && bankWords[i].first == bankWords[i - 1].first) ? run + 1
                                                                      : 1;
      worst = std::max(worst, run);
    }
    cost.wavefronts += worst;
    cost.phases += 1;
    cost.degree = std::max(cost.degree, worst);
  }
  return cost;
}

Cost ext::bank::worstCaseAffine(const BankModel &model,
                                const AffineAccess &access) {
  const int64_t word = model.bankBytes;
  const unsigned bytes = access.bytes;
  const unsigned lanes = model.lanesPerPhase(bytes);
  const unsigned phases = (model.warpSize + lanes - 1) / lanes;
  // Every base the pattern allows is word aligned (and a sub-word access
  // never straddles a word) and lanes are whole words apart: lane l touches
  // words w0 + s*l + [0, W). Moving the base by whole words rotates the
  // banks, so the cost does not depend on it, and every phase is the first
  // one moved by s*lanes words.
  bool wordAligned =
      isPowerOf2(bytes) && bytes <= 16 && access.laneStride % word == 0 &&
      (bytes >= word
           ? access.baseResidue % word == 0 && access.baseStep % word == 0
           : access.baseResidue % bytes == 0 && access.baseStep % bytes == 0);
  if (wordAligned && model.warpSize % lanes == 0) {
    int64_t s = access.laneStride / word;
    int64_t w = std::max<int64_t>(1, bytes / word);
    unsigned degree = 1;
    if (s != 0) {
      int64_t g = std::gcd(s < 0 ? -s : s, int64_t(model.banks));
      if (g >= w) {
        // Lanes start on residues g apart, each window of w banks inside
        // its own block of g banks; a residue is shared by lanes/(banks/g)
        // lanes (their words differ by multiples of the bank count).
        int64_t period = model.banks / g;
        degree = period >= lanes ? 1 : unsigned(lanes / period);
      } else {
        // Windows of neighbouring residues overlap: count one phase.
        std::vector<int64_t> addr(model.warpSize, 0);
        for (unsigned l = 0; l < lanes; ++l)
          addr[l] = access.laneStride * int64_t(l);
        std::vector<char> act(model.warpSize, 0);
        std::fill(act.begin(), act.begin() + lanes, 1);
        degree = countWavefronts(model, addr.data(),
                                 reinterpret_cast<const bool *>(act.data()),
                                 bytes)
                     .degree;
      }
    }
    return {degree * phases, phases, degree};
  }

  // Otherwise enumerate the base residues modulo the bank period.
  const int64_t period = model.period();
  int64_t step = floorMod(access.baseStep, period);
  int64_t g = std::gcd(step, period); // gcd(0, p) = p: one residue
  Cost worst;
  std::vector<int64_t> addr(model.warpSize);
  for (int64_t r = floorMod(access.baseResidue, g); r < period; r += g) {
    for (unsigned l = 0; l < model.warpSize; ++l)
      addr[l] = r + access.laneStride * int64_t(l);
    Cost c = countWavefronts(model, addr.data(), nullptr, bytes);
    worst.wavefronts = std::max(worst.wavefronts, c.wavefronts);
    worst.phases = std::max(worst.phases, c.phases);
    worst.degree = std::max(worst.degree, c.degree);
  }
  return worst;
}

//===- BankCounter.cpp - shared-memory wavefronts, measured ---------------===//

#include "BankCounter.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

using namespace ext::emu;

void BankCounter::record(int64_t block, int64_t thread, int32_t site,
                         int64_t offset, int64_t bytes) {
  uint64_t n = executions[{block, thread, site}]++;
  Request &r = pending[{block, thread / 32, site, n}];
  int64_t lane = thread % 32;
  r.offset[lane] = offset;
  r.active[lane] = true;
  // Lanes of one request access the same type; keep the widest if not.
  r.bytes = std::max(r.bytes, bytes);
}

void BankCounter::flushBlock(int64_t block) {
  auto first = pending.lower_bound({block, INT64_MIN, INT32_MIN, 0});
  auto last = pending.lower_bound({block + 1, INT64_MIN, INT32_MIN, 0});
  for (auto it = first; it != last; ++it) {
    const Request &r = it->second;
    bank::Cost c = bank::countWavefronts(model, r.offset.data(),
                                         r.active.data(), unsigned(r.bytes));
    SiteStats &s = sites[std::get<2>(it->first)];
    s.requests += 1;
    s.wavefronts += c.wavefronts;
    s.phases += c.phases;
    s.worst = std::max(s.worst, c.degree);
  }
  pending.erase(first, last);
  executions.erase(executions.lower_bound({block, INT64_MIN, INT32_MIN}),
                   executions.lower_bound({block + 1, INT64_MIN, INT32_MIN}));
}

void BankCounter::merge(const BankCounter &other) {
  for (const auto &[site, s] : other.sites) {
    SiteStats &mine = sites[site];
    mine.requests += s.requests;
    mine.wavefronts += s.wavefronts;
    mine.phases += s.phases;
    mine.worst = std::max(mine.worst, s.worst);
  }
}

std::string BankCounter::report(const std::string &kernel,
                                const std::vector<std::string> &names) const {
  if (sites.empty())
    return "";
  std::ostringstream os;
  char line[160];
  // Sites are per access op; the report is per location, as the static
  // analysis' remarks are.
  std::map<std::string, SiteStats> byName;
  for (const auto &[site, s] : sites) {
    SiteStats &n = byName[site >= 0 && size_t(site) < names.size()
                              ? names[site]
                              : std::string("?")];
    n.requests += s.requests;
    n.wavefronts += s.wavefronts;
    n.phases += s.phases;
    n.worst = std::max(n.worst, s.worst);
  }
  SiteStats total;
  for (const auto &[name, s] : byName) {
    total.requests += s.requests;
    total.wavefronts += s.wavefronts;
    total.phases += s.phases;
    total.worst = std::max(total.worst, s.worst);
  }
  auto ratio = [](const SiteStats &s) {
    return s.phases ? double(s.wavefronts) / double(s.phases) : 0.0;
  };
  std::snprintf(line, sizeof line,
                "ext-emu: bank conflicts: kernel '%s': %llu requests, %llu "
                "wavefronts, conflict ratio %.3f, worst %u-way\n",
                kernel.c_str(), (unsigned long long)total.requests,
                (unsigned long long)total.wavefronts, ratio(total),
                total.worst);
  os << line;
  for (const auto &[name, s] : byName) {
    std::snprintf(line, sizeof line,
                  "ext-emu: bank conflicts:   %10llu requests %10llu "
                  "wavefronts  ratio %6.3f  worst %2u-way  at ",
                  (unsigned long long)s.requests,
                  (unsigned long long)s.wavefronts, ratio(s), s.worst);
    os << line << name << "\n";
  }
  return os.str();
}

//===- ReportSvg.cpp - pictures of decomposition plans and packings -------===//

#include "ext/Support/ReportSvg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

using namespace ext;
namespace tw = ext::tilework;

namespace {
std::mutex settingMutex;
std::string svgDirectory;
std::vector<std::string> writtenFiles;

/// XML text: the five characters that need escaping.
std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += c;
    }
  }
  return out;
}

/// A colour per index, spread around the hue circle (golden angle).
std::string colour(int64_t index, double lightness = 0.62) {
  double hue = std::fmod(double(index) * 137.508, 360.0);
  return llvm::formatv("hsl({0:f1}, 62%, {1:f0}%)", hue, lightness * 100).str();
}

/// The document's start: size, the arrow marker, a white page and the
/// title (as <title> and as a heading at `left`).
std::string header(double width, double height, double left,
                   llvm::StringRef title) {
  return llvm::formatv(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
             "width=\"{0:f0}\" height=\"{1:f0}\" viewBox=\"0 0 {0:f0} {1:f0}\" "
             "font-family=\"sans-serif\" font-size=\"11\">\n"
             "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" "
             "refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
             "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
             "fill=\"#333\"/></marker></defs>\n"
             "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
             "<title>{2}</title>\n<text x=\"{3}\" y=\"18\" font-size=\"14\" "
             "font-weight=\"bold\">{2}</text>\n",
             width, height, escape(title), left)
      .str();
}

const char *roleName(tw::Role role) {
  switch (role) {
  case tw::Role::Whole:
    return "whole";
  case tw::Role::Contributor:
    return "contributor";
  case tw::Role::Owner:
    return "owner";
  }
  return "?";
}
} // namespace

std::string ext::getReportSvgDirectory() {
  std::lock_guard<std::mutex> lock(settingMutex);
  return svgDirectory;
}

void ext::setReportSvgDirectory(llvm::StringRef directory) {
  std::lock_guard<std::mutex> lock(settingMutex);
  svgDirectory = directory.str();
}

ScopedReportSvgDirectory::ScopedReportSvgDirectory(llvm::StringRef directory) {
  std::lock_guard<std::mutex> lock(settingMutex);
  previous = svgDirectory;
  svgDirectory = directory.str();
  firstWritten = writtenFiles.size();
}

ScopedReportSvgDirectory::~ScopedReportSvgDirectory() {
  std::lock_guard<std::mutex> lock(settingMutex);
  svgDirectory = previous;
}

std::vector<std::string> ScopedReportSvgDirectory::written() const {
  std::lock_guard<std::mutex> lock(settingMutex);
  return std::vector<std::string>(writtenFiles.begin() + firstWritten,
                                  writtenFiles.end());
}

std::string ext::writeReportSvg(llvm::StringRef stem, llvm::StringRef svg,
                                std::string &error) {
  std::string directory = getReportSvgDirectory();
  if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
    error = "cannot create '" + directory + "': " + ec.message();
    return "";
  }
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, stem + ".svg");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write '" + path.str().str() + "': " + ec.message();
    return "";
  }
  os << svg;
  std::lock_guard<std::mutex> lock(settingMutex);
  writtenFiles.push_back(path.str().str());
  return path.str().str();
}

//===----------------------------------------------------------------------===//
// Decomposition plans
//===----------------------------------------------------------------------===//

std::string ext::decompositionSvg(const tw::Plan &plan,
                                  llvm::StringRef title) {
  struct Placed {
    tw::Unit unit;
    double x0, x1;
  };
  int64_t grid = plan.grid;
  std::vector<std::vector<Placed>> rows(grid);
  std::map<int64_t, std::pair<int64_t, double>> slotWriters; // slot -> (cta, x)
  int64_t longest = 1;
  std::vector<std::vector<tw::Unit>> units(grid);
  for (int64_t c = 0; c < grid; ++c) {
    for (const tw::Unit &u : tw::unitsOf(plan, c))
      units[c].push_back(u);
    int64_t iters = 0;
    for (const tw::Unit &u : units[c])
      iters += u.kEnd - u.kBegin;
    longest = std::max(longest, iters);
  }
  const double left = 70, top = 46, rowHeight = 16, plotWidth = 900;
  double perIter = std::min(28.0, plotWidth / double(longest));
  for (int64_t c = 0; c < grid; ++c) {
    double x = left;
    for (const tw::Unit &u : units[c]) {
      double w = perIter * double(u.kEnd - u.kBegin);
      rows[c].push_back({u, x, x + w});
      if (u.role == tw::Role::Contributor)
        slotWriters[u.slot] = {c, x + w};
      x += w;
    }
  }
  int64_t reductionRows = plan.reductionGrid();
  int64_t partials = int64_t(slotWriters.size());
  double height = top + rowHeight * double(grid + reductionRows) + 40;
  double width = left + plotWidth + 40;
  std::string out = header(width, height, left, title);
  llvm::raw_string_ostream os(out);
  os << llvm::formatv(
      "<text x=\"{0}\" y=\"34\">{1} tiles of {2} iterations on {3} CTAs; "
      "{4} partial tile(s) stored and combined. Rows: CTAs, units in run "
      "order; colour: tile; light: a partial it stores; outlined: a tile it "
      "owns; arrows: fixup waits.</text>\n",
      left, plan.tiles, plan.iters, grid, partials);
  for (int64_t c = 0; c < grid; ++c) {
    double y = top + rowHeight * double(c);
    os << llvm::formatv("<g class=\"cta\" data-cta=\"{0}\">\n", c);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:f1}\" text-anchor=\"end\">CTA "
                        "{2}</text>\n",
                        left - 6, y + rowHeight - 4, c);
    for (const Placed &p : rows[c]) {
      const tw::Unit &u = p.unit;
      os << llvm::formatv(
          "<rect class=\"unit {0}\" data-tile=\"{1}\" data-k-begin=\"{2}\" "
          "data-k-end=\"{3}\" x=\"{4:f2}\" y=\"{5:f1}\" width=\"{6:f2}\" "
          "height=\"{7:f1}\" fill=\"{8}\" stroke=\"{9}\" stroke-width=\"{10}\">"
          "<title>CTA {11}: tile {1}, iterations [{2}, {3}) ({0})</title>"
          "</rect>\n",
          roleName(u.role), u.tile, u.kBegin, u.kEnd, p.x0, y + 1,
          p.x1 - p.x0, rowHeight - 2,
          colour(u.tile, u.role == tw::Role::Contributor ? 0.82 : 0.62),
          u.role == tw::Role::Owner ? "#111" : "#fff",
          u.role == tw::Role::Owner ? "1.5" : "0.5", c);
      if (p.x1 - p.x0 > 22)
        os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" "
                            "text-anchor=\"middle\" font-size=\"9\">t{2}</text>\n",
                            (p.x0 + p.x1) / 2, y + rowHeight - 5, u.tile);
    }
    os << "</g>\n";
  }
  // Fixup waits: each combined partial, from where its writer stored it to
  // the end of the unit that waits for it.
  for (int64_t c = 0; c < grid; ++c)
    for (const Placed &p : rows[c])
      for (int64_t slot : tw::combinedBy(plan, p.unit)) {
        auto it = slotWriters.find(slot);
        if (it == slotWriters.end())
          continue;
        auto [writer, wx] = it->second;
        os << llvm::formatv(
            "<line class=\"fixup\" data-slot=\"{0}\" x1=\"{1:f2}\" "
            "y1=\"{2:f1}\" x2=\"{3:f2}\" y2=\"{4:f1}\" stroke=\"#333\" "
            "stroke-width=\"1\" marker-end=\"url(#arrow)\"/>\n",
            slot, wx, top + rowHeight * (double(writer) + 0.5), p.x1,
            top + rowHeight * (double(c) + 0.5));
      }
  // Parallel split-K: the reduction launch's CTAs, one per tile.
  for (int64_t t = 0; t < reductionRows; ++t) {
    double y = top + rowHeight * double(grid + t);
    os << llvm::formatv("<g class=\"reduction-cta\" data-tile=\"{0}\">\n", t);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:f1}\" text-anchor=\"end\">"
                        "reduce {2}</text>\n",
                        left - 6, y + rowHeight - 4, t);
    os << llvm::formatv("<rect class=\"unit reduction\" data-tile=\"{0}\" "
                        "x=\"{1}\" y=\"{2:f1}\" width=\"{3}\" height=\"{4:f1}\" "
                        "fill=\"{5}\" stroke=\"#111\"/>\n",
                        t, left, y + 1, 40, rowHeight - 2, colour(t));
    for (int64_t slot : tw::contributorsOf(plan, t)) {
      auto it = slotWriters.find(slot);
      if (it == slotWriters.end())
        continue;
      auto [writer, wx] = it->second;
      os << llvm::formatv(
          "<line class=\"fixup\" data-slot=\"{0}\" x1=\"{1:f2}\" y1=\"{2:f1}\" "
          "x2=\"{3}\" y2=\"{4:f1}\" stroke=\"#333\" marker-end=\"url(#arrow)\"/>\n",
          slot, wx, top + rowHeight * (double(writer) + 0.5), left + 40,
          y + rowHeight / 2);
    }
    os << "</g>\n";
  }
  os << llvm::formatv("<text x=\"{0}\" y=\"{1:f1}\">0</text><text x=\"{2:f1}\" "
                      "y=\"{1:f1}\" text-anchor=\"end\">{3} iterations</text>\n",
                      left, height - 12, left + perIter * double(longest),
                      longest);
  os << "</svg>\n";
  return out;
}

//===----------------------------------------------------------------------===//
// Shared-memory packings
//===----------------------------------------------------------------------===//

std::string ext::packingSvg(llvm::ArrayRef<PackedBuffer> buffers,
                            uint64_t total, uint64_t unpackedSum,
                            llvm::StringRef title) {
  int64_t first = 0, last = 1;
  bool any = false;
  for (const PackedBuffer &b : buffers)
    if (b.begin >= 0) {
      first = any ? std::min(first, b.begin) : b.begin;
      last = any ? std::max(last, b.end + 1) : b.end + 1;
      any = true;
    }
  const double left = 80, top = 50, plotWidth = 720, plotHeight = 360;
  double scaleBytes = double(std::max<uint64_t>({total, unpackedSum, 1}));
  double perPoint = plotWidth / double(std::max<int64_t>(1, last - first));
  auto yOf = [&](uint64_t bytes) {
    return top + plotHeight - plotHeight * double(bytes) / scaleBytes;
  };
  double width = left + plotWidth + 190, height = top + plotHeight + 60;
  std::string out = header(width, height, left, title);
  llvm::raw_string_ostream os(out);
  os << llvm::formatv(
      "<text x=\"{0}\" y=\"34\">{1} buffer(s): live interval (x, op order) by "
      "bytes (y); packed into {2} B, {3} B unpacked.</text>\n",
      left, buffers.size(), total, unpackedSum);
  // Axes.
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                      "stroke=\"#000\"/><line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" "
                      "y2=\"{2}\" stroke=\"#000\"/>\n",
                      left, top, top + plotHeight, left + plotWidth);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1:f1}\" text-anchor=\"end\">{2} "
                      "B</text><text x=\"{0}\" y=\"{3}\" text-anchor=\"end\">0"
                      "</text>\n",
                      left - 4, yOf(uint64_t(scaleBytes)) + 4,
                      uint64_t(scaleBytes), top + plotHeight);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\">op {2}</text><text x=\"{3}\" "
                      "y=\"{1}\" text-anchor=\"end\">op {4}</text>\n",
                      left, top + plotHeight + 16, first, left + plotWidth,
                      last - 1);
  for (auto [i, b] : llvm::enumerate(buffers)) {
    bool live = b.begin >= 0;
    double x0 = live ? left + perPoint * double(b.begin - first) : left;
    double x1 = live ? left + perPoint * double(b.end + 1 - first) : left + 8;
    double y0 = yOf(b.offset + b.bytes), y1 = yOf(b.offset);
    os << llvm::formatv("<g class=\"buffer\" data-buffer=\"{0}\">\n", i);
    os << llvm::formatv(
        "<rect x=\"{0:f2}\" y=\"{1:f2}\" width=\"{2:f2}\" height=\"{3:f2}\" "
        "fill=\"{4}\" fill-opacity=\"0.75\" stroke=\"#222\"{5}><title>#{6} "
        "{7}: {8} B at offset {9}, live {10}</title></rect>\n",
        x0, y0, std::max(1.0, x1 - x0), std::max(1.0, y1 - y0), colour(i),
        live ? "" : " stroke-dasharray=\"3,2\"", i, escape(b.name), b.bytes,
        b.offset,
        live ? llvm::formatv("[{0}, {1}]", b.begin, b.end).str()
             : std::string("never"));
    if (y1 - y0 > 11 && x1 - x0 > 30)
      os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" font-size=\"10\">#{2}"
                          " {3} B</text>\n",
                          x0 + 3, y0 + 11, i, b.bytes);
    os << "</g>\n";
  }
  // The footprint with reuse against the sum without.
  double barX = left + plotWidth + 40;
  os << llvm::formatv(
      "<g class=\"footprint\"><rect x=\"{0}\" y=\"{1:f2}\" width=\"40\" "
      "height=\"{2:f2}\" fill=\"#4a7\"/><text x=\"{3}\" y=\"{4}\" "
      "text-anchor=\"middle\">packed</text><text x=\"{3}\" y=\"{5}\" "
      "text-anchor=\"middle\">{6} B</text>\n",
      barX, yOf(total), top + plotHeight - yOf(total), barX + 20,
      top + plotHeight + 16, top + plotHeight + 30, total);
  os << llvm::formatv(
      "<rect x=\"{0}\" y=\"{1:f2}\" width=\"40\" height=\"{2:f2}\" "
      "fill=\"#c66\"/><text x=\"{3}\" y=\"{4}\" text-anchor=\"middle\">"
      "unpacked</text><text x=\"{3}\" y=\"{5}\" text-anchor=\"middle\">{6} "
      "B</text></g>\n",
      barX + 60, yOf(unpackedSum), top + plotHeight - yOf(unpackedSum),
      barX + 80, top + plotHeight + 16, top + plotHeight + 30, unpackedSum);
  os << "</svg>\n";
  return out;
}

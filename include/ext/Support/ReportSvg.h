//===- ReportSvg.h - pictures of decomposition plans and packings -*- C++ -*-===//
//
// `ext-opt --ext-report-svg=DIR` (and Python's `Kernel.plot`) draw what the
// text reports print:
//  * a decomposition plan: one row per CTA, its work units in the order it
//    runs them (width: iterations; colour: the tile; contributors lighter,
//    owners outlined), and an arrow from each partial's writer to the unit
//    that combines it (the fixup waits);
//  * a shared-memory packing: each buffer as a rectangle of its live
//    interval (x, the kernel's op numbering) by the bytes it occupies (y),
//    and the packed footprint beside the unpacked sum.
// Plain strings of SVG 1.1; every CTA and every buffer is a <g> element with
// a `class` and a `data-*` index, so tests and tools can find them.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_REPORTSVG_H
#define EXT_SUPPORT_REPORTSVG_H

#include "ext/Model/TileWork.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ext {

/// The directory pictures go to; empty (the default): none are drawn.
/// Process-wide (passes run on MLIR's threads), set by ext-opt's flag or for
/// one compilation by ScopedReportSvgDirectory.
std::string getReportSvgDirectory();
void setReportSvgDirectory(llvm::StringRef directory);

class ScopedReportSvgDirectory {
public:
  explicit ScopedReportSvgDirectory(llvm::StringRef directory);
  ~ScopedReportSvgDirectory();
  /// The files written since it was made.
  std::vector<std::string> written() const;

private:
  std::string previous;
  size_t firstWritten;
};

/// Writes `svg` to DIR/`stem`.svg (DIR created as needed); returns the path,
/// or an empty string and `error` set.
std::string writeReportSvg(llvm::StringRef stem, llvm::StringRef svg,
                           std::string &error);

/// The plan's picture; `title` heads it.
std::string decompositionSvg(const tilework::Plan &plan,
                             llvm::StringRef title);

struct PackedBuffer {
  std::string name;
  /// Live interval (inclusive; begin < 0: never used) and placement.
  int64_t begin = -1, end = -1;
  uint64_t offset = 0, bytes = 0;
};

std::string packingSvg(llvm::ArrayRef<PackedBuffer> buffers, uint64_t total,
                       uint64_t unpackedSum, llvm::StringRef title);

} // namespace ext

#endif // EXT_SUPPORT_REPORTSVG_H

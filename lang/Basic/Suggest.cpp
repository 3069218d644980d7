//===- Suggest.cpp - "did you mean" for near-miss names -------------------===//
#include "lang/Basic/Suggest.h"

#include <algorithm>
#include <vector>

using namespace gnnc;

/// Optimal-string-alignment distance: insertions, deletions, substitutions
/// and swaps of adjacent letters ("GNC" -> "GCN") each cost 1. llvm's
/// StringRef::edit_distance counts a swap as 2, which hides the most common
/// typo of all.
static unsigned typoDistance(llvm::StringRef a, llvm::StringRef b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<unsigned>> d(n + 1, std::vector<unsigned>(m + 1));
  for (size_t i = 0; i <= n; ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= m; ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::optional<std::string>
gnnc::closestMatch(llvm::StringRef word,
                   llvm::ArrayRef<llvm::StringRef> candidates) {
  if (word.empty())
    return std::nullopt;
  unsigned limit = std::clamp<unsigned>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  unsigned bestDist = ~0u;
  for (llvm::StringRef cand : candidates) {
    if (cand == word)
      continue;
    unsigned dist;
    if (cand.equals_insensitive(word))
      dist = 0;
    else
      dist = typoDistance(word, cand);
    if (dist > limit) {
      // A prefix of a longer name is a common shorthand, not a typo.
      if (word.size() >= 3 && cand.starts_with(word))
        dist = limit;
      else
        continue;
    }
    if (dist < bestDist) {
      bestDist = dist;
      best = cand.str();
    }
  }
  return best;
}

std::string gnnc::didYouMean(llvm::StringRef word,
                             llvm::ArrayRef<llvm::StringRef> candidates) {
  if (auto match = closestMatch(word, candidates))
    return "; did you mean '" + *match + "'?";
  return "";
}

#include <sonicsim/util/errors.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace sonicsim {
namespace {

std::string format_problems(const std::string& file, const std::vector<Problem>& problems) {
  std::string out;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (i) out += '\n';
    out += file + ": ";
    if (!problems[i].path.empty()) out += problems[i].path + ": ";
    out += problems[i].message;
  }
  return out;
}

// Optimal-string-alignment distance: like Levenshtein, with a swap of two neighbours as one edit
// (the commonest typo, "jbos" for "jobs").
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

bool is_subsequence(std::string_view small, std::string_view big) {
  std::size_t i = 0;
  for (char c : big)
    if (i < small.size() && small[i] == c) ++i;
  return i == small.size();
}

}  // namespace

InputError::InputError(std::string file, std::vector<Problem> problems)
    : std::runtime_error(format_problems(file, problems)),
      file_(std::move(file)),
      problems_(std::move(problems)) {}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  // The distance table is quadratic: a pasted blob as a key gets no hint rather than a stall.
  if (word.size() > 64) return {};
  const std::string w = lower(word);
  // Short words get one edit, longer ones about a third of their length.
  const std::size_t threshold = w.size() <= 3 ? 1 : std::max<std::size_t>(2, w.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = threshold + 1;
  for (const std::string& c : candidates) {
    const std::string lc = lower(c);
    std::size_t dist = edit_distance(w, lc);
    // A truncated key ("offload" for "offload_fraction") is far in edits but obvious to a reader.
    const bool prefix = w.size() >= 4 && (lc.rfind(w, 0) == 0 || w.rfind(lc, 0) == 0);
    if (prefix) dist = std::min<std::size_t>(dist, 1);
    // On a tie, a candidate the word is a subsequence of wins: a dropped letter ("sever" for
    // "servers") is a likelier typo than a changed one ("seed").
    const bool better =
        dist < best_distance || (dist == best_distance && best != nullptr &&
                                 is_subsequence(w, lc) && !is_subsequence(w, lower(*best)));
    if (better) {
      best_distance = dist;
      best = &c;
    }
  }
  return best ? "did you mean `" + *best + "`?" : std::string();
}

}  // namespace sonicsim

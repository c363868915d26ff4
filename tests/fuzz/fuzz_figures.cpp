// Fuzz target: a gallery folder's figures.json as `sonicsim reproduce` and scripts/validate.sh
// read it (docs/gallery.md); nothing is simulated.
#include <sonicsim/gallery/figures.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(figures) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string file = fuzz::scratch_file("figures.json", input);
  fuzz::expect_contract("figures", fuzz::Where::Anywhere, [&] { gallery::load_figures(file); });
  return 0;
}

#include <sonicsim/runner/budget.hpp>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::runner {

double Budget::value() {
  if (value_ < 0.0) value_ = spec_.default_value();
  return value_;
}

void Budget::set(double v) {
  value_ = v;
  given_ = true;
}

std::string Budget::argument() {
  const double v = value();
  return std::isinf(v) ? std::string("unlimited") : util::formatted("%.0f", v);
}

bool Budget::parse(const std::string& text, double& v, std::string& error) const {
  if (text == "unlimited") {
    v = std::numeric_limits<double>::infinity();
    return true;
  }
  nlohmann::json value = text;
  if (const auto number = util::parse_number(text)) value = *number;
  std::string why;
  const auto parsed = scenario::parse_quantity(value, spec_.quantity, why);
  if (!parsed || !std::isfinite(*parsed) || *parsed < spec_.minimum) {
    error = "found \"" + text.substr(0, 40) + "\", expected " + spec_.expected +
            ", or `unlimited`" + (why.empty() ? std::string() : " (" + why + ")");
    return false;
  }
  v = *parsed;
  return true;
}

}  // namespace sonicsim::runner

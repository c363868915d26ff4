#include <sonicsim/results_format/plan_reader.hpp>

#include <cctype>
#include <set>

#include <sonicsim/results_format/plan_keys.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>

#include "document_state.hpp"

namespace sonicsim::results {

using json = nlohmann::json;

namespace {

namespace pk = plan_keys;

std::string plan_brief(const json& v) {
  const std::string text = v.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

bool is_month(const std::string& s) {
  if (s.size() != 7 || s[4] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  const int m = std::stoi(s.substr(5));
  return m >= 1 && m <= 12;
}

// The keys of a JSON object's top level, found without building the document.
class TopKeys : public json::json_sax_t {
 public:
  std::set<std::string> keys;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth_, true; }
  bool key(string_t& key) override {
    if (depth_ == 1) keys.insert(key);
    return true;
  }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override { return ++depth_, true; }
  bool end_array() override { return --depth_, true; }
  bool parse_error(std::size_t, const std::string&, const json::exception&) override {
    return false;
  }

 private:
  int depth_ = 0;
};

}  // namespace

// ---- shared readers -------------------------------------------------------------------------

bool PlanView::is_set(std::string_view key) const {
  const json* v = doc_->find(at(key).pointer());
  return v && !v->is_null();
}

std::string PlanView::required_text(std::string_view key) const {
  if (!has(key)) {
    doc_->problem(at(key).pointer(), "missing, expected a string");
    return "";
  }
  return text(key).value_or("");
}

bool PlanView::required_flag(std::string_view key) const {
  if (!has(key)) {
    doc_->problem(at(key).pointer(), "missing, expected true or false");
    return false;
  }
  return flag(key).value_or(false);
}

std::string PlanView::month(std::string_view key) const {
  const std::string s = required_text(key);
  if (!s.empty() && !is_month(s))
    doc_->problem(at(key).pointer(), "found \"" + s + "\", expected a month YYYY-MM");
  return is_month(s) ? s : "";
}

std::optional<std::string> PlanView::nullable_month(std::string_view key) const {
  if (has(key) && !is_set(key)) return std::nullopt;
  const std::string s = month(key);
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

PlanInterval PlanView::interval(std::string_view key) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer());
  if (!v || !v->is_array() || v->size() != 2) {
    doc_->problem(place.pointer(), (v ? "found " + plan_brief(*v) : std::string("missing")) +
                                       ", expected [low, high]");
    return {};
  }
  return {place.nullable_number("0"), place.nullable_number("1")};
}

std::vector<std::optional<double>> PlanView::nullable_numbers(std::string_view key) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer());
  if (!v || !v->is_array()) {
    doc_->problem(place.pointer(), (v ? "found " + plan_brief(*v) : std::string("missing")) +
                                       ", expected an array of numbers or nulls");
    return {};
  }
  std::vector<std::optional<double>> out;
  for (std::size_t i = 0; i < v->size(); ++i)
    out.push_back(place.nullable_number(std::to_string(i)));
  return out;
}

// ---- robust -----------------------------------------------------------------------------------

double Robust::confidence() const {
  return number(pk::robust::confidence);
}
std::string Robust::method() const {
  return required_text(pk::robust::method);
}
double Robust::samples() const {
  return number(pk::robust::samples);
}

std::vector<PlanInput> Robust::inputs() const {
  std::vector<PlanInput> out;
  for (const View& e : elements(pk::robust::inputs)) {
    const Robust v(e);
    out.push_back({v.required_text(pk::input::name), v.text(pk::input::path).value_or(""),
                   v.text(pk::input::dist).value_or(""), v.number(pk::input::nominal),
                   v.number(pk::input::low), v.number(pk::input::high)});
  }
  return out;
}

std::vector<std::optional<double>> Robust::answers() const {
  return nullable_numbers(pk::robust::answers);
}

std::vector<AnswerBin> Robust::distribution() const {
  std::vector<AnswerBin> out;
  for (const View& v : elements(pk::robust::distribution))
    out.push_back(
        {v.number(pk::bin::value), v.number(pk::bin::count), v.number(pk::bin::cumulative)});
  return out;
}

RobustAnswer Robust::answer() const {
  const Robust a(at(pk::robust::answer));
  return {a.nullable_number(pk::robust_answer::value), a.number(pk::robust_answer::fraction_met),
          a.interval(pk::robust_answer::fraction_met_ci95)};
}

std::optional<double> Robust::median() const {
  return nullable_number(pk::robust::median);
}
PlanInterval Robust::central95() const {
  return interval(pk::robust::central95);
}
std::optional<double> Robust::nominal() const {
  return nullable_number(pk::robust::nominal);
}

std::optional<RobustCheck> Robust::check() const {
  if (!is_set(pk::robust::check)) return std::nullopt;
  const Robust c(at(pk::robust::check));
  return RobustCheck{c.number(pk::check::value), c.number(pk::check::probability),
                     c.interval(pk::check::ci95)};
}

std::vector<Swing> Robust::tornado() const {
  std::vector<Swing> out;
  for (const View& v : elements(pk::robust::tornado)) {
    const Robust s(v);
    out.push_back({s.required_text(pk::swing::name), s.text(pk::swing::path).value_or(""),
                   s.number(pk::swing::low_value), s.number(pk::swing::high_value),
                   s.number(pk::swing::swing), s.nullable_number(pk::swing::answer_at_low),
                   s.nullable_number(pk::swing::answer_at_high)});
  }
  return out;
}

std::optional<Narrowing> Robust::narrowing() const {
  if (!is_set(pk::robust::narrowing)) return std::nullopt;
  const Robust n(at(pk::robust::narrowing));
  return Narrowing{n.required_text(pk::narrowing::name), n.number(pk::narrowing::to_percent),
                   n.number(pk::narrowing::from_percent),
                   n.interval(pk::narrowing::central95_before),
                   n.interval(pk::narrowing::central95_after)};
}

double Robust::simulations() const {
  return at(pk::robust::simulations).number(pk::simulations::count);
}
double Robust::searches() const {
  return at(pk::robust::simulations).number(pk::simulations::searches, Presence::Optional);
}
std::string Robust::text() const {
  return required_text(pk::robust::text);
}

// ---- timeline ---------------------------------------------------------------------------------

std::string Timeline::start() const {
  return month(pk::timeline::start);
}
double Timeline::period_months() const {
  return number(pk::timeline::period_months);
}
double Timeline::horizon_months() const {
  return number(pk::timeline::horizon_months);
}
double Timeline::lead_time_months() const {
  return number(pk::timeline::lead_time_months);
}
std::optional<double> Timeline::confidence() const {
  return nullable_number(pk::timeline::confidence);
}
double Timeline::fleet() const {
  return number(pk::timeline::fleet);
}
std::string Timeline::device() const {
  return text(pk::timeline::device).value_or("");
}

std::vector<TimelineChange> Timeline::growth() const {
  std::vector<TimelineChange> out;
  if (!has(pk::timeline::growth)) return out;
  for (const View& v : elements(pk::timeline::growth)) {
    const Timeline g(v);
    out.push_back({g.text(pk::change::path).value_or(""), "", g.required_text(pk::change::text)});
  }
  return out;
}

std::vector<TimelineChange> Timeline::steps() const {
  std::vector<TimelineChange> out;
  if (!has(pk::timeline::steps)) return out;
  for (const View& v : elements(pk::timeline::steps)) {
    const Timeline s(v);
    out.push_back({s.text(pk::change::path).value_or(""), s.month(pk::change::date),
                   s.required_text(pk::change::text)});
  }
  return out;
}

std::vector<TimelinePeriod> Timeline::periods() const {
  std::vector<TimelinePeriod> out;
  for (const View& v : elements(pk::timeline::periods)) {
    const Timeline p(v);
    TimelinePeriod t;
    t.date = p.month(pk::period::date);
    t.month = p.number(pk::period::month);
    if (p.has(pk::period::demand))
      for (const auto& [path, d] : p.members(pk::period::demand))
        t.demand.emplace_back(path, p.at(pk::period::demand).number(path));
    t.required = p.nullable_number(pk::period::required);
    t.required_median = p.nullable_number(pk::period::required_median);
    t.required_low = p.nullable_number(pk::period::required_low);
    t.required_high = p.nullable_number(pk::period::required_high);
    t.fleet = p.number(pk::period::fleet);
    t.meets = p.required_flag(pk::period::meets);
    out.push_back(std::move(t));
  }
  return out;
}

std::optional<std::string> Timeline::stops_meeting() const {
  return nullable_month(pk::timeline::stops_meeting);
}

std::vector<Purchase> Timeline::purchases() const {
  std::vector<Purchase> out;
  for (const View& v : elements(pk::timeline::purchases)) {
    const Timeline p(v);
    out.push_back({p.number(pk::purchase::add), p.month(pk::purchase::needed_by),
                   p.month(pk::purchase::order_by), p.required_flag(pk::purchase::late)});
  }
  return out;
}

double Timeline::simulations() const {
  return at(pk::timeline::simulations).number(pk::simulations::count);
}
std::string Timeline::text() const {
  return required_text(pk::timeline::text);
}

// ---- the document ---------------------------------------------------------------------------

bool PlanDocument::is_plan_file(const std::string& file) {
  std::string error;
  const std::string text = read_text(file, error, InputLimits::max_data_bytes);
  if (!error.empty() || json_depth_problem(text)) return false;
  TopKeys top;
  if (!json::sax_parse(text, &top)) return false;
  return top.keys.count(pk::top::question) && top.keys.count(pk::top::answer) &&
         top.keys.count(pk::top::points);
}

PlanDocument PlanDocument::read(const std::string& file) {
  std::string error;
  const std::string text = read_text(file, error, InputLimits::max_data_bytes);
  if (!error.empty())
    throw InputError(file,
                     {{"", "cannot read the file (" + error + "), expected a sonicsim plan file"}});
  auto parsed = parse_json(text, file);
  if (!parsed || !parsed->is_object())
    throw InputError(file, {{"",
                             "not a JSON object, expected a sonicsim plan file "
                             "(sonicsim plan -o FILE.json)"}});
  auto state = std::make_shared<detail::DocumentState>();
  state->owned = std::move(*parsed);
  state->root = &state->owned;
  state->file = file;
  return PlanDocument(std::move(state));
}

const std::string& PlanDocument::file() const {
  return doc_->file;
}
std::string PlanDocument::scenario() const {
  return text(pk::top::scenario).value_or("");
}
std::string PlanDocument::question() const {
  return required_text(pk::top::question);
}
std::string PlanDocument::vary() const {
  return required_text(pk::top::vary);
}

PlanConstraint PlanDocument::constraint() const {
  const PlanDocument c(at(pk::top::constraint));
  return {c.text(pk::constraint::kind).value_or(""), c.required_text(pk::constraint::metric),
          c.text(pk::constraint::comparison).value_or(""),
          c.text(pk::constraint::text).value_or(""),
          c.has(pk::constraint::threshold) ? c.nullable_number(pk::constraint::threshold)
                                           : std::nullopt};
}

PlanAnswer PlanDocument::answer() const {
  const PlanDocument a(at(pk::top::answer));
  return {a.required_text(pk::answer::status), a.nullable_number(pk::answer::value),
          a.interval(pk::answer::interval)};
}

std::vector<PlanPoint> PlanDocument::points() const {
  std::vector<PlanPoint> out;
  for (const View& v : elements(pk::top::points)) {
    const PlanDocument p(v);
    const View m = p.at(pk::point::metric);
    PlanPoint q{p.number(pk::point::value),
                p.number(pk::point::round, Presence::Optional),
                m.nullable_number(pk::metric::mean),
                std::nullopt,
                p.flag(pk::point::ok),
                p.flag(pk::point::certain)};
    if (m.has(pk::metric::ci95)) q.ci95 = m.nullable_number(pk::metric::ci95);
    out.push_back(q);
  }
  return out;
}

bool PlanDocument::has_robust() const {
  return is_set(pk::top::robust);
}
Robust PlanDocument::robust() const {
  return Robust(at(pk::top::robust));
}
bool PlanDocument::has_timeline() const {
  return is_set(pk::top::timeline);
}
Timeline PlanDocument::timeline() const {
  return Timeline(at(pk::top::timeline));
}

void PlanDocument::check() const {
  if (!doc_->problems.empty())
    throw InputError(doc_->file + " (a sonicsim plan file: sonicsim plan -o FILE.json)",
                     doc_->problems);
}

}  // namespace sonicsim::results

// The plan JSON's key names (docs/plan.md "Output"; `sonicsim plan -o FILE.json`), each spelled
// once, for its typed reader (plan_reader.hpp). Like keys.hpp for results: one namespace per
// object of the document, the same text in two objects is two constants.
#pragma once

namespace sonicsim::results::plan_keys {

namespace top {
inline constexpr char scenario[] = "scenario";
inline constexpr char question[] = "question";
inline constexpr char vary[] = "vary";
inline constexpr char constraint[] = "constraint";
inline constexpr char answer[] = "answer";
inline constexpr char points[] = "points";
inline constexpr char robust[] = "robust";      // issue 38: the inputs' uncertainty
inline constexpr char timeline[] = "timeline";  // issue 38: `plan timeline`
}  // namespace top

namespace constraint {
inline constexpr char kind[] = "kind";
inline constexpr char metric[] = "metric";
inline constexpr char comparison[] = "comparison";
inline constexpr char threshold[] = "threshold";
inline constexpr char text[] = "text";
}  // namespace constraint

namespace answer {
inline constexpr char status[] = "status";
inline constexpr char value[] = "value";
inline constexpr char interval[] = "interval";
}  // namespace answer

// An element of `points`.
namespace point {
inline constexpr char value[] = "value";
inline constexpr char round[] = "round";
inline constexpr char metric[] = "metric";
inline constexpr char ok[] = "ok";            // absent for cost
inline constexpr char certain[] = "certain";  // likewise
}  // namespace point

namespace metric {
inline constexpr char mean[] = "mean";
inline constexpr char ci95[] = "ci95";
}  // namespace metric

namespace robust {
inline constexpr char confidence[] = "confidence";
inline constexpr char method[] = "method";
inline constexpr char samples[] = "samples";
inline constexpr char inputs[] = "inputs";
inline constexpr char answers[] = "answers";
inline constexpr char distribution[] = "distribution";
inline constexpr char answer[] = "answer";
inline constexpr char median[] = "median";
inline constexpr char central95[] = "central95";
inline constexpr char nominal[] = "nominal";
inline constexpr char check[] = "check";
inline constexpr char tornado[] = "tornado";
inline constexpr char narrowing[] = "narrowing";
inline constexpr char simulations[] = "simulations";
inline constexpr char text[] = "text";
}  // namespace robust

// An element of `robust.inputs`.
namespace input {
inline constexpr char name[] = "name";
inline constexpr char path[] = "path";
inline constexpr char dist[] = "dist";
inline constexpr char nominal[] = "nominal";
inline constexpr char low[] = "low";
inline constexpr char high[] = "high";
}  // namespace input

// An element of `robust.distribution`.
namespace bin {
inline constexpr char value[] = "value";
inline constexpr char count[] = "count";
inline constexpr char cumulative[] = "cumulative";
}  // namespace bin

namespace robust_answer {
inline constexpr char value[] = "value";
inline constexpr char fraction_met[] = "fraction_met";
inline constexpr char fraction_met_ci95[] = "fraction_met_ci95";
}  // namespace robust_answer

namespace check {
inline constexpr char value[] = "value";
inline constexpr char probability[] = "probability";
inline constexpr char ci95[] = "ci95";
}  // namespace check

// An element of `robust.tornado`.
namespace swing {
inline constexpr char name[] = "name";
inline constexpr char path[] = "path";
inline constexpr char low_value[] = "low_value";
inline constexpr char high_value[] = "high_value";
inline constexpr char answer_at_low[] = "answer_at_low";
inline constexpr char answer_at_high[] = "answer_at_high";
inline constexpr char swing[] = "swing";
}  // namespace swing

namespace narrowing {
inline constexpr char name[] = "name";
inline constexpr char to_percent[] = "to_percent";
inline constexpr char from_percent[] = "from_percent";
inline constexpr char central95_before[] = "central95_before";
inline constexpr char central95_after[] = "central95_after";
}  // namespace narrowing

namespace simulations {
inline constexpr char count[] = "count";
inline constexpr char searches[] = "searches";
}  // namespace simulations

namespace timeline {
inline constexpr char start[] = "start";
inline constexpr char period_months[] = "period_months";
inline constexpr char horizon_months[] = "horizon_months";
inline constexpr char lead_time_months[] = "lead_time_months";
inline constexpr char confidence[] = "confidence";
inline constexpr char fleet[] = "fleet";
inline constexpr char device[] = "device";
inline constexpr char growth[] = "growth";
inline constexpr char steps[] = "steps";
inline constexpr char periods[] = "periods";
inline constexpr char stops_meeting[] = "stops_meeting";
inline constexpr char purchases[] = "purchases";
inline constexpr char simulations[] = "simulations";
inline constexpr char text[] = "text";
}  // namespace timeline

// An element of `timeline.growth` or `timeline.steps`.
namespace change {
inline constexpr char path[] = "path";
inline constexpr char date[] = "date";  // steps only
inline constexpr char text[] = "text";
}  // namespace change

// An element of `timeline.periods`.
namespace period {
inline constexpr char date[] = "date";
inline constexpr char month[] = "month";
inline constexpr char demand[] = "demand";
inline constexpr char required[] = "required";
inline constexpr char required_median[] = "required_median";
inline constexpr char required_low[] = "required_low";
inline constexpr char required_high[] = "required_high";
inline constexpr char fleet[] = "fleet";
inline constexpr char meets[] = "meets";
}  // namespace period

// An element of `timeline.purchases`.
namespace purchase {
inline constexpr char add[] = "add";
inline constexpr char needed_by[] = "needed_by";
inline constexpr char order_by[] = "order_by";
inline constexpr char late[] = "late";
}  // namespace purchase

}  // namespace sonicsim::results::plan_keys

#include <sonicsim/triton/model_config.hpp>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include "model_config.pb.h"

namespace sonicsim::triton {
namespace {

namespace pb = google::protobuf;

Position position(int line, int column) {
  // The tokenizer counts from 0 and uses -1 for "nowhere".
  if (line < 0) return {};
  return {line + 1, column < 0 ? 0 : column + 1};
}

Position position(const pb::TextFormat::ParseLocation& l) {
  return position(l.line, l.column);
}

class Collector : public pb::io::ErrorCollector {
 public:
  std::vector<ParseError> errors, warnings;

  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    errors.push_back({position(line, column), message});
  }
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    warnings.push_back({position(line, column), message});
  }
};

class Quiet : public pb::io::ErrorCollector {
 public:
  void AddError(int, pb::io::ColumnNumber, const std::string&) override {}
};

// Text format lets a `,` or `;` follow any field, and Triton (which knows every field) accepts
// them; libprotobuf 3.21 fails on one that follows a field it skips as unknown (protobuf issue
// #6513), e.g. `name: "tensorrt",` inside `optimization`. Such separators are blanked out with
// the parser's own tokenizer, settings and column rule, so every position stays where it was.
// Commas inside `[...]` lists are syntax, not separators, and stay.
std::string blank_field_separators(const std::string& text) {
  std::vector<std::size_t> line_start = {0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_start.push_back(i + 1);
  const auto offset = [&](int line, int column) -> std::size_t {
    if (line < 0 || static_cast<std::size_t>(line) >= line_start.size()) return std::string::npos;
    int col = 0;
    for (std::size_t i = line_start[line]; i < text.size() && text[i] != '\n'; ++i) {
      if (col == column) return i;
      col += text[i] == '\t' ? 8 - col % 8 : 1;  // the tokenizer's tab width
    }
    return std::string::npos;
  };
  pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  Quiet quiet;  // the real parse reports what is wrong
  pb::io::Tokenizer tokenizer(&input, &quiet);
  tokenizer.set_allow_f_after_float(true);
  tokenizer.set_comment_style(pb::io::Tokenizer::SH_COMMENT_STYLE);
  tokenizer.set_require_space_after_number(false);
  tokenizer.set_allow_multiline_strings(true);
  std::string out = text;
  std::vector<char> open;
  while (tokenizer.Next()) {
    const pb::io::Tokenizer::Token& t = tokenizer.current();
    if (t.type != pb::io::Tokenizer::TYPE_SYMBOL || t.text.size() != 1) continue;
    const char c = t.text[0];
    if (c == '{' || c == '<' || c == '[') {
      open.push_back(c);
    } else if (c == '}' || c == '>' || c == ']') {
      if (!open.empty()) open.pop_back();
    } else if ((c == ',' || c == ';') && (open.empty() || open.back() != '[')) {
      const std::size_t at = offset(t.line, t.column);
      if (at != std::string::npos && out[at] == c) out[at] = ' ';
    }
  }
  return out;
}

QueuePolicy queue_policy(const inference::ModelQueuePolicy& p) {
  QueuePolicy q;
  q.delay = p.timeout_action() == inference::ModelQueuePolicy::DELAY;
  q.default_timeout_microseconds = p.default_timeout_microseconds();
  q.allow_timeout_override = p.allow_timeout_override();
  q.max_queue_size = p.max_queue_size();
  return q;
}

// The messages whose fields sonicsim reads, by the name users see them under in a config.
struct ReadMessage {
  const pb::Descriptor* descriptor;
  const char* shown_as;
};

// With unknown fields allowed the parser skips them and says so in a warning of a fixed form
// (protobuf's text_format.cc): `Message type "inference.X" has no field named "f".`. Warnings
// of any other form are not about skipped fields and are dropped.
void collect_skipped(const std::vector<ParseError>& warnings, ModelConfig& c) {
  const ReadMessage read[] = {
      {inference::ModelConfig::descriptor(), "ModelConfig"},
      {inference::ModelDynamicBatching::descriptor(), "dynamic_batching"},
      {inference::ModelQueuePolicy::descriptor(), "queue policy"},
      {inference::ModelInstanceGroup::descriptor(), "instance_group"},
      {inference::ModelInput::descriptor(), "input"},
      {inference::ModelOutput::descriptor(), "output"},
  };
  const std::string type_prefix = "Message type \"";
  const std::string field_prefix = "\" has no field named \"";
  for (const ParseError& w : warnings) {
    if (w.message.rfind(type_prefix, 0) != 0) continue;
    const std::size_t type_end = w.message.find(field_prefix, type_prefix.size());
    if (type_end == std::string::npos) continue;
    const std::string type = w.message.substr(type_prefix.size(), type_end - type_prefix.size());
    const std::size_t name_start = type_end + field_prefix.size();
    const std::size_t name_end = w.message.find('"', name_start);
    if (name_end == std::string::npos) continue;
    for (const ReadMessage& m : read) {
      if (m.descriptor->full_name() != type) continue;
      SkippedField s;
      s.message = m.shown_as;
      s.field = w.message.substr(name_start, name_end - name_start);
      for (int i = 0; i < m.descriptor->field_count(); ++i)
        s.known.push_back(m.descriptor->field(i)->name());
      s.position = w.position;
      c.skipped.push_back(std::move(s));
    }
  }
}

}  // namespace

ParseResult parse_model_config(const std::string& text) {
  ParseResult result;
  inference::ModelConfig msg;
  Collector collector;
  pb::TextFormat::ParseInfoTree tree;
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  // Real configs carry fields the subset leaves out (version_policy, optimization, parameters,
  // ...): they must parse, and what sonicsim does not simulate it does not need to read.
  parser.AllowUnknownField(true);
  parser.WriteLocationsTo(&tree);
  const bool ok = parser.ParseFromString(blank_field_separators(text), &msg);
  result.errors = std::move(collector.errors);
  if (!ok) {
    if (result.errors.empty())
      result.errors.push_back({{}, "not a Triton model configuration (protobuf text format)"});
    return result;
  }

  const pb::Descriptor* d = inference::ModelConfig::descriptor();
  // A list `input [ {...}, {...} ]` names its field once, so the parser records a position for
  // the first element only: an element of a list is where its own first field is.
  const auto where = [&](const char* name, int index = -1) {
    const pb::FieldDescriptor* field = d->FindFieldByName(name);
    Position best = position(tree.GetLocation(field, index));
    const pb::TextFormat::ParseInfoTree* nested =
        field->message_type() ? tree.GetTreeForNested(field, index) : nullptr;
    if (!nested) return best;
    const pb::Descriptor* type = field->message_type();
    Position first;
    for (int i = 0; i < type->field_count(); ++i) {
      const pb::FieldDescriptor* f = type->field(i);
      const Position p = position(nested->GetLocation(f, f->is_repeated() ? 0 : -1));
      if (p.line > 0 && (first.line == 0 || p.line < first.line ||
                         (p.line == first.line && p.column < first.column)))
        first = p;
    }
    if (field->is_repeated() && first.line > 0) return first;
    return best.line > 0 ? best : first;
  };

  ModelConfig c;
  c.name = msg.name();
  c.platform = msg.platform();
  c.backend = msg.backend();
  c.max_batch_size = msg.max_batch_size();
  for (int i = 0; i < msg.input_size(); ++i) {
    const auto& t = msg.input(i);
    c.inputs.push_back({t.name(),
                        inference::DataType_Name(t.data_type()),
                        {t.dims().begin(), t.dims().end()},
                        where("input", i)});
  }
  for (int i = 0; i < msg.output_size(); ++i) {
    const auto& t = msg.output(i);
    c.outputs.push_back({t.name(),
                         inference::DataType_Name(t.data_type()),
                         {t.dims().begin(), t.dims().end()},
                         where("output", i)});
  }
  if (msg.has_dynamic_batching()) {
    const auto& b = msg.dynamic_batching();
    DynamicBatching db;
    db.preferred_batch_size.assign(b.preferred_batch_size().begin(),
                                   b.preferred_batch_size().end());
    db.max_queue_delay_microseconds = b.max_queue_delay_microseconds();
    db.preserve_ordering = b.preserve_ordering();
    db.priority_levels = b.priority_levels();
    db.default_priority_level = b.default_priority_level();
    db.default_queue_policy = queue_policy(b.default_queue_policy());
    for (const auto& [level, policy] : b.priority_queue_policy())
      db.priority_queue_policy[level] = queue_policy(policy);
    db.position = where("dynamic_batching");
    c.dynamic_batching = std::move(db);
  }
  if (msg.has_sequence_batching()) c.sequence_batching = where("sequence_batching");
  if (msg.has_ensemble_scheduling()) {
    c.ensemble_scheduling = where("ensemble_scheduling");
    for (const auto& step : msg.ensemble_scheduling().step())
      c.ensemble_steps.push_back({step.model_name(), step.model_version()});
  }
  for (int i = 0; i < msg.instance_group_size(); ++i) {
    const auto& g = msg.instance_group(i);
    InstanceGroup group;
    group.name = g.name();
    group.kind = inference::ModelInstanceGroup::Kind_Name(g.kind());
    group.count = g.count();
    group.gpus.assign(g.gpus().begin(), g.gpus().end());
    group.passive = g.passive();
    group.position = where("instance_group", i);
    c.instance_groups.push_back(std::move(group));
  }
  collect_skipped(collector.warnings, c);
  result.config = std::move(c);
  return result;
}

}  // namespace sonicsim::triton

#include "aggregate/counters_command.h"

#include <algorithm>
#include <string>

#include "core/counters.h"

namespace opmark::aggregate {

void print_counters(std::ostream& out, bool json) {
  if (json) {
    out << core::counter_schema_json().dump(2) << "\n";
    return;
  }
  std::size_t name_width = 4, unit_width = 4, families_width = 8;
  for (const core::CounterSpec& s : core::counter_schema()) {
    name_width = std::max(name_width, s.name.size());
    unit_width = std::max(unit_width, s.unit.size());
    families_width = std::max(families_width, s.families.size());
  }
  const auto pad = [](std::string_view text, std::size_t width) {
    return std::string(text) + std::string(width + 2 - text.size(), ' ');
  };
  out << pad("name", name_width) << pad("unit", unit_width) << pad("families", families_width) << "meaning\n";
  for (const core::CounterSpec& s : core::counter_schema())
    out << pad(s.name, name_width) << pad(s.unit, unit_width) << pad(s.families, families_width) << s.description
        << "\n";
}

}  // namespace opmark::aggregate

#pragma once
// The run's modes, one enum each, shared by the bench that runs in a mode, core's readers and the aggregator that
// checks and compares runs: they compare these, never the words a context line spells them with.
#include <optional>
#include <string>

namespace opmark::core {

// burst: every time at the clock a rested GPU gives the case; sustained: at the power limit (docs/regimes.md).
enum class Regime { burst, sustained };
const char* name_of(Regime r);
std::optional<Regime> parse_regime(const std::string& text);

// hot: operands stay in L2 between launches (DeepBench); cold: L2 flushed before every timed launch.
enum class L2Mode { hot, cold };
const char* name_of(L2Mode m);
std::optional<L2Mode> parse_l2_mode(const std::string& text);

// graph: CUDA-graph replays, the GPU's own time; eager: launches back to back from the host.
enum class TimingMode { graph, eager };
const char* name_of(TimingMode m);
std::optional<TimingMode> parse_timing_mode(const std::string& text);

}  // namespace opmark::core

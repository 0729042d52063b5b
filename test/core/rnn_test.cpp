#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"

using namespace opmark::core;

namespace {

Case rnn(const std::string& direction, const std::string& cell, std::int64_t h, std::int64_t n, std::int64_t t,
         std::map<std::string, FieldValue> more = {}) {
  more["cell"] = cell;
  more["hidden"] = h;
  more["batch"] = n;
  more["steps"] = t;
  return make_case("rnn", direction, "fp16", more);
}

}  // namespace

TEST(Rnn, InputDefaultsToHiddenAndNamesAreComplete) {
  Case c = rnn("fwd", "lstm", 1760, 16, 50);
  EXPECT_EQ(make_case_name(c), "rnn/fwd/fp16/cell=lstm/hidden=1760/batch=16/steps=50/input=1760/layers=1/bidir=no/"
                               "input_mode=skip");
  EXPECT_EQ(make_case_name(parse_case_name(make_case_name(c))), make_case_name(c));
  Case explicit_input = rnn("fwd", "lstm", 1760, 16, 50, {{"input", std::int64_t{1760}}});
  EXPECT_EQ(make_case_name(explicit_input), make_case_name(c));  // the same problem registers once
}

TEST(Rnn, DeepBenchFlops) {
  const double t = 50, n = 16, h = 1760;
  EXPECT_DOUBLE_EQ(work_of(rnn("fwd", "rnn_relu", 1760, 16, 50)).flops, 2 * t * n * h * h + t * n * h);
  EXPECT_DOUBLE_EQ(work_of(rnn("fwd", "rnn_tanh", 1760, 16, 50)).flops, 2 * t * n * h * h + t * n * h);
  EXPECT_DOUBLE_EQ(work_of(rnn("fwd", "lstm", 1760, 16, 50)).flops, 8 * t * n * h * h);
  EXPECT_DOUBLE_EQ(work_of(rnn("bwd_data", "gru", 1760, 16, 50)).flops, 6 * t * n * h * h);
}

TEST(Rnn, LayersBidirectionalAndProjectedInputs) {
  const double t = 100, n = 32, h = 512, in = 256;
  // Two bidirectional LSTM layers with a projected input: layer 0 sees I, layer 1 sees 2H.
  Case c = rnn("fwd", "lstm", 512, 32, 100,
               {{"input", std::int64_t{256}}, {"layers", std::int64_t{2}}, {"bidir", std::string("yes")},
                {"input_mode", std::string("linear")}});
  const double layer0 = 8 * t * n * h * h + 8 * t * n * h * in;
  const double layer1 = 8 * t * n * h * h + 8 * t * n * h * (2 * h);
  EXPECT_DOUBLE_EQ(work_of(c).flops, 2 * (layer0 + layer1));
  RnnProblem p = rnn_problem(c);
  EXPECT_EQ(p.weights(), 2 * 4 * 512 * (256 + 512 + 2) + 2 * 4 * 512 * (1024 + 512 + 2));
  // Skip-input: the first layer has no input GEMM, later layers do.
  Case skip = rnn("fwd", "gru", 512, 32, 100, {{"layers", std::int64_t{2}}});
  EXPECT_DOUBLE_EQ(work_of(skip).flops, (6 * t * n * h * h) + (6 * t * n * h * h + 6 * t * n * h * h));
}

TEST(Rnn, BytesAreSequencesAndWeights) {
  Case c = rnn("fwd", "gru", 1024, 8, 10);
  Work w = work_of(c);
  const double weights = 3.0 * 1024 * (1024 + 2);  // skip-input: no input matrix
  EXPECT_DOUBLE_EQ(w.bytes_read, (10.0 * 8 * 1024 + weights) * 2);
  EXPECT_DOUBLE_EQ(w.bytes_written, 10.0 * 8 * 1024 * 2);
}

TEST(Rnn, SkipInputNeedsInputEqualToHidden) {
  EXPECT_THROW(rnn("fwd", "lstm", 512, 8, 10, {{"input", std::int64_t{256}}}), opmark::Error);
  EXPECT_NO_THROW(rnn("fwd", "lstm", 512, 8, 10, {{"input", std::int64_t{256}}, {"input_mode", std::string("linear")}}));
  EXPECT_THROW(make_case("rnn", "fwd", "int8", {{"cell", std::string("lstm")}, {"hidden", std::int64_t{1}},
                                                {"batch", std::int64_t{1}}, {"steps", std::int64_t{1}}}),
               opmark::Error);
}

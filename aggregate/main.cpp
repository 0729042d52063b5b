// opmark-aggregate: measured results + model operator tables -> model and area scores (OpBench), with coverage;
// spreadsheets; two result sets -> what changed; submission bundles and the results page. Runs anywhere: no GPU,
// no CUDA. The commands and their flags: aggregate/cli.cpp (opmark-aggregate --help).
#include "aggregate/cli.h"

int main(int argc, char** argv) { return opmark::aggregate::run_cli(argc, argv); }

#pragma once
// The rates opmark reports, defined once: the harness writes them, and the checker, spreadsheet and plots
// recompute them from the same formulas, so a record and its readers cannot disagree on a unit.
namespace opmark::core {

// TFLOPS from FLOPs per operation and seconds per operation; 0 where either is not positive.
inline double tflops(double flops, double seconds) { return flops > 0 && seconds > 0 ? flops / seconds / 1e12 : 0; }
// GB/s (decimal gigabytes) from bytes moved per operation and seconds per operation.
inline double gb_per_s(double bytes, double seconds) { return bytes > 0 && seconds > 0 ? bytes / seconds / 1e9 : 0; }
// Work per joule is rate per watt: (work / s) / (J / s).
inline double tflops_per_w(double flops, double joules) { return flops > 0 && joules > 0 ? flops / joules / 1e12 : 0; }
inline double gb_per_s_per_w(double bytes, double joules) { return bytes > 0 && joules > 0 ? bytes / joules / 1e9 : 0; }
// A rate as a percentage of a peak; 0 where the peak is unknown.
inline double pct_of(double rate, double peak) { return rate > 0 && peak > 0 ? 100.0 * rate / peak : 0; }

}  // namespace opmark::core

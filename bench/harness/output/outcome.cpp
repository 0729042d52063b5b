#include "bench/harness/output/outcome.h"

#include "core/error.h"

namespace opmark::bench {

Outcome outcome_from_exception(std::exception_ptr e) noexcept {
  Outcome o;
  try {
    std::rethrow_exception(e);
  } catch (const UnsupportedError& err) {
    o.status = Status::skipped;
    o.reason = std::string("unsupported: ") + err.what();
  } catch (const OutOfMemoryError& err) {
    o.status = Status::skipped;
    o.reason = std::string("out of memory: ") + err.what();
  } catch (const std::exception& err) {
    o.status = Status::failed;
    o.reason = err.what();
  } catch (...) {
    o.status = Status::failed;
    o.reason = "unknown exception";
  }
  return o;
}

}  // namespace opmark::bench

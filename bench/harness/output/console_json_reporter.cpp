#include "bench/harness/output/console_json_reporter.h"

#include "bench/harness/output/case_line.h"

namespace opmark::bench {

ConsoleJsonReporter::ConsoleJsonReporter(std::unique_ptr<benchmark::BenchmarkReporter> display,
                                         const std::string& json_path)
    : display_(std::move(display)) {
  if (json_path.empty()) return;
  json_file_ = std::make_unique<core::LogFile>(json_path);
  json_ = std::make_unique<benchmark::JSONReporter>();
  json_->SetOutputStream(&json_text_);
  json_->SetErrorStream(&json_text_);  // as Google Benchmark sets its own file reporter's
}

void ConsoleJsonReporter::write_json() {
  json_file_->append(json_text_.str());
  json_text_.str("");
}

bool ConsoleJsonReporter::ReportContext(const Context& context) {
  display_->SetOutputStream(&GetOutputStream());
  display_->SetErrorStream(&GetErrorStream());
  if (json_) {
    json_->ReportContext(context);
    write_json();
  }
  return display_->ReportContext(context);
}

void ConsoleJsonReporter::ReportRuns(const std::vector<Run>& runs) {
  display_->ReportRuns(runs);
  if (json_) {
    json_->ReportRuns(runs);
    write_json();
  }
  if (progress_)
    for (const Run& run : runs) progress_->reported(reported_case_name(run));
}

void ConsoleJsonReporter::Finalize() {
  display_->Finalize();
  if (json_) {
    json_->Finalize();
    write_json();
    json_file_->close();
  }
}

}  // namespace opmark::bench

#include "aggregate/db_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/error.h"
#ifdef OPMARK_HAVE_SQLITE
#include <algorithm>
#include <deque>
#include <filesystem>
#include <future>
#include <thread>

#include "aggregate/bundle.h"
#include "aggregate/plots.h"
#include "aggregate/results_db.h"
#include "core/file_access.h"
#endif

namespace opmark::aggregate {
namespace {

constexpr std::size_t kMostCharted = 12;  // db history --svg: the legend's rows in the plot area

}  // namespace

CLI::App* add_db_command(CLI::App& app, DbOptions& o) {
  auto* db = app.add_subcommand("db", "the results database (SQLite): ingest runs, list them, a case's history, the "
                                      "runs where a case changed beyond its noise");
  db->add_option("--db", o.db, "the database: a SQLite file (default: opmark.db; created where missing), or a team's "
                               "PostgreSQL database as postgresql://user@host/dbname (libpq's URL; tables created "
                               "where missing)");
  db->require_subcommand(1);
  auto* ingest = db->add_subcommand("ingest", "store runs (results.jsonl[.gz], run or bundle folders), each once");
  ingest->add_option("PATH", o.paths, "results logs, run folders or bundle folders")->required();
  auto* runs = db->add_subcommand("runs", "the runs stored, oldest first");
  auto* history = db->add_subcommand("history", "a case's (or a family's) time over the runs, with the software");
  history->add_option("CASES", o.cases, "a regular expression over case names")->required();
  history->add_option("--svg", o.svg, "also chart the times over the runs as SVG in this file (the first " +
                                          std::to_string(kMostCharted) + " cases)");
  auto* regressions = db->add_subcommand("regressions", "along each GPU's runs, the cases compare calls slower "
                                                        "between consecutive runs, and what software changed");
  regressions->add_option("CASES", o.cases, "a regular expression over case names (default: all)");
  regressions->add_flag("--faster", o.faster_too, "the changes to faster too");
  auto* export_csv = db->add_subcommand("export", "every stored result as CSV (one row a run and case) on stdout");
  for (auto* cmd : {runs, history, regressions, export_csv}) {
    cmd->add_option("--gpu", o.gpu, "only GPUs whose name holds this");
    cmd->add_option("--since", o.since, "only runs started at or after this ISO date or time (2026-11-01)")
        ->check(CLI::Validator(
            [](std::string& v) {  // compared as text with the runs' started_at: any other form matches by accident
              static const std::regex iso(R"(\d{4}-\d{2}-\d{2}(T\d{2}(:\d{2}(:\d{2}Z?)?)?)?)");
              return std::regex_match(v, iso) ? std::string() : "expected an ISO date or time such as 2026-11-01, "
                                                                  "got '" + v + "'";
            },
            "DATE"));
  }
  for (auto* cmd : {runs, history, regressions}) {
    cmd->add_option("--format", o.format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  }
  for (auto* cmd : {ingest, runs, history, regressions, export_csv})
    cmd->callback([&o, cmd] { o.action = cmd->get_name(); });
  return db;
}

#ifdef OPMARK_HAVE_SQLITE
namespace {

// A bundle folder (its system.yaml beside run/) is checked against the newest rules: 1 passed, 0 not; -1 for a plain
// run, or where the rules cannot be found.
int bundle_checked(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::is_regular_file(fs::path(path) / "system.yaml")) return -1;
  try {
    const std::string shapes = default_shapes_dir();
    return check_bundle(path, (fs::path(shapes) / "submission.yaml").string(), shapes).empty() ? 1 : 0;
  } catch (const std::exception&) {
    return -1;
  }
}

nlohmann::json run_json(const DbRun& r) {
  return {{"id", r.id},         {"gpu", r.gpu},           {"driver", r.driver},     {"cuda", r.cuda},
          {"cudnn", r.cudnn},   {"cublaslt", r.cublaslt}, {"nccl", r.nccl},         {"opmark", r.opmark_git},
          {"regime", r.regime}, {"started_at", r.started_at}, {"source", r.source}, {"checked", r.checked}};
}

const char* checked_text(int checked) { return checked < 0 ? "run" : checked ? "checked" : "FAILED check"; }

int print_runs(ResultsDb& db, const DbOptions& o) {
  const std::vector<DbRun> runs = db.runs(o.gpu, o.since);
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : runs) j.push_back(run_json(r));
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (o.format == "csv") std::printf("id,started_at,gpu,driver,cuda,cudnn,cublaslt,nccl,opmark,cases,kind,source\n");
  for (const auto& r : runs)
    std::printf(o.format == "csv"
                    ? "%lld,%s,\"%s\",%s,%s,%s,%s,%s,%s,%lld,%s,\"%s\"\n"
                    : "%4lld  %-20s  %-24s  driver %s  CUDA %s  cuDNN %s  cuBLASLt %s  NCCL %s  opmark %s  "
                      "%lld cases  %s  %s\n",
                static_cast<long long>(r.id), r.started_at.c_str(), r.gpu.c_str(), r.driver.c_str(), r.cuda.c_str(),
                r.cudnn.c_str(), r.cublaslt.c_str(), r.nccl.c_str(), r.opmark_git.c_str(),
                static_cast<long long>(r.cases), checked_text(r.checked), r.source.c_str());
  return 0;
}

// The history as a chart: the runs of every series in order of start, each labelled by its id and date.
void write_history_svg(const std::vector<DbSeries>& series, const DbOptions& o) {
  std::map<std::int64_t, DbRun> by_id;
  for (const auto& s : series)
    for (const auto& p : s.points) by_id.emplace(p.run.id, p.run);
  std::vector<DbRun> runs;
  for (const auto& [id, run] : by_id) runs.push_back(run);
  std::stable_sort(runs.begin(), runs.end(), [](const DbRun& a, const DbRun& b) {
    return a.started_at != b.started_at ? a.started_at < b.started_at : a.id < b.id;
  });
  std::map<std::int64_t, std::size_t> column_of;  // a run's place along x
  std::vector<std::string> labels;
  for (const auto& r : runs) {
    column_of[r.id] = labels.size();
    labels.push_back("run " + std::to_string(r.id) + ", " + r.started_at.substr(0, 10));
  }
  std::vector<HistorySeries> charted;
  for (std::size_t i = 0; i < series.size() && i < kMostCharted; ++i) {
    HistorySeries h{series[i].case_name, {}};
    for (const auto& p : series[i].points) {
      if (!p.timed()) continue;
      h.points.push_back({column_of.at(p.run.id), p.time_us});
    }
    std::sort(h.points.begin(), h.points.end(), [](const auto& a, const auto& b) { return a.run < b.run; });
    charted.push_back(std::move(h));
  }
  core::write_file_atomically(o.svg, history_svg("opmark db history: " + o.cases, labels, charted));
  std::fprintf(stderr, "wrote %s (%zu of %zu case(s) charted)\n", o.svg.c_str(), charted.size(), series.size());
}

int print_history(ResultsDb& db, const DbOptions& o) {
  const std::vector<DbSeries> series = db.history(o.cases, o.gpu, o.since);
  if (series.empty()) throw Error("db history: no stored case matches '" + o.cases + "'");
  if (!o.svg.empty()) write_history_svg(series, o);
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& s : series) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& p : s.points)
        points.push_back({{"run", run_json(p.run)}, {"status", p.status}, {"time_us", p.time_us}});
      j.push_back({{"case", s.case_name}, {"points", points}});
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (o.format == "csv") std::printf("case,run,started_at,gpu,driver,cudnn,cublaslt,status,time_us\n");
  for (const auto& s : series) {
    if (o.format == "table") std::printf("%s\n", s.case_name.c_str());
    for (const auto& p : s.points)
      std::printf(o.format == "csv"
                      ? "\"%s\",%lld,%s,\"%s\",%s,%s,%s,%s,%.6g\n"
                      : "%.0s  run %lld  %-20s  %-24s  driver %s  cuDNN %s  cuBLASLt %s  %-8s %12.4f us\n",
                  s.case_name.c_str(), static_cast<long long>(p.run.id), p.run.started_at.c_str(), p.run.gpu.c_str(),
                  p.run.driver.c_str(), p.run.cudnn.c_str(), p.run.cublaslt.c_str(), p.status.c_str(), p.time_us);
  }
  return 0;
}

int print_regressions(ResultsDb& db, const DbOptions& o) {
  const std::vector<DbChange> changes = db.regressions(o.cases, o.gpu, o.faster_too, o.since);
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : changes)
      j.push_back({{"case", c.case_name}, {"gpu", c.gpu}, {"before", run_json(c.before)}, {"after", run_json(c.after)},
                   {"verdict", name_of(c.verdict.verdict)}, {"ratio", c.verdict.ratio}, {"basis", c.verdict.basis},
                   {"detail", c.verdict.detail}, {"software", c.software}, {"candidate_change", c.candidate_change}});
    std::cout << j.dump(2) << "\n";
  } else {
    if (o.format == "csv") std::printf("case,gpu,before_run,after_run,verdict,ratio,software,candidate_change\n");
    else std::printf("%zu change(s) beyond the runs' noise (compare's verdict between consecutive runs of a GPU)\n",
                     changes.size());
    for (const auto& c : changes) {
      const std::string candidate =
          o.format == "csv" ? c.candidate_change
                            : (c.candidate_change.empty() ? "" : "  another candidate: " + c.candidate_change);
      std::printf(o.format == "csv" ? "\"%s\",\"%s\",%lld,%lld,%s,%.4f,\"%s\",\"%s\"\n"
                                    : "%s  %s  run %lld -> %lld: %s %.3fx  [%s]%s\n",
                  c.case_name.c_str(), c.gpu.c_str(), static_cast<long long>(c.before.id),
                  static_cast<long long>(c.after.id), name_of(c.verdict.verdict), c.verdict.ratio,
                  c.software.empty() ? "no recorded software changed" : c.software.c_str(), candidate.c_str());
    }
  }
  for (const auto& c : changes)
    if (c.verdict.verdict == Verdict::slower) return 1;
  return 0;
}

}  // namespace

int run_db(const DbOptions& o) {
  ResultsDb db(o.db);
  if (o.action == "ingest") {
    // The runs are read (and bundles checked) on as many threads as the machine has, a few runs ahead of the one
    // being stored: the reading is most of an ingest's time, the storing one transaction a run, in the given order.
    const std::size_t ahead = std::max(1u, std::thread::hardware_concurrency());
    std::deque<std::future<ResultsDb::ReadRun>> pending;
    std::size_t next = 0;
    const bool legacy_hash = db.has_legacy_hashes();
    const auto read_ahead = [&] {
      while (next < o.paths.size() && pending.size() < ahead) {
        const std::string path = o.paths[next++];
        pending.push_back(std::async(std::launch::async, [path, legacy_hash] {
          return ResultsDb::read_run(path, bundle_checked(path), legacy_hash);
        }));
      }
    };
    for (const auto& path : o.paths) {
      read_ahead();
      const ResultsDb::ReadRun run = pending.front().get();
      pending.pop_front();
      const ResultsDb::Ingested in = db.store(run);
      std::printf("%s: %s (run %lld, %zu cases%s)\n", path.c_str(), in.added ? "stored" : "already stored",
                  static_cast<long long>(in.run_id), in.cases,
                  run.checked < 0 ? "" : run.checked ? ", a bundle that passes check" : ", a bundle that FAILS check");
    }
    return 0;
  }
  if (o.action == "runs") return print_runs(db, o);
  if (o.action == "export") {
    db.export_csv(std::cout, o.gpu, o.since);
    return 0;
  }
  if (o.action == "history") return print_history(db, o);
  return print_regressions(db, o);
}
#else
int run_db(const DbOptions&) {
  throw Error("this opmark-aggregate was built without SQLite: install libsqlite3-dev (Debian) and build again");
}
#endif

}  // namespace opmark::aggregate

// The op fuzzer's deterministic driver (what ctest's op_fuzz_ci runs): case
// i runs op i mod (number of ops), in name order, so every op runs once per
// round, on bytes drawn from (seed, i); everything else about the case comes
// from those bytes as in the libFuzzer target op_fuzz.cc.
//
//   op_fuzz_driver --seed=1 --seconds=20        # what CI runs
//   op_fuzz_driver --seed=7 --seconds=3600      # longer, on demand
//   op_fuzz_driver --seed=1 --cases=5000 --op=Pad
//   op_fuzz_driver --seed=1 --write_case=417 --out=fuzz/corpus/op/sqrt-417
//
// It stops after --cases cases or once --seconds have passed and at least
// one full round ran, then prints per op how many eager and graph runs gave
// OK and how many an error Status. A crash or a sanitizer report cannot be
// caught in-process: the driver prints the case number, op and seed before
// the process dies (and with OPKIT_FUZZ_VERBOSE=1 every case in full before
// it runs); --write_case=N writes case N's input, which op_fuzz and the
// corpus replay read, so that it can be kept under fuzz/corpus/op/. A case
// running longer than --case_timeout seconds (default 60) is a hang: the
// driver prints it and aborts.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "fuzz/op_case_gen.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));

namespace {

using namespace opkit;        // NOLINT
using namespace opkit::fuzz;  // NOLINT

constexpr size_t kCaseBytes = 512;

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Case `index`'s input: the op's name, a newline, kCaseBytes bytes.
std::string CaseInput(const std::string& op, uint64_t seed, uint64_t index) {
  uint64_t state = seed * 0x100000001b3ULL ^ (index + 1) * 0x9e3779b97f4a7c15ULL;
  std::string input = op + "\n";
  for (size_t i = 0; i < kCaseBytes; i += 8) {
    const uint64_t r = SplitMix64(&state);
    for (int k = 0; k < 8; ++k) input.push_back(static_cast<char>(r >> (8 * k)));
  }
  return input;
}

// What the crash handlers print: written before each case, read by a
// signal handler (so a fixed buffer and write(2)).
char g_current[512];
std::atomic<uint64_t> g_case_started_ms{0};
std::atomic<bool> g_done{false};

void PrintCurrent() {
  (void)!write(2, g_current, strnlen(g_current, sizeof(g_current)));
}

void OnFatalSignal(int sig) {
  PrintCurrent();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

uint64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Counts {
  int64_t eager_ok = 0, eager_error = 0, graph_ok = 0, graph_error = 0;
};

bool Flag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

int Usage() {
  std::fprintf(stderr,
               "usage: op_fuzz_driver [--seed=N] [--seconds=T] [--cases=N] "
               "[--op=Name] [--case_timeout=T]\n"
               "       op_fuzz_driver [--seed=N] [--op=Name] --write_case=N "
               "--out=FILE\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1, cases = 0, write_case = 0;
  double seconds = 0, case_timeout = 60;
  bool write = false;
  std::string only_op, out_path;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (Flag(argv[i], "--seed", &v)) seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (Flag(argv[i], "--seconds", &v)) seconds = std::atof(v.c_str());
    else if (Flag(argv[i], "--cases", &v)) cases = std::strtoull(v.c_str(), nullptr, 10);
    else if (Flag(argv[i], "--case_timeout", &v)) case_timeout = std::atof(v.c_str());
    else if (Flag(argv[i], "--op", &v)) only_op = v;
    else if (Flag(argv[i], "--out", &v)) out_path = v;
    else if (Flag(argv[i], "--write_case", &v)) {
      write = true;
      write_case = std::strtoull(v.c_str(), nullptr, 10);
    } else {
      return Usage();
    }
  }
  if (cases == 0 && seconds <= 0 && !write) seconds = 20;

  std::vector<std::string> ops;
  for (const auto& op : FuzzableOps()) {
    if (only_op.empty() || op.name() == only_op) ops.push_back(op.name());
  }
  if (ops.empty()) {
    std::fprintf(stderr, "op_fuzz_driver: no op to fuzz (--op=%s is not a "
                 "registered op, or it is skipped)\n", only_op.c_str());
    return 2;
  }
  if (write) {
    if (out_path.empty()) return Usage();
    const std::string input =
        CaseInput(ops[write_case % ops.size()], seed, write_case);
    std::ofstream(out_path, std::ios::binary) << input;
    std::printf("wrote case %llu (op %s, seed %llu) to %s\n",
                static_cast<unsigned long long>(write_case),
                ops[write_case % ops.size()].c_str(),
                static_cast<unsigned long long>(seed), out_path.c_str());
    return 0;
  }

  auto runner = OpCaseRunner::Create();
  if (!runner.ok()) {
    std::fprintf(stderr, "op_fuzz_driver: %s\n", runner.status().ToString().c_str());
    return 1;
  }
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) {
    std::signal(sig, OnFatalSignal);
  }
  if (__sanitizer_set_death_callback != nullptr) {
    __sanitizer_set_death_callback(PrintCurrent);
  }
  std::thread watchdog([case_timeout] {
    while (!g_done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const uint64_t started = g_case_started_ms.load();
      if (started != 0 && NowMs() - started > case_timeout * 1000) {
        std::fprintf(stderr, "op_fuzz_driver: a case ran longer than %g s "
                     "(a hang)\n", case_timeout);
        PrintCurrent();
        std::abort();
      }
    }
  });

  std::map<std::string, Counts> counts;
  const uint64_t start_ms = NowMs();
  uint64_t i = 0;
  for (;; ++i) {
    if (cases != 0 && i >= cases) break;
    if (seconds > 0 && i >= ops.size() && i % ops.size() == 0 &&
        NowMs() - start_ms > seconds * 1000) {
      break;
    }
    const std::string& op = ops[i % ops.size()];
    std::snprintf(g_current, sizeof(g_current),
                  "op_fuzz_driver: died in case %llu (op %s, seed %llu); "
                  "save it with --seed=%llu --write_case=%llu --out=FILE\n",
                  static_cast<unsigned long long>(i), op.c_str(),
                  static_cast<unsigned long long>(seed),
                  static_cast<unsigned long long>(seed),
                  static_cast<unsigned long long>(i));
    const std::string input = CaseInput(op, seed, i);
    OpCaseBytes bytes(input);
    OpCase c;
    if (!GenerateOpCase(op, &bytes, &c)) continue;
    if (Verbose()) {
      std::fprintf(stderr, "case %llu (seed %llu) %s",
                   static_cast<unsigned long long>(i),
                   static_cast<unsigned long long>(seed), c.Describe().c_str());
    }
    g_case_started_ms.store(NowMs());
    const OpCaseResult r = (*runner)->Run(c);
    g_case_started_ms.store(0);
    Counts& n = counts[op];
    ++(r.eager.ok() ? n.eager_ok : n.eager_error);
    ++(r.graph.ok() ? n.graph_ok : n.graph_error);
  }
  g_done.store(true);
  watchdog.join();

  std::printf("%-32s %9s %9s %9s %9s\n", "op", "eager ok", "eager err",
              "graph ok", "graph err");
  Counts total;
  for (const auto& [op, n] : counts) {
    std::printf("%-32s %9lld %9lld %9lld %9lld\n", op.c_str(),
                static_cast<long long>(n.eager_ok),
                static_cast<long long>(n.eager_error),
                static_cast<long long>(n.graph_ok),
                static_cast<long long>(n.graph_error));
    total.eager_ok += n.eager_ok;
    total.eager_error += n.eager_error;
    total.graph_ok += n.graph_ok;
    total.graph_error += n.graph_error;
  }
  std::printf("op_fuzz_driver: %llu cases over %zu ops (seed %llu) in %.1f s "
              "without a crash; eager %lld ok / %lld errors, graph %lld ok / "
              "%lld errors\n",
              static_cast<unsigned long long>(i), ops.size(),
              static_cast<unsigned long long>(seed),
              (NowMs() - start_ms) / 1000.0,
              static_cast<long long>(total.eager_ok),
              static_cast<long long>(total.eager_error),
              static_cast<long long>(total.graph_ok),
              static_cast<long long>(total.graph_error));
  return 0;
}

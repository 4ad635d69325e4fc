// Joining GNU make's jobserver, so that tlc's jobs count against the `make -jN` of the whole
// build (GNU make manual, "Sharing Job Slots with GNU make"). make names it in MAKEFLAGS:
//   --jobserver-auth=fifo:PATH   a named pipe (make 4.4 and later)
//   --jobserver-auth=R,W         two pipe descriptors the process inherited (make 4.2, 4.3;
//                                --jobserver-fds=R,W before 4.2); negative ones mean none
// Each byte in the pipe is one job slot beyond the one every process make starts already holds.
// A client reads a byte before each further job and writes the same byte back when the job ends,
// on every way out: success, error, interrupt.
//
// llvm/Support/Jobserver.h (LLVM 22) implements the same protocol, but does not fit a tool run by
// build systems: it prints unprefixed warnings whenever MAKEFLAGS names no usable jobserver (every
// custom command of CMake's Makefiles before 3.28, whose descriptors make closes), makes the read
// descriptor it shares with make non-blocking (make's manual says not to), cannot wait for a
// token, and takes every token once at start-up to count them.
#pragma once

#include "support/Jobs.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <string>

namespace tlc {

// What a MAKEFLAGS value says about parallel jobs (nothing is opened or checked).
struct MakeFlags {
  enum class Kind { None, Pipe, Fifo };
  Kind jobserver = Kind::None;
  int readFd = -1, writeFd = -1; // Pipe
  std::string fifo;              // Fifo: its path
  unsigned jobs = 0;             // -jN; 0 when absent or unlimited (-j alone)
};

MakeFlags parseMakeFlags(llvm::StringRef value);

// A joined jobserver: a token source over make's pipe.
class Jobserver final : public TokenSource {
public:
  // Opens the jobserver `flags` names; an error saying why it cannot be used otherwise (none
  // named, a descriptor make did not pass on, a path that is not a named pipe).
  static llvm::Expected<std::unique_ptr<Jobserver>> join(const MakeFlags& flags);
  ~Jobserver() override;

  Taken take() override;
  void give(unsigned char token) override;
  void wake() override;

  // Writes back every token taken and not given back. Async-signal-safe: the interrupt handlers
  // call it.
  void giveBackAll();
  unsigned held() const; // tokens taken and not given back

private:
  Jobserver(int readFd, int writeFd, int wakeRead, int wakeWrite);

  int ReadFd, WriteFd; // the same descriptor for a fifo, opened read-write
  int WakeRead, WakeWrite;
  // By token value: atomics, so that a signal handler may read them.
  std::atomic<unsigned> Held[256];
};

// This process's MAKEFLAGS, read once.
const MakeFlags& processMakeFlags();

// The jobserver this process was given, joined at first use, with handlers for SIGINT, SIGTERM,
// SIGHUP and SIGQUIT that give its tokens back before the process ends as the signal says (only
// for signals not ignored when tlc started). nullptr when MAKEFLAGS names none or it cannot be
// used; processJobserverProblem() then says why ("" when none was named).
Jobserver* processJobserver();
std::string processJobserverProblem();

} // namespace tlc

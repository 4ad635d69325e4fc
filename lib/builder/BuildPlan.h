// The plan of one `tlc build`: every task (the parse, each nvcc run, the image check, rendering,
// the host compiles, the manifest) with the tasks it waits for. Made from the options and the
// device and host plans alone, so it is known, and testable, before anything runs; the executor
// (Executor.h) runs it, and the progress count is the plan's.
//
//   parse (renders the launcher from Clang's symbols) ─> c++ launcher ─────────────┐
//   nvcc compiles ─> device links, PTX extractions ─> fatbinary ─> check image ─> render ─> link
//                                                                   check image ─> embed ─┘
//   tool versions ───────────────────────────────────────────────────────────> manifest <┘
//
// With --python, after render: render the package ─> cc NAME_python.c ─┐
//                                                             link ────┴> link the extension ─>
//                                                             manifest
#pragma once

#include "builder/DeviceBuild.h"
#include "builder/HostBuild.h"
#include "builder/PythonBuild.h"
#include "builder/Steps.h"

#include <optional>
#include <string>
#include <vector>

namespace tlc {

enum class TaskKind {
  Parse,        // Clang reads every input: kernels, parameters, records
  Tool,         // an external command (Task::step)
  ExtractPtx,   // relocatable PTX out of each input's object, for the fatbin
  CheckImage,   // the image's symbol tables against the parsed kernels; the image published
  Render,       // NAME.h, NAME_launcher.cpp, NAME_image.S from the checked module; the launcher
                // compiled again if the parse's first rendering of it differs
  ToolVersions, // nvcc's and the host compiler's versions, for the manifest
  Manifest,     // NAME.json
  RenderPython, // the package NAME/ (its Python files) and NAME_python.c
};

struct Task {
  TaskKind kind = TaskKind::Tool;
  std::string description;   // the progress line, e.g. "nvcc a.cu (sm_90a)"
  std::optional<Step> step;  // Tool tasks
  std::vector<size_t> after; // tasks that must succeed first (indices into BuildPlan::tasks)
  bool counted = true;       // shown as a [n/N] progress step
  // Holds no job slot of its own: the parse takes one per input it parses.
  bool selfScheduled = false;
  // Reads the user's sources (the parse, each input's nvcc compile): still started after a compile
  // of another input failed, so that one build reports the errors of every input (Executor.h).
  bool keepsGoing = false;
};

struct BuildPlan {
  std::vector<Task> tasks;

  unsigned progressTotal() const;
  // The first task of a kind, or -1.
  int find(TaskKind kind) const;
};

struct BuildPlanOptions {
  size_t inputCount = 0;
  bool emitOnly = false; // sources only: no host compile, link or manifest
  bool python = false;   // --python: the package too
};

// `python`: the extension's commands, with --python unless --emit-only (else null).
BuildPlan planBuild(const BuildPlanOptions& options, const DevicePlan& device, const HostPlan& host,
                    const PythonPlan* python = nullptr);

} // namespace tlc

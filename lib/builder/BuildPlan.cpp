// The tasks of one build and the order between them, from the device and host plans.
#include "builder/BuildPlan.h"

#include <algorithm>

namespace tlc {

unsigned BuildPlan::progressTotal() const {
  return static_cast<unsigned>(
      std::count_if(tasks.begin(), tasks.end(), [](const Task& task) { return task.counted; }));
}

int BuildPlan::find(TaskKind kind) const {
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].kind == kind)
      return static_cast<int>(i);
  return -1;
}

namespace {

class PlanBuilder {
public:
  size_t add(TaskKind kind, std::string description, std::vector<size_t> after, bool counted) {
    Task task;
    task.kind = kind;
    task.description = std::move(description);
    task.after = std::move(after);
    task.counted = counted;
    Plan.tasks.push_back(std::move(task));
    return Plan.tasks.size() - 1;
  }

  size_t tool(const Step& step, std::vector<size_t> after) {
    size_t index = add(TaskKind::Tool, step.description, std::move(after), true);
    Plan.tasks[index].step = step;
    return index;
  }

  std::vector<size_t> tools(const std::vector<Step>& steps, const std::vector<size_t>& after) {
    std::vector<size_t> indices;
    for (const Step& step : steps)
      indices.push_back(tool(step, after));
    return indices;
  }

  Task& operator[](size_t index) { return Plan.tasks[index]; }
  BuildPlan take() { return std::move(Plan); }

private:
  BuildPlan Plan;
};

} // namespace

BuildPlan planBuild(const BuildPlanOptions& options, const DevicePlan& device, const HostPlan& host,
                    const PythonPlan* python) {
  PlanBuilder plan;
  size_t parse = plan.add(TaskKind::Parse,
                          "parse " + std::to_string(options.inputCount) + " file(s)", {}, true);
  plan[parse].selfScheduled = true;
  plan[parse].keepsGoing = true;

  // The device image: compiles, then device links (relocatable code), then the fat binary.
  std::vector<size_t> compiles = plan.tools(device.compiles, {});
  for (size_t compile : compiles)
    plan[compile].keepsGoing = true;
  std::vector<size_t> last = compiles;
  if (!device.links.empty())
    last = plan.tools(device.links, compiles);
  if (!device.ptxExtractions.empty())
    last.push_back(plan.add(TaskKind::ExtractPtx, "extract relocatable PTX", compiles, false));
  if (device.package)
    last = {plan.tool(*device.package, last)};

  // The image's own symbol table decides the launcher's symbols and targets.
  std::vector<size_t> beforeCheck = last;
  beforeCheck.push_back(parse);
  size_t check = plan.add(TaskKind::CheckImage, "check the device image", beforeCheck, false);
  plan[check].selfScheduled = true; // a parse for another arch, if needed, takes its own slots
  if (options.emitOnly) {
    size_t render = plan.add(TaskKind::Render, "render the launcher", {check}, false);
    if (options.python)
      plan.add(TaskKind::RenderPython, "render the Python package", {render}, false);
    return plan.take();
  }

  // The parse renders the launcher from Clang's symbols, so it compiles while nvcc runs; the
  // final render, once the image is checked, compiles it again only if that changed it (static
  // kernels, kernels of some targets only, --entry).
  size_t versions = plan.add(TaskKind::ToolVersions, "tool versions", {}, false);
  size_t compileLauncher = plan.tool(host.compileLauncher, {parse});
  size_t render =
      plan.add(TaskKind::Render, "render the launcher", {check, compileLauncher}, false);
  size_t link = plan.tool(host.link, {render}); // after the check, so the image is final
  std::optional<size_t> renderPython;
  if (options.python)
    renderPython = plan.add(TaskKind::RenderPython, "render the Python package", {render}, false);
  std::vector<size_t> beforeManifest = {link, versions};
  if (options.python && python) {
    size_t compile = plan.tool(python->compileExtension, {*renderPython});
    beforeManifest.push_back(plan.tool(python->linkExtension, {compile, link}));
  }
  plan.add(TaskKind::Manifest, "write the manifest", beforeManifest, false);
  return plan.take();
}

} // namespace tlc

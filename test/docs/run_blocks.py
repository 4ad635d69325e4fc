#!/usr/bin/env python3
"""run_blocks.py --bin DIR --scratch DIR [--python-package] FILE.md...: the doc test.

Runs the code blocks of Markdown pages that are marked to be run, in order, in a scratch folder
per page, against the tlc in DIR (put first on PATH; a tlc build tree is also found by CMake's
find_package(tlc) through it), so that what the README and docs/ show cannot drift from what tlc
does. A fenced block's info string marks it, after its language (which GitHub still highlights):

  ```cuda file=kernels.cu     the block is written to kernels.cu (a .py file is also
                              byte-compiled, so its syntax is checked without running it)
  ```sh test                  the block runs in bash -euo pipefail
  ```sh test=gpu              ... only where a CUDA GPU is (else skipped, saying so)
  ```sh test=python           ... only where tlc was built with Python support

Blocks without a mark are prose. Exit 0 if every run block passed, 1 otherwise.
"""
import argparse
import os
import py_compile
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^(```+|~~~+)\s*(\S*)\s*(.*)$")


def blocks(path):
    """(line, language, attributes, text) of every fenced block of the page."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, language, rest = match.groups()
        start = i + 1
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith(fence[0] * len(fence)):
            body.append(lines[i])
            i += 1
        i += 1
        attributes = dict(
            (word.split("=", 1) + [""])[:2] for word in rest.split() if word
        )
        yield start, language, attributes, "\n".join(body) + "\n"


def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    result = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return result.returncode == 0 and "GPU " in result.stdout


def run_page(page, scratch, env, gpu, python_package):
    """Runs one page's marked blocks; returns the number that failed."""
    name = os.path.relpath(page)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    failures = 0
    for line, language, attributes, text in blocks(page):
        where = f"{name}:{line}"
        if "file" in attributes:
            target = os.path.join(scratch, attributes["file"])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as out:
                out.write(text)
            if target.endswith(".py"):
                try:
                    py_compile.compile(target, doraise=True)
                except py_compile.PyCompileError as error:
                    print(f"FAIL {where}: {attributes['file']} is not valid Python: {error}")
                    failures += 1
            print(f"wrote {where}: {attributes['file']}")
            continue
        if "test" not in attributes:
            continue
        need = attributes["test"]
        if need not in ("", "gpu", "python"):
            print(f"FAIL {where}: unknown test={need} (test, test=gpu, test=python)")
            failures += 1
            continue
        if need == "gpu" and not gpu:
            print(f"SKIPPED {where}: needs a CUDA GPU, and there is none here")
            continue
        if need == "python" and not python_package:
            print(f"SKIPPED {where}: this tlc was built without Python support")
            continue
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", text],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            print(f"FAIL {where}: exit {result.returncode}\n--- block\n{text}--- output")
            print(result.stdout + result.stderr)
            failures += 1
        else:
            print(f"ok {where}")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the folder holding tlc")
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--python-package", action="store_true",
                        help="tlc was built with Python support (test=python blocks run)")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()

    env = dict(os.environ)
    env["PATH"] = os.path.abspath(args.bin) + os.pathsep + env.get("PATH", "")
    env["TLC_CACHE_DIR"] = os.path.join(os.path.abspath(args.scratch), "cache")
    env.pop("CMAKE_GENERATOR", None)
    gpu = has_gpu()
    failures = 0
    for page in args.pages:
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.relpath(page))
        failures += run_page(page, os.path.join(args.scratch, stem), env, gpu,
                             args.python_package)
    print("PASS" if failures == 0 else f"FAIL: {failures} block(s)")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

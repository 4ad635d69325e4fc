"""tlc on a terminal (label `terminal`): run under a pseudo-terminal (Python's pty), a build's
in-place progress line never shares a line with a diagnostic (nvcc's warnings, tlc's located
diagnostics, a failing nvcc's error, which is printed once), and --color=auto|always|never
decides the colors, beside NO_COLOR and TERM=dumb.

Environment: TLC (the tlc binary). Needs nvcc (the build tests run it)."""

import os
import pty
import re
import shutil
import subprocess
import tempfile
import unittest

TLC = os.environ["TLC"]
PROGRESS = re.compile(r"\[\d+/\d+\]")
DIAGNOSTIC = re.compile(r"\b(warning|error|note):")
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def run_on_terminal(argv, cwd, env=None):
    """Runs argv with stdin, stdout and stderr on a new pseudo-terminal; returns (exit, text)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=terminal, stdout=terminal,
                               stderr=terminal, close_fds=True)
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return process.wait(), b"".join(chunks).decode("utf-8", "replace")


def screen_lines(text):
    """The lines a terminal shows for `text`: \\r returns to the line's start, ESC[K erases to its
    end, colors are dropped."""
    lines = []
    for raw in ESCAPE.sub("", text).replace("\r\n", "\n").split("\n"):
        line, column = [], 0
        for piece in re.split(r"(\r|\x1b\[K)", raw):
            if piece == "\r":
                column = 0
            elif piece == "\x1b[K":
                del line[column:]
            else:
                for char in piece:
                    if column < len(line):
                        line[column] = char
                    else:
                        line.append(char)
                    column += 1
        lines.append("".join(line))
    return lines


def environment(**changes):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CLICOLOR_FORCE")}
    env["TERM"] = "xterm"
    env["TLC_DISABLE_CACHE"] = "1"
    env.update(changes)
    return env


class Folder(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tlc-terminal-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def assertNoSharedLine(self, text):
        for line in screen_lines(text):
            if PROGRESS.search(line):
                self.assertIsNone(DIAGNOSTIC.search(line),
                                  "a diagnostic shares a line with progress: %r\n%s" % (line, text))


class ProgressTests(Folder):
    def test_nvcc_warning_below_progress(self):
        self.write("warn.cu", "#warning hello there\n__global__ void w(int* p) { p[0] = 1; }\n")
        status, text = run_on_terminal([TLC, "build", "warn.cu", "-o", "out"], self.dir,
                                       environment())
        self.assertEqual(status, 0, text)
        self.assertIn("[2/4]", text)  # progress was shown...
        self.assertIn("warning: #warning hello there", text)  # ...and the warning
        self.assertNoSharedLine(text)

    def test_failing_nvcc_error_once(self):
        self.write("bad.cu", "__global__ void bad(int* p) { p[0] = undefined_thing; }\n")
        status, text = run_on_terminal([TLC, "build", "bad.cu", "-o", "out"], self.dir,
                                       environment())
        self.assertEqual(status, 1, text)
        self.assertNoSharedLine(text)
        plain = ESCAPE.sub("", text)
        self.assertEqual(plain.count('identifier "undefined_thing" is undefined'), 1, text)
        self.assertEqual(plain.count("tlc: error:"), 1, text)

    def test_located_diagnostic_below_progress(self):
        # Two files defining one kernel: tlc's own `file:line:col: error:` after the parse.
        kernel = "__global__ void twice(int* p) { p[0] = 1; }\n"
        self.write("a/k.cu", kernel)
        self.write("b/k.cu", kernel)
        status, text = run_on_terminal([TLC, "build", "a/k.cu", "b/k.cu", "--name", "m", "-o",
                                        "out"], self.dir, environment())
        self.assertEqual(status, 1, text)
        self.assertIn("is defined in both", text)
        self.assertNoSharedLine(text)

    def test_dumb_terminal_gets_progress_as_plain_lines(self):
        # Issue 36: TERM=dumb, a terminal that cannot erase a line, still got ESC[K.
        self.write("k.cu", "__global__ void k(int* p) { p[0] = 1; }\n")
        status, text = run_on_terminal([TLC, "build", "k.cu", "-o", "out"], self.dir,
                                       environment(TERM="dumb"))
        self.assertEqual(status, 0, text)
        self.assertNotIn("\x1b[", text)
        self.assertIn("[1/4] ", text)
        self.assertIn("[4/4] link libk.so\r\n", text)  # one line each, as off a terminal

    def test_screen_lines_sees_a_shared_line(self):
        # The check itself: the output before the fix fails it.
        glued = "\r[1/4] parse\x1b[K\r[2/4] nvcc w.cu\x1b[Kw.cu:1:2: warning: x\r\n"
        self.assertIn("[2/4] nvcc w.cuw.cu:1:2: warning: x", screen_lines(glued))
        cleared = "\r[2/4] nvcc w.cu\x1b[K\r\x1b[Kw.cu:1:2: warning: x\r\n"
        self.assertEqual(screen_lines(cleared)[0], "w.cu:1:2: warning: x")


class ColorTests(Folder):
    """A tlc error (a missing input) and a located diagnostic, each way --color can be given."""

    def error_text(self, color, on_terminal, **env):
        argv = [TLC, "verify", "no-such-folder"] + (["--color=" + color] if color else [])
        if on_terminal:
            return run_on_terminal(argv, self.dir, environment(**env))[1]
        return subprocess.run(argv, cwd=self.dir, env=environment(**env), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True).stdout

    def assertColored(self, text):
        self.assertRegex(text, r"\x1b\[[0-9;]*merror: ")

    def assertPlain(self, text):
        self.assertIn("tlc: error: ", text)
        self.assertNotIn("\x1b[", text)

    def test_auto(self):
        self.assertColored(self.error_text("auto", True))
        self.assertColored(self.error_text(None, True))  # the default
        self.assertPlain(self.error_text("auto", False))  # a pipe
        self.assertPlain(self.error_text("auto", True, NO_COLOR="1"))
        self.assertPlain(self.error_text("auto", True, TERM="dumb"))

    def test_always(self):
        self.assertColored(self.error_text("always", False))
        self.assertColored(self.error_text("always", False, NO_COLOR="1"))

    def test_never(self):
        self.assertPlain(self.error_text("never", True))

    def test_located_diagnostics(self):
        kernel = "__global__ void twice(int* p) { p[0] = 1; }\n"
        self.write("a/k.cu", kernel)
        self.write("b/k.cu", kernel)
        argv = [TLC, "check", "a/k.cu", "b/k.cu"]
        always = subprocess.run(argv + ["--color=always"], cwd=self.dir, env=environment(),
                                stderr=subprocess.PIPE, universal_newlines=True).stderr
        self.assertColored(always)
        never = run_on_terminal(argv + ["--color=never"], self.dir, environment())[1]
        self.assertIn("error: device symbol", never)
        self.assertNotIn("\x1b[", never)

    def test_unknown_value(self):
        result = subprocess.run([TLC, "build", "x.cu", "-o", "out", "--color=sometimes"],
                                cwd=self.dir, env=environment(), stderr=subprocess.PIPE,
                                universal_newlines=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--color", result.stderr)


if __name__ == "__main__":
    unittest.main()

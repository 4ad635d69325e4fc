"""tlc's man pages and completion scripts, as the build tree holds them (tools/tlc/CMakeLists.txt).

Every check compares against what the CLI itself says (`tlc --help`, `tlc build --help`), never a
list written here, so a command or option added to the CLI must reach the pages and scripts.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

TLC = os.environ["TLC"]
BUILD = os.path.abspath(os.environ["TLC_BUILD_DIR"])
MAN1 = os.path.join(BUILD, os.environ.get("TLC_MANDIR", "share/man"), "man1")
DATA = os.path.join(BUILD, os.environ.get("TLC_DATADIR", "share"))
COMPLETIONS = {
    "bash": os.path.join(DATA, "bash-completion", "completions", "tlc"),
    "zsh": os.path.join(DATA, "zsh", "site-functions", "_tlc"),
    "fish": os.path.join(DATA, "fish", "vendor_completions.d", "tlc.fish"),
}


def tlc(*args):
    return subprocess.run([TLC, *args], check=True, capture_output=True, text=True).stdout


def commands():
    """The commands `tlc --help` lists."""
    section = tlc("--help").split("Subcommands:", 1)[1]
    return re.findall(r"^  (\w+) ", section, re.M)


def build_options():
    """Every option spelling `tlc build --help` shows: tlc's, nvcc's, and nvcc's it refuses."""
    text = tlc("build", "--help")
    listed, refused = set(), set()
    for line in text.splitlines():
        if line.startswith("  -"):
            names = re.split(r"\s{2,}", line.strip())[0]
            listed.update(re.findall(r"(?:^|[ ,])(--?[A-Za-z][\w+-]*)", names))
    match = re.search(r"Refused, as tlc decides them itself: (.*?) \(", text, re.S)
    refused.update(re.findall(r"-[\w+-]+", match.group(1)))
    assert "--arch" in listed and "-arch" in listed and "-cubin" in refused, (listed, refused)
    return listed, refused


def man_text(path):
    """A page's roff with the escapes for dashes and fonts undone, to search for names."""
    with open(path) as page:
        return re.sub(r"\\f[BIRP]", "", page.read()).replace("\\-", "-").replace("\\e", "\\")


def offered_options(shell, script):
    """The option spellings a completion script offers (the words it completes `-` to)."""
    if shell == "fish":  # -s 'j' -l 'jobs' -o 'arch'
        return {("--" if kind == "l" else "-") + name
                for kind, name in re.findall(r" -([slo]) '([^']+)'", script)}
    if shell == "bash":
        lists = re.findall(r'^ +tlc[/\w]*\) mapfile -t COMPREPLY < <\(compgen -W "(-[^"]*)"',
                           script, re.M)
    else:
        lists = re.findall(r"^ +tlc[/\w]*\) compadd -- (-.*) ;;$", script, re.M)
    return {word for words in lists for word in words.split()}


def mentions(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


class ManPageTests(unittest.TestCase):
    def pages(self):
        return ["tlc"] + ["tlc-" + command for command in commands()]

    def test_a_page_for_tlc_and_each_command(self):
        present = sorted(name[:-2] for name in os.listdir(MAN1) if name.endswith(".1"))
        self.assertEqual(present, sorted(self.pages()))
        for page in self.pages():
            self.assertGreater(os.path.getsize(os.path.join(MAN1, page + ".1")), 200, page)

    def test_pages_are_current(self):
        for command in commands():
            with open(os.path.join(MAN1, "tlc-" + command + ".1")) as page:
                self.assertEqual(page.read(), tlc("help", "--man", command), command)

    def test_pages_render_without_warnings(self):
        env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
        for page in self.pages():
            path = os.path.join(MAN1, page + ".1")
            groff = subprocess.run(["groff", "-man", "-ww", "-z", path], capture_output=True,
                                   text=True)
            self.assertEqual(groff.stderr, "", page)
            if shutil.which("man"):
                man = subprocess.run(["man", "--warnings", "-l", path], capture_output=True,
                                     text=True, env=env)
                self.assertEqual(man.returncode, 0, page)
                self.assertEqual(man.stderr, "", page)
                self.assertIn(page.upper(), man.stdout)

    def test_the_top_page_names_every_command(self):
        text = man_text(os.path.join(MAN1, "tlc.1"))
        for command in commands():
            self.assertTrue(mentions(text, command), command)
            self.assertIn(".BR tlc-%s (1)" % command, text)

    def test_the_build_page_names_every_option_of_build_help(self):
        listed, refused = build_options()
        text = man_text(os.path.join(MAN1, "tlc-build.1"))
        missing = sorted(o for o in listed | refused if not mentions(text, o))
        self.assertEqual(missing, [])

    def test_cache_page_has_its_commands(self):
        text = man_text(os.path.join(MAN1, "tlc-cache.1"))
        for command in re.findall(r"^  (\w+) ", tlc("cache", "--help").split("Subcommands:")[1],
                                  re.M):
            self.assertTrue(mentions(text, command), command)
        self.assertTrue(mentions(text, "--max-size"))


class CompletionTests(unittest.TestCase):
    def test_scripts_are_current_and_name_every_command_and_option(self):
        listed, refused = build_options()
        for shell, path in COMPLETIONS.items():
            with open(path) as script:
                text = script.read()
            self.assertEqual(text, tlc("completion", shell), shell)
            for command in commands():
                self.assertTrue(mentions(text, command), (shell, command))
            # Every option is offered, except nvcc's that tlc refuses.
            offered = offered_options(shell, text)
            self.assertIn("--arch", offered, shell)
            self.assertEqual(sorted(o for o in listed if o not in offered), [], shell)
            self.assertEqual(sorted(o for o in refused - listed if o in offered), [], shell)

    def complete(self, *words, cwd=None):
        """What bash completes the last of `words` to."""
        script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tlc; '
                  'printf "%s\\n" "${COMPREPLY[@]}"')
        run = subprocess.run(["bash", "-c", script, "bash", COMPLETIONS["bash"], *words],
                             capture_output=True, text=True, cwd=cwd)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stderr, "")
        return run.stdout.splitlines()

    def complete_line(self, line, cwd=None):
        """What bash completes at the end of `line` to, its words split as bash splits them: at
        blanks, and '=' and ':' words of their own (COMP_WORDBREAKS)."""
        words = []
        for blank_word in line.split(" "):
            words += [w for w in re.split(r"([=:])", blank_word) if w] or [""]
        script = ('source "$1"; COMP_LINE=$2; COMP_POINT=${#2}; shift 2; COMP_WORDS=("$@"); '
                  'COMP_CWORD=$(($# - 1)); _tlc; printf "%s\\n" "${COMPREPLY[@]}"')
        run = subprocess.run(["bash", "-c", script, "bash", COMPLETIONS["bash"], line, *words],
                             capture_output=True, text=True, cwd=cwd)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stderr, "")
        return [reply for reply in run.stdout.splitlines() if reply]

    def test_bash_offers_the_targets_tlc_accepts(self):
        # Issue 36: Clang's arch list (sm_20...sm_72, which tlc refuses, and no sm_100f) was
        # offered; the names are now the toolkit's nvcc's, as tlc checks them.
        offered = self.complete("tlc", "build", "--arch", "")
        for arch in ["sm_75", "sm_90a", "sm_100f", "sm_120f", "compute_120f", "native"]:
            self.assertIn(arch, offered)
        for arch in ["sm_20", "sm_35", "sm_72", "compute_20", "sm_80a"]:
            self.assertNotIn(arch, offered)

    def test_bash_completes_gencode_specs_not_files(self):
        # Issue 36: `-gencode <Tab>` offered files.
        with tempfile.TemporaryDirectory() as scratch:
            open(os.path.join(scratch, "k.cu"), "w").close()
            for option in ["-gencode", "--gencode", "--generate-code"]:
                specs = self.complete_line("tlc build k.cu %s " % option, cwd=scratch)
                self.assertIn("arch=compute_90a,code=sm_90a", specs, option)
                self.assertIn("arch=compute_80,code=[sm_80,compute_80]", specs, option)
                self.assertNotIn("k.cu", specs, option)
            # bash keeps what precedes the spec's last '=': the rest is offered.
            self.assertEqual(self.complete_line("tlc build -gencode arch=compute_90a,code=s",
                                                cwd=scratch), ["sm_90a"])
            self.assertIn("compute_120f,code=sm_120f",
                          self.complete_line("tlc build -gencode=arch=compute_120", cwd=scratch))

    def test_bash_registers_the_completion(self):
        run = subprocess.run(["bash", "-c", 'source "$1" && complete -p tlc', "bash",
                              COMPLETIONS["bash"]], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "complete -F _tlc tlc")

    def test_bash_completes_commands_options_and_values(self):
        self.assertEqual(self.complete("tlc", "bu"), ["build"])
        self.assertEqual(sorted(self.complete("tlc", "")), sorted(commands() + ["help"]))
        self.assertEqual(sorted(self.complete("tlc", "help", "")), sorted(commands()))
        self.assertIn("--arch", self.complete("tlc", "build", "--ar"))
        self.assertIn("-maxrregcount", self.complete("tlc", "build", "-maxr"))
        self.assertEqual(self.complete("tlc", "cache", "prune", "--m"), ["--max-size"])
        self.assertEqual(self.complete("tlc", "cache", ""), ["stats", "clear", "prune"])
        self.assertIn("sm_90a", self.complete("tlc", "build", "--arch", "sm_9"))
        self.assertIn("compute_90a", self.complete("tlc", "build", "-arch", "compute_9"))
        self.assertIn("all-major", self.complete("tlc", "build", "--arch", "a"))
        self.assertEqual(self.complete("tlc", "build", "--color", "=", "al"), ["always"])
        self.assertEqual(self.complete("tlc", "inspect", "--std", "c++2"), ["c++20"])
        self.assertEqual(self.complete("tlc", "completion", "z"), ["zsh"])

    def test_bash_completes_files_and_folders(self):
        with tempfile.TemporaryDirectory() as scratch:
            os.mkdir(os.path.join(scratch, "out"))
            open(os.path.join(scratch, "k.cu"), "w").close()
            self.assertEqual(sorted(self.complete("tlc", "build", "", cwd=scratch)),
                             ["k.cu", "out"])
            self.assertEqual(self.complete("tlc", "build", "k.cu", "-o", "", cwd=scratch),
                             ["out"])
            self.assertEqual(self.complete("tlc", "verify", "", cwd=scratch), ["out"])

    def test_bash_keeps_file_names_whole_and_unglobbed(self):
        # Issue 35: `COMPREPLY=($(compgen -f ...))` split `my kernel.cu` in two and expanded
        # `a*.cu` as a glob (to the files it matches).
        with tempfile.TemporaryDirectory() as scratch:
            for name in ["my kernel.cu", "a*.cu", "ab.cu", "ac.cu"]:
                open(os.path.join(scratch, name), "w").close()
            self.assertEqual(self.complete("tlc", "build", "my", cwd=scratch), ["my kernel.cu"])
            self.assertEqual(sorted(self.complete("tlc", "build", "a", cwd=scratch)),
                             ["a*.cu", "ab.cu", "ac.cu"])
            self.assertEqual(self.complete("tlc", "build", "a*", cwd=scratch), ["a*.cu"])

    def test_zsh_script_parses(self):
        if not shutil.which("zsh"):
            self.skipTest("zsh is not installed: the zsh script is checked only where it is")
        run = subprocess.run(["zsh", "-n", COMPLETIONS["zsh"]], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_fish_script_parses(self):
        if not shutil.which("fish"):
            self.skipTest("fish is not installed: the fish script is checked only where it is")
        run = subprocess.run(["fish", "--no-execute", COMPLETIONS["fish"]], capture_output=True,
                             text=True)
        self.assertEqual(run.returncode, 0, run.stderr)


if __name__ == "__main__":
    unittest.main()

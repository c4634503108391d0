"""Every GOTRACE_ variable the library reads is documented (issue 15,
item 11: GOTRACE_CLOCK was missing once).

`gotrace help` lists the option table (core/config.c) with each default;
each of them must have a row in README's Environment table with that
default, and an entry with that default in docs/gotrace.1's ENVIRONMENT
section.
"""
import os
import re
import subprocess
import unittest

import gtlib


def read(path):
    with open(os.path.join(gtlib.ROOT, path), encoding="utf-8") as f:
        return f.read()


class DocumentedVariablesTest(unittest.TestCase):

    def options(self):
        if not os.path.exists(gtlib.GOTRACE):
            self.fail("%s is missing: run make first" % gtlib.GOTRACE)
        p = subprocess.run([gtlib.GOTRACE, "help"], env=gtlib.clean_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=30)
        text = p.stdout.decode("utf-8", "replace")
        opts = dict(re.findall(r"^  (GOTRACE_[A-Z_]+)\s.*\n\s+default (\S+)$", text, re.M))
        self.assertIn("GOTRACE_CLOCK", opts, "gotrace help:\n" + text)
        return opts

    def test_every_variable_in_readme_environment_table(self):
        readme = read("README.md")
        env = readme.split("## Environment", 1)[1].split("\n## ", 1)[0]
        for name, default in self.options().items():
            m = re.search(r"^\| `%s` \|(.*)\| `([^`]*)` \|$" % name, env, re.M)
            self.assertIsNotNone(m, "README's Environment table has no row for %s" % name)
            self.assertEqual(m.group(2), default, "README's default for %s" % name)

    def test_every_variable_in_man_page_environment(self):
        man = read("docs/gotrace.1")
        env = man.split(".SH ENVIRONMENT", 1)[1].split("\n.SH ", 1)[0]
        entries = re.split(r"^\.TP\n", env, flags=re.M)
        for name, default in self.options().items():
            entry = [e for e in entries if e.startswith(".B %s\n" % name)]
            self.assertEqual(len(entry), 1, "gotrace.1 ENVIRONMENT has no entry .B %s" % name)
            self.assertRegex(entry[0], r"Default:\n\.BR? %s\b" % re.escape(default),
                             "gotrace.1's default for %s:\n%s" % (name, entry[0]))


if __name__ == "__main__":
    unittest.main()

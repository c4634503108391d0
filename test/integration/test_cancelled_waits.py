"""A wait that never returns is still the wait it was (issue 15, item 10).

Sample program (test/programs):

  cancel_read.c  reader_main blocks in read() on a pipe nobody writes; main
                 cancels it after 200 ms and joins it.
  jump_waits.c   read_main blocks in read(), pause_main in pause() (its
                 handler on an alternate stack); after 200 ms a signal
                 handler siglongjmps each out of its wait; each then sleeps
                 100 ms.

In both period modes (with 5 ms generations the switch converts the pending
call before the cancellation ends it): output and exit status equal the
untraced run, both Go parsers accept the trace, and `gotrace stat -json`
shows reader_main's ~200 ms as a system call, not as running time; a
wait left by siglongjmp is the wait it was up to the jump, and the thread is
traced again after it (its 100 ms sleep is a sleep).
"""
import json
import unittest

import gtlib
from test_io import _IOProgram



@gtlib.expand
class CancelledWaitTest(_IOProgram, gtlib.TracedTestCase):
    PROGRAM = "cancel_read.c"

    def period_check_cancelled_read_is_a_system_call(self, period):
        run = self.checked(period)
        data = gtlib.stat_json(run.trace)
        where = "gotrace stat -json %s:\n%s" % (run.trace, json.dumps(data["threads"], indent=1)[:3000])
        reader = {t["function"]: t for t in data["threads"]["list"]}["reader_main"]
        self.assertTrue(0.15 <= reader["syscall"] <= 0.6, "reader_main's cancelled read\n%s" % where)
        self.assertLess(reader["running"], 0.02, "reader_main runs while it waits in read\n%s" % where)


@gtlib.expand
class JumpedWaitTest(_IOProgram, gtlib.TracedTestCase):
    PROGRAM = "jump_waits.c"

    def period_check_wait_left_by_a_jump_ends_at_the_jump(self, period):
        run = self.checked(period)
        data = gtlib.stat_json(run.trace)
        where = "gotrace stat -json %s:\n%s" % (run.trace, json.dumps(data["threads"], indent=1)[:3000])
        threads = {t["function"]: t for t in data["threads"]["list"]}
        reader, pauser = threads["read_main"], threads["pause_main"]
        self.assertTrue(0.15 <= reader["syscall"] <= 0.3, "read_main's read, left by a jump\n%s" % where)
        signal = pauser["blocked"].get("sync.signal", 0)
        self.assertTrue(0.15 <= signal <= 0.3, "pause_main's pause, left by a jump\n%s" % where)
        sites = [x["summary"] for x in data["syscall_sites"]["list"]] + \
            [x["summary"] for x in data["wait_sites"]["list"]]
        for site in ("read \u2190 read_main", "pause \u2190 pause_main"):
            self.assertIn(site, sites, "the wait's own site, not the stack after the jump\n%s" % where)
        for t in (reader, pauser):
            self.assertTrue(0.08 <= t["sleep"] <= 0.2, "the sleep after the jump is traced\n%s" % where)
            self.assertLess(t["running"], 0.02, "a thread runs while it waits\n%s" % where)


if __name__ == "__main__":
    unittest.main()

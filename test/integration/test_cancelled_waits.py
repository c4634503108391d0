"""A wait that never returns is still the wait it was (issue 15, item 10).

Sample program (test/programs):

  cancel_read.c  reader_main blocks in read() on a pipe nobody writes; main
                 cancels it after 200 ms and joins it.

In both period modes (with 5 ms generations the switch converts the pending
call before the cancellation ends it): output and exit status equal the
untraced run, both Go parsers accept the trace, and `gotrace stat -json`
shows reader_main's ~200 ms as a system call, not as running time.
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


if __name__ == "__main__":
    unittest.main()

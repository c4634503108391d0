"""The trace viewer renders gotrace's traces in a real browser.

test/programs/workers.c (eight worker_main threads passing a token under one
mutex and condition variable) is traced, `go tool trace -http` (the newest
Go) serves it on a loopback port, and headless Chromium loads the trace view
linked from the tool's main page (the catapult viewer, which fetches
/jsontrace and draws one row per thread).  Checked:

  - /jsontrace, fetched directly, holds the goroutines' slices
    ("G2 worker_main (worker-0)", one goroutine per worker, and "G1 main");
  - the viewer imported exactly those slices into its model, and its DOM has
    the track view with a row heading for every thread that has slices;
  - a screenshot of the page is a real picture: many colours, and coloured
    slices in every thread's row of the timeline canvas (the PNG is decoded
    with zlib, no imaging library);
  - the releaser wakes the waiter (issue 16 item 1): /jsontrace holds
    "unblock (sync...)" flow events ("s" ... "t") that start on another
    thread's row than the woken goroutine's, the viewer's model binds such a
    flow to the releaser's slice and the woken slice, and selecting the
    woken slice lists "Incoming flow" in the viewer's analysis panel.  (A
    wake-up written on the woken thread's own M, as before issue 16, draws
    no flow: its start lies where that thread runs nothing, so the viewer
    cannot bind it to a slice and drops it.)

The tests skip, saying why, when no Chromium is installed (Debian package
`chromium`).  Every server and browser started here is stopped, whatever
happens; the whole run is bounded (DEADLINE seconds).

The browser is driven through the DevTools protocol on a pipe
(--remote-debugging-pipe) instead of `--dump-dom`/`--screenshot`: those
capture the page at a fixed (virtual) time, and the viewer imports its JSON
in timer-driven steps that the virtual clock skips past, so the dump shows
the "Importing..." dialog.  Polling the page until the model is loaded is
both faster and deterministic.  scripts/screenshots.sh uses Browser and
GoServer from this file to regenerate docs/images/.
"""
import base64
import fcntl
import html
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtlib  # noqa: E402

DEADLINE = 50          # seconds for tracing, serving and browsing, all told
WINDOW = (1200, 800)   # the test's browser viewport

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium():
    """Path of a Chromium binary ($GOTRACE_TEST_CHROMIUM first), or None."""
    wanted = os.environ.get("GOTRACE_TEST_CHROMIUM")
    if wanted:
        return shutil.which(wanted)     # that one or none
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _stop_group(proc, grace=5):
    """Stop a process started with start_new_session=True and its children."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)   # children left behind, or a stuck leader
    except ProcessLookupError:
        pass
    proc.wait()


# --------------------------------------------------------------------------
# go tool trace / go tool pprof serving on a loopback port


class GoServer:
    """`go tool trace -http=ADDR TRACE` (kind "trace") or `go tool pprof
    -http=ADDR -no_browser PROFILE` (kind "pprof") on a free 127.0.0.1 port.

    A context manager: entering waits for the tool's own "listening" line
    (so that no other process on the port answers for it), leaving stops the
    tool.  Its output goes to LOG."""

    READY = {"trace": "listening on http://%s", "pprof": "Serving web UI on http://%s"}

    def __init__(self, kind, path, log, go=None, timeout=30):
        self.kind, self.path, self.log = kind, path, log
        self.go = go or gtlib.GO_NEW
        self.timeout = timeout
        self.proc = None
        self.base = None

    def _argv(self, addr):
        if self.kind == "trace":
            return [self.go, "tool", "trace", "-http=" + addr, self.path]
        return [self.go, "tool", "pprof", "-http=" + addr, "-no_browser", "-symbolize=none", self.path]

    def __enter__(self):
        deadline = time.monotonic() + self.timeout
        for _ in range(3):      # a free port can be taken before the tool binds it
            addr = "127.0.0.1:%d" % gtlib._free_port()
            ready = (self.READY[self.kind] % addr).encode()
            with open(self.log, "w+b") as log:
                self.proc = subprocess.Popen(self._argv(addr), env=gtlib.go_env(), stdin=subprocess.DEVNULL,
                                             stdout=log, stderr=log, start_new_session=True)
                while True:
                    log.seek(0)
                    text = log.read()
                    if ready in text:
                        self.base = "http://" + addr
                        return self
                    if self.proc.poll() is not None:
                        break
                    if time.monotonic() > deadline:
                        self.close()
                        raise AssertionError("%s did not start serving within %ss:\n%s"
                                             % (" ".join(self._argv(addr)), self.timeout,
                                                gtlib.head(text.decode("utf-8", "replace"))))
                    time.sleep(0.05)
            self.close()
            if b"address already in use" not in text:
                raise AssertionError("%s exited with status %s:\n%s"
                                     % (" ".join(self._argv(addr)), self.proc.returncode,
                                        gtlib.head(text.decode("utf-8", "replace"))))
        raise AssertionError("go tool %s -http: no free port in three tries" % self.kind)

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is not None:
            _stop_group(self.proc)

    def url(self, path):
        return self.base + path

    def get(self, path, timeout=20):
        with urllib.request.urlopen(self.url(path), timeout=timeout) as r:
            return r.read().decode("utf-8", "replace")


# --------------------------------------------------------------------------
# Headless Chromium through the DevTools protocol


class BrowserError(AssertionError):
    pass


class Browser:
    """Headless Chromium driven through the DevTools protocol on a pipe:
    with --remote-debugging-pipe the browser reads commands from fd 3 and
    writes replies and events to fd 4, each one JSON text ended by a NUL.

    One page, WIDTH x HEIGHT CSS pixels at scale 1.  A context manager;
    leaving closes the browser (killing it if it does not exit) and removes
    its temporary profile."""

    def __init__(self, exe, width=1400, height=900, log=None):
        self.exe, self.width, self.height = exe, width, height
        self.log = log or os.devnull
        self.proc = None
        self.tmp = None
        self.session = None
        self._wfd = self._rfd = None
        self._buf = b""
        self._next_id = 0

    def argv(self):
        return [self.exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
                "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--mute-audio", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--window-size=%d,%d" % (self.width, self.height),
                "--user-data-dir=" + os.path.join(self.tmp, "profile"),
                "--remote-debugging-pipe", "about:blank"]

    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix="gotrace-chromium-")
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()
        # Move the child's ends out of the way of 3 and 4 before the child
        # dup2()s them there (pass_fds keeps 3 and 4 open across exec).
        child_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_w = fcntl.fcntl(res_w, fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (cmd_r, res_w):
            os.close(fd)

        def to_3_and_4():
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        env = gtlib.clean_env()
        env["HOME"] = self.tmp          # nothing is written to the user's home
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        try:
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(self.argv(), env=env, stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=log, pass_fds=(3, 4), preexec_fn=to_3_and_4,
                                             start_new_session=True)
        finally:
            os.close(child_r)
            os.close(child_w)
        self._wfd, self._rfd = cmd_w, res_r
        try:
            targets = self.call("Target.getTargets", session=None, timeout=20)["targetInfos"]
            pages = [t["targetId"] for t in targets if t.get("type") == "page"]
            target = pages[0] if pages else self.call("Target.createTarget", {"url": "about:blank"},
                                                      session=None)["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                     session=None)["sessionId"]
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is not None and self.proc.poll() is None and self._wfd is not None:
            try:
                self.call("Browser.close", session=None, timeout=3)
            except (BrowserError, OSError):
                pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        if self.proc is not None:
            _stop_group(self.proc, grace=3)
        for fd in (self._wfd, self._rfd):
            if fd is not None:
                os.close(fd)
        self._wfd = self._rfd = None
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def _log_tail(self):
        try:
            with open(self.log, "rb") as f:
                lines = [l for l in f.read().decode("utf-8", "replace").splitlines()
                         if "dbus" not in l.lower()]
            return gtlib.head("\n".join(lines[-10:]), 10)
        except OSError:
            return "  (no log)"

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._rfd], [], [], min(left, 1.0))
            if ready:
                data = os.read(self._rfd, 1 << 20)
                if not data:
                    raise BrowserError("Chromium exited (status %s):\n%s" % (self.proc.poll(), self._log_tail()))
                self._buf += data
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg.decode("utf-8"))

    def call(self, method, params=None, session="page", timeout=20):
        """Send one command and return its result (events are dropped)."""
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session == "page":
            msg["sessionId"] = self.session
        os.write(self._wfd, json.dumps(msg).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError("%s: %s" % (method, reply["error"].get("message", reply["error"])))
                return reply.get("result", {})

    def evaluate(self, expression, timeout=20):
        """Value of a JavaScript expression in the page (promises awaited)."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise BrowserError("JavaScript error: %s" % d.get("exception", {}).get("description", d.get("text")))
        return r.get("result", {}).get("value")

    def open(self, url, ready, timeout=20):
        """Load url and poll the expression `ready` until it is true.

        `ready` may return a string starting with "error:" to give up at
        once (say, an error dialog in the page)."""
        r = self.call("Page.navigate", {"url": url}, timeout=timeout)
        if r.get("errorText"):
            raise BrowserError("Chromium could not load %s: %s" % (url, r["errorText"]))
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.evaluate(ready, timeout=max(1, deadline - time.monotonic()))
            except BrowserError as e:       # the document may be changing under us
                last = str(e)
            if last is True:
                return
            if isinstance(last, str) and last.startswith("error:"):
                raise BrowserError("%s: %s" % (url, last))
            time.sleep(0.1)
        raise BrowserError("%s was not ready within %ss (last check: %r)" % (url, timeout, last))

    def settle(self, frames=3):
        """Wait until the page has painted a few more frames."""
        self.evaluate("new Promise(function(done){var n=%d;(function f(){if(n--<=0)done(true);"
                      "else requestAnimationFrame(f)})()})" % frames)

    def screenshot(self):
        """The viewport as PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, timeout=30)["data"])


# The catapult viewer of `go tool trace`: ready once its model is set, the
# import dialog is gone and the viewer has fitted the trace into the window
# (it does that from a 250 ms timer; until then the timeline shows world
# time 0..width at one pixel per millisecond, panX 0 and scaleX 1).  An error
# dialog (fetch or import failed) ends the wait at once.
VIEWER_READY = """(function() {
  var overlay = document.querySelector('overlay');
  if (overlay) {
    var title = overlay.querySelector('title');
    var t = title ? title.textContent : '';
    if (/error|fail/i.test(t)) return 'error: ' + t + ': ' + overlay.textContent.replace(/\\s+/g, ' ').trim();
    return 'importing';
  }
  var v = document.querySelector('tr-ui-timeline-view');
  if (!v || !v.model) return 'loading';
  if (!v.trackView || !document.querySelector('tr-ui-timeline-track-view canvas')) return 'drawing';
  var dt = v.trackView.viewport.currentDisplayTransform;
  return dt.panX === 0 && dt.scaleX === 1 ? 'fitting' : true;
})()"""

# {slice title: count} over every thread of the viewer's model.
VIEWER_SLICES = """(function() {
  var out = {};
  document.querySelector('tr-ui-timeline-view').model.getAllThreads().forEach(function(t) {
    t.sliceGroup.slices.forEach(function(s) { out[s.title] = (out[s.title] || 0) + 1; });
  });
  return out;
})()"""

# Page rectangle of the timeline's drawing canvas, the largest canvas of the
# track view, and the rows of the threads: [[left, top, width, height],
# [[row name, top, height], ...]] in CSS pixels.
VIEWER_LAYOUT = """(function() {
  function box(r) { return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]; }
  // (the web components polyfill's querySelectorAll returns no NodeList)
  var each = function(sel, f) { Array.prototype.forEach.call(document.querySelectorAll(sel), f); };
  var best = null;
  each('tr-ui-timeline-track-view canvas', function(c) {
    var r = c.getBoundingClientRect();
    if (!best || r.width * r.height > best.width * best.height) best = r;
  });
  var rows = [];
  each('.thread-track', function(t) {
    var h = t.querySelector('heading');
    var r = t.getBoundingClientRect();
    if (h) rows.push([h.textContent.replace(/[\\s\\u25be\\u25b8]+/g, ' ').trim(), Math.round(r.top), Math.round(r.height)]);
  });
  return [box(best), rows];
})()"""

# The flows of the viewer's model (catapult binds a flow's start and end to
# the slices enclosing them; a flow it cannot bind is dropped), and those of
# a sync wake-up between two threads; the first of them has its woken
# (end) slice selected, as a click on it would.
VIEWER_FLOWS = """(function() {
  var v = document.querySelector('tr-ui-timeline-view');
  var all = v.model.flowEvents || [];
  var titles = {}, cross = [];
  all.forEach(function(f) {
    titles[f.title] = (titles[f.title] || 0) + 1;
    if (/^unblock \\(sync/.test(f.title) && f.startSlice && f.endSlice &&
        f.startSlice.parentContainer !== f.endSlice.parentContainer) cross.push(f);
  });
  var out = {flows: all.length, titles: titles, cross: cross.length};
  if (cross.length) {
    var f = cross[0];
    var row = function(s) { return s.parentContainer.name || String(s.parentContainer.tid); };
    out.from = [f.startSlice.title, row(f.startSlice)];
    out.to = [f.endSlice.title, row(f.endSlice)];
    v.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet([f.endSlice]));
  }
  return out;
})()"""

# The text of the analysis panel's related-events tables (flows, preceding
# and following events of the selection).
VIEWER_RELATED = """(function() {
  var out = [];
  Array.prototype.forEach.call(document.querySelectorAll('tr-ui-a-related-events'), function(e) {
    out.push(e.textContent.replace(/\\s+/g, ' ').trim());
  });
  return out;
})()"""


# --------------------------------------------------------------------------
# PNG reading, standard library only


def read_png(data):
    """Decode an 8-bit, non-interlaced greyscale/RGB/RGBA PNG (what Chromium
    writes) into (width, height, channels, rows), rows a list of bytearrays."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, header, idat = 8, None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, ctype, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise ValueError("PNG data has %d bytes, expected %d" % (len(raw), height * (stride + 1)))
    bpp = channels
    rows = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:          # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ftype == 2:        # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ftype == 3:        # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:        # Paeth
            for i in range(stride):
                if i >= bpp:
                    a, c = line[i - bpp], prev[i - bpp]
                else:
                    a = c = 0
                b = prev[i]
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif ftype != 0:
            raise ValueError("bad PNG filter type %d in row %d" % (ftype, y))
        rows.append(line)
        prev = line
    return width, height, channels, rows


def colour_stats(image, box=None):
    """(distinct colours, saturated pixels, pixels) of a decoded PNG
    (read_png's result), or of the box (left, top, width, height) in it.
    Saturated: max - min channel > 60, i.e. clearly coloured, not white,
    grey or black."""
    width, height, channels, rows = image
    left, top, w, h = box or (0, 0, width, height)
    right, bottom = min(width, left + w), min(height, top + h)
    left, top = max(0, left), max(0, top)
    colours = set()
    saturated = total = 0
    n = min(channels, 3)
    for y in range(top, bottom):
        row = rows[y]
        for x in range(left, right):
            px = tuple(row[x * channels:x * channels + n])
            colours.add(px)
            total += 1
            if max(px) - min(px) > 60:
                saturated += 1
    return len(colours), saturated, total


# --------------------------------------------------------------------------
# The test


WORKER_SLICE = re.compile(r"^G(\d+) worker_main(?: \((.*)\))?$")


def trace_view_path(index_html):
    """The thread-view link of `go tool trace`'s main page (else its first
    trace view link)."""
    links = [html.unescape(h) for h in re.findall(r'href="(/trace(?:\?[^"]*)?)"', index_html)]
    thread = [l for l in links if "view=thread" in l]
    return (thread or links or [None])[0]


def jsontrace_path(trace_page, view_path):
    """The /jsontrace URL the viewer page fetches (fallback: the view's
    query on /jsontrace)."""
    m = re.search(r"""['"](/jsontrace\?[^'"]*)['"]""", trace_page)
    if m:
        return m.group(1)
    query = urllib.parse.urlsplit(view_path).query
    return "/jsontrace" + ("?" + query if query else "")


def json_slice_counts(doc):
    """{name: count} of the complete ("X") events of a /jsontrace document."""
    out = {}
    for e in doc.get("traceEvents", []):
        if e.get("ph") == "X":
            out[e.get("name")] = out.get(e.get("name"), 0) + 1
    return out


def json_flows(doc):
    """[(name, from tid, to tid)] of the flow events of a /jsontrace
    document: an "s" event and the "t" (or "f") event of the same id."""
    starts, ends = {}, {}
    for e in doc.get("traceEvents", []):
        if e.get("ph") == "s":
            starts[(e.get("cat"), e.get("id"))] = e
        elif e.get("ph") in ("t", "f"):
            ends[(e.get("cat"), e.get("id"))] = e
    return [(s.get("name"), s.get("tid"), ends[k].get("tid")) for k, s in sorted(starts.items(), key=lambda kv: str(kv[0]))
            if k in ends]


def json_thread_names(doc):
    """Names of the threads (rows) of a /jsontrace document that have
    slices; rows without any (GC, Network, ... in a C program) are not drawn."""
    names, busy = {}, set()
    for e in doc.get("traceEvents", []):
        key = (e.get("pid"), e.get("tid"))
        if e.get("ph") == "M" and e.get("name") == "thread_name" and "name" in e.get("args", {}):
            names[key] = e["args"]["name"]
        elif e.get("ph") == "X":
            busy.add(key)
    return {names[k] for k in busy if k in names}


class ViewerTest(gtlib.TracedTestCase):
    """go tool trace's web viewer shows a traced program's goroutines."""

    NWORKERS = 8    # test/programs/workers.c

    def session(self):
        """Trace workers, serve the trace, load the viewer (when Chromium is
        there); the result is shared by every test of the class."""
        return self.cached("session", self._session)

    def _session(self):
        self.require_tools()
        t0 = time.monotonic()
        exe = gtlib.compile("workers.c")
        trace = gtlib.trace_path("viewer_workers")
        run = gtlib.run_traced([exe], trace, timeout=20)
        if run.returncode != 0:
            raise AssertionError("workers failed under the tracer\n" + run.describe())
        out = {"trace": trace}
        with GoServer("trace", trace, trace + ".http.log", timeout=20) as server:
            index = server.get("/")
            view = trace_view_path(index)
            if not view:
                raise AssertionError("no trace view link (/trace...) on the main page of go tool trace %s:\n%s"
                                     % (trace, gtlib.head(index, 30)))
            out["view"] = view
            page = server.get(view)
            out["jsontrace_path"] = jsontrace_path(page, view)
            body = server.get(out["jsontrace_path"], timeout=30)
            try:
                out["json"] = json.loads(body)
            except ValueError as e:
                raise AssertionError("%s of %s is not JSON (%s): %s" % (out["jsontrace_path"], trace, e, body[:300]))
            chromium = find_chromium()
            out["chromium"] = chromium
            if chromium:
                left = DEADLINE - (time.monotonic() - t0)
                with Browser(chromium, *WINDOW, log=trace + ".chromium.log") as b:
                    b.open(server.url(view), VIEWER_READY, timeout=max(5, left - 10))
                    b.settle()
                    out["model"] = b.evaluate(VIEWER_SLICES)
                    out["dom"] = b.evaluate("document.documentElement.outerHTML")
                    out["canvas"], out["rows"] = b.evaluate(VIEWER_LAYOUT)
                    out["png"] = b.screenshot()
                    # last: selecting a slice changes the page
                    out["flows"] = b.evaluate(VIEWER_FLOWS)
                    out["related"] = []
                    if out["flows"].get("cross"):
                        until = time.monotonic() + 5
                        while not out["related"] and time.monotonic() < until:
                            b.settle()
                            out["related"] = b.evaluate(VIEWER_RELATED)
                with open(trace + ".viewer.png", "wb") as f:
                    f.write(out["png"])
        out["elapsed"] = time.monotonic() - t0
        return out

    def browser_session(self):
        if not find_chromium():
            if os.environ.get("GOTRACE_TEST_CHROMIUM"):
                self.skipTest("GOTRACE_TEST_CHROMIUM=%s is not an executable" % os.environ["GOTRACE_TEST_CHROMIUM"])
            self.skipTest("Chromium is not installed (Debian: apt-get install chromium); looked for %s"
                          % ", ".join(CHROMIUM_NAMES))
        s = self.session()
        self.assertLess(s["elapsed"], 60, "tracing, serving and browsing took %.1fs" % s["elapsed"])
        return s

    def test_jsontrace_has_goroutine_slices(self):
        """/jsontrace holds one worker_main goroutine per thread, with slices
        named after goroutine id, start function and thread name."""
        s = self.session()
        counts = json_slice_counts(s["json"])
        where = "%s of %s" % (s["jsontrace_path"], s["trace"])
        goids, labels = set(), set()
        for name in counts:
            m = WORKER_SLICE.match(name or "")
            if m:
                goids.add(int(m.group(1)))
                if m.group(2):
                    labels.add(m.group(2))
        self.assertEqual(len(goids), self.NWORKERS,
                         "%s: expected %d worker_main goroutines, slice names: %s"
                         % (where, self.NWORKERS, sorted(counts)[:20]))
        self.assertEqual(labels, {"worker-%d" % i for i in range(self.NWORKERS)},
                         "%s: thread names in the slice names" % where)
        self.assertTrue(any(re.match(r"^G\d+ main\b", n or "") for n in counts),
                        "%s: no slice of the main goroutine; names: %s" % (where, sorted(counts)[:20]))
        self.assertIn("G2 worker_main (worker-0)", counts, where)

    def test_viewer_imports_every_slice(self):
        """The catapult viewer's model holds exactly the goroutine slices the
        server sent."""
        s = self.browser_session()
        sent = {n: c for n, c in json_slice_counts(s["json"]).items() if re.match(r"^G\d+ ", n or "")}
        shown = {n: c for n, c in s["model"].items() if re.match(r"^G\d+ ", n or "")}
        self.assertTrue(any(WORKER_SLICE.match(n) for n in shown),
                        "the viewer shows no worker_main slice for %s; its slices: %s" % (s["trace"], shown))
        self.assertEqual(shown, sent, "viewer model vs %s of %s" % (s["jsontrace_path"], s["trace"]))

    def test_viewer_dom_has_thread_rows(self):
        """The rendered page has the track view, its canvas and one row
        heading per thread the server named, and no error dialog."""
        s = self.browser_session()
        dom = s["dom"]
        saved = s["trace"] + ".viewer.html"
        with open(saved, "w") as f:
            f.write(dom)
        # what the page shows: no scripts or style sheets
        shown = re.sub(r"<(script|style)\b.*?</\1>", "", dom, flags=re.S)
        for element in ("<tr-ui-timeline-view", "<tr-ui-timeline-track-view", "<canvas"):
            self.assertTrue(element in shown, "no %s> in the viewer's DOM (saved as %s)" % (element, saved))
        for text in ("Import error", "could not be loaded", "Failed to fetch data"):
            self.assertFalse(text in shown, "the viewer says %r (DOM saved as %s)" % (text, saved))
        threads = json_thread_names(s["json"])
        self.assertGreaterEqual(len(threads), self.NWORKERS + 1,
                                "thread rows in %s: %s" % (s["jsontrace_path"], sorted(threads)))
        # every row the server named ("Thread 1234") is a heading in the page
        missing = [t for t in sorted(threads)
                   if not re.search(r">\s*%s\s*<" % re.escape(html.escape(t, quote=False)), shown)]
        self.assertFalse(missing, "rows without a heading in the viewer (DOM saved as %s): %s" % (saved, missing))

    def test_screenshot_shows_slices(self):
        """A screenshot of the trace view is a picture of the trace: many
        colours, and coloured slices in every thread's row of the timeline."""
        s = self.browser_session()
        shot = s["trace"] + ".viewer.png"
        image = read_png(s["png"])
        self.assertEqual(image[:2], WINDOW, "size of %s" % shot)
        colours, _, _ = colour_stats(image)
        self.assertGreaterEqual(colours, 32, "%s has only %d colours" % (shot, colours))
        left, top, width, height = s["canvas"]
        self.assertGreater(width * height, 200 * 100, "%s: timeline canvas rectangle %s" % (shot, s["canvas"]))
        threads = [r for r in s["rows"] if r[0].startswith("Thread ")]
        self.assertGreaterEqual(len(threads), self.NWORKERS + 1,
                                "thread rows in the viewer: %s (screenshot %s)" % (s["rows"], shot))
        empty = []
        for name, row_top, row_height in threads:
            _, coloured, _ = colour_stats(image, (left, row_top, width, row_height))
            if coloured < 20:
                empty.append("%s (y %d..%d: %d coloured pixels)" % (name, row_top, row_top + row_height, coloured))
        self.assertFalse(empty, "%s: thread rows without slices: %s" % (shot, "; ".join(empty)))

    def test_jsontrace_has_unblock_flows_between_threads(self):
        """Sync wake-ups are flows from the releasing thread's row to the
        woken goroutine's (issue 16 item 1): some "unblock (sync...)" flow
        of /jsontrace starts on another thread than it ends on."""
        s = self.session()
        flows = [f for f in json_flows(s["json"]) if (f[0] or "").startswith("unblock (sync")]
        cross = [f for f in flows if f[1] != f[2]]
        self.assertTrue(cross, "%s of %s: none of the %d sync unblock flows starts on another thread than "
                        "the woken one (the releaser's); first flows: %s"
                        % (s["jsontrace_path"], s["trace"], len(flows), flows[:5]))

    def test_woken_slice_lists_incoming_flow(self):
        """The viewer binds a sync wake-up's flow to the releaser's slice and
        the woken slice, and selecting the woken slice lists "Incoming flow"
        in its analysis panel, as for a Go program's sync wake-ups."""
        s = self.browser_session()
        f = s["flows"]
        self.assertGreater(f["cross"], 0, "the viewer's model of %s holds no unblock (sync...) flow between "
                           "two threads' slices; its flows: %s" % (s["trace"], f["titles"]))
        text = " | ".join(s["related"])
        self.assertIn("Incoming flow", text, "selected the woken slice %s (flow from %s) in the viewer of %s; "
                      "the analysis panel's related events: %r" % (f["to"], f["from"], s["trace"], text[:500]))
        self.assertIn("unblock (sync", text, "the incoming flow is a sync wake-up: %r" % text[:500])


if __name__ == "__main__":
    unittest.main()

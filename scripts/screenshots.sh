#!/usr/bin/env bash
# screenshots.sh — regenerate docs/images/*.png from the demo trace.
#
#   bash scripts/screenshots.sh [--fresh]
#
# Uses build/demo/contention.trace and build/demo/sync.pb (`make demo`); they
# are made first when missing, older than build/libgotrace.so, or with
# --fresh.  `go tool trace -http` and `go tool pprof -http` serve them on
# loopback ports and headless Chromium (Debian package `chromium`) takes
# 1400x900 screenshots through the DevTools protocol (the Browser and
# GoServer helpers of test/integration/test_viewer.py):
#
#   docs/images/trace-threads.png    View trace by thread, zoomed to a few ms,
#                                    one worker_main slice selected (its stacks
#                                    in the bottom panel)
#   docs/images/goroutines.png       Goroutine analysis (/goroutines), cropped
#   docs/images/goroutine-worker_main.png
#                                    the worker_main group: time per goroutine
#                                    by execution, block reason, sched wait
#   docs/images/sync-flamegraph.png  the sync blocking profile as a flame graph
#   docs/images/cpu-samples.png      View trace by thread, zoomed to a few ms
#                                    around a "CPU profile sample" of a
#                                    worker_main thread, selected (its stack in
#                                    the bottom panel)
#
# Every server and browser started here is stopped when the script ends.
set -euo pipefail

cd "$(dirname "$0")/.."

GO=${GO:-/usr/lib/go-1.27/bin/go}   # the newest Go's viewer, as in the README
TRACE=build/demo/contention.trace
PROFILE=build/demo/sync.pb
OUT=docs/images
export GOTOOLCHAIN=local

fail() { printf 'screenshots: FAILED: %s\n' "$*" >&2; exit 1; }

fresh=0
case "${1:-}" in
	--fresh) fresh=1 ;;
	"") ;;
	*) fail "usage: bash scripts/screenshots.sh [--fresh]" ;;
esac

[ -x "$GO" ] || fail "$GO not found; run 'make deps' (or set GO=/path/to/go)"
have_chromium=0
for c in chromium chromium-browser google-chrome google-chrome-stable; do   # test_viewer.find_chromium's list
	command -v "$c" >/dev/null && have_chromium=1
done
[ "$have_chromium" = 1 ] || fail "Chromium is not installed (Debian: apt-get install chromium)"
[ -f build/libgotrace.so ] && [ -x build/gotrace ] || fail "build/libgotrace.so is missing; run 'make' first"

if [ "$fresh" = 1 ] || [ ! -s "$TRACE" ] || [ ! -s "$PROFILE" ] || [ build/libgotrace.so -nt "$TRACE" ]; then
	echo "== tracing the demo (scripts/demo.sh)"
	GO=$GO bash scripts/demo.sh >/dev/null || fail "scripts/demo.sh"
fi

mkdir -p "$OUT"
echo "== screenshots of $TRACE and $PROFILE -> $OUT/"
python3 - "$GO" "$TRACE" "$PROFILE" "$OUT" <<'PY'
import base64
import html
import os
import re
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "test", "integration"))
import test_viewer as tv  # noqa: E402

go, trace, profile, out = sys.argv[1:5]
W, H = 1400, 900
log = os.path.join("build", "demo", "screenshots")
chromium = tv.find_chromium()

# Hide the viewer's "running with WebComponentsV0 polyfill" banner, pick a
# worker_main slice in the middle of the trace that ended blocked in
# record_result (the hot lock), zoom to 14 ms around it and select it, so that
# the bottom panel shows its start and end stacks.
TRACE_SETUP = """(function() {
  var v = document.querySelector('tr-ui-timeline-view');
  var banner = document.querySelector('#polyfill-warning');
  if (banner) banner.style.display = 'none';
  function stack(f) { var n = []; for (; f; f = f.parentFrame) n.push(f.title); return n.join(' '); }
  var m = v.model, mid = (m.bounds.min + m.bounds.max) / 2, pick = null;
  m.getAllThreads().forEach(function(t) {
    t.sliceGroup.slices.forEach(function(s) {
      if (!/ worker_main /.test(s.title) || s.start < mid || s.duration < 0.8) return;
      if (!/pthread_mutex_lock.*record_result/.test(stack(s.endStackFrame))) return;
      if (!pick || s.start < pick.start) pick = s;
    });
  });
  if (!pick) return 'error: no worker_main slice that ended in pthread_mutex_lock <- record_result';
  var canvas = null;
  Array.prototype.forEach.call(document.querySelectorAll('tr-ui-timeline-track-view canvas'), function(c) {
    if (!canvas || c.width * c.height > canvas.width * canvas.height) canvas = c;
  });
  var vp = v.trackView.viewport;
  var dt = new tr.ui.TimelineDisplayTransform();
  dt.set(vp.currentDisplayTransform);
  dt.xSetWorldBounds(pick.start - 6, pick.start + 8, canvas.width);
  vp.setDisplayTransformImmediately(dt);
  v.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet([pick]));
  // a taller bottom panel, so that both stacks of the selected slice show
  var panel = document.querySelector('tr-ui-a-analysis-view');
  if (panel) panel.style.height = '390px';
  return pick.title + ' at ' + pick.start.toFixed(3) + ' ms';
})()"""

# Pick a CPU profile sample (an instant event on a thread's row) in the
# middle of the trace whose stack holds worker_main, zoom to 6 ms around it
# and select it, so that the bottom panel shows its stack.
SAMPLE_SETUP = """(function() {
  var v = document.querySelector('tr-ui-timeline-view');
  var banner = document.querySelector('#polyfill-warning');
  if (banner) banner.style.display = 'none';
  function stack(f) { var n = []; for (; f; f = f.parentFrame) n.push(f.title); return n.join(' '); }
  var m = v.model, mid = (m.bounds.min + m.bounds.max) / 2, pick = null;
  m.getAllThreads().forEach(function(t) {
    t.sliceGroup.slices.forEach(function(s) {
      if (s.title !== 'CPU profile sample' || s.start < mid) return;
      if (!/worker_main/.test(stack(s.startStackFrame))) return;
      if (!pick || s.start < pick.start) pick = s;
    });
  });
  if (!pick) return 'error: no CPU profile sample of worker_main in the second half of the trace';
  var canvas = null;
  Array.prototype.forEach.call(document.querySelectorAll('tr-ui-timeline-track-view canvas'), function(c) {
    if (!canvas || c.width * c.height > canvas.width * canvas.height) canvas = c;
  });
  var vp = v.trackView.viewport;
  var dt = new tr.ui.TimelineDisplayTransform();
  dt.set(vp.currentDisplayTransform);
  dt.xSetWorldBounds(pick.start - 3, pick.start + 3, canvas.width);
  vp.setDisplayTransformImmediately(dt);
  v.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet([pick]));
  var panel = document.querySelector('tr-ui-a-analysis-view');
  if (panel) panel.style.height = '390px';
  return pick.title + ' at ' + pick.start.toFixed(3) + ' ms';
})()"""

# Right and bottom edge of what a page shows (its text and its leaf
# elements), to crop short pages.
CONTENT_BOX = """(function() {
  var right = 0, bottom = 0;
  function add(r) {
    if (r.width > 0 && r.height > 0) { right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom); }
  }
  var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (var n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.nodeValue.trim()) continue;
    var range = document.createRange();
    range.selectNodeContents(n);
    add(range.getBoundingClientRect());
  }
  Array.prototype.forEach.call(document.body.getElementsByTagName('*'), function(e) {
    if (!e.children.length && getComputedStyle(e).visibility !== 'hidden') add(e.getBoundingClientRect());
  });
  return [Math.ceil(right), Math.ceil(bottom)];
})()"""

# Bottom edge of the goroutine group's Breakdown table (the one with the
# block time columns): the page is cropped there.
BREAKDOWN_BOTTOM = """(function() {
  var bottom = 0;
  Array.prototype.forEach.call(document.querySelectorAll('table'), function(t) {
    if (/Block time/.test(t.textContent)) bottom = Math.max(bottom, t.getBoundingClientRect().bottom);
  });
  return Math.ceil(bottom);
})()"""


def shot(browser, name, width=None, height=None):
    """Screenshot of the viewport, or of its top-left width x height."""
    path = os.path.join(out, name)
    params = {"format": "png"}
    if width or height:
        params["clip"] = {"x": 0, "y": 0, "width": min(W, width or W), "height": min(H, height or H), "scale": 1}
    png = base64.b64decode(browser.call("Page.captureScreenshot", params, timeout=30)["data"])
    with open(path + ".tmp", "wb") as f:
        f.write(png)
    os.replace(path + ".tmp", path)
    image = tv.read_png(png)
    colours, coloured, total = tv.colour_stats(image)
    print("%s: %dx%d, %d bytes, %d colours, %.1f%% coloured"
          % (path, image[0], image[1], len(png), colours, 100.0 * coloured / total))


def cropped(browser, name, margin=16):
    right, bottom = browser.evaluate(CONTENT_BOX)
    shot(browser, name, right + margin, bottom + margin)


def page_ready(*markers):
    """Ready when the document is loaded and shows every marker."""
    return " && ".join(["document.readyState === 'complete'"] +
                       ["document.body.innerText.indexOf(%r) >= 0" % m for m in markers])


with tv.GoServer("trace", trace, log + ".trace-http.log", go=go) as server:
    view = tv.trace_view_path(server.get("/"))
    if not view or "view=thread" not in view:
        sys.exit("screenshots: no 'View trace by thread' link on the main page of go tool trace (%s)" % view)
    groups = [html.unescape(h) for h in re.findall(r'href="(/goroutine\?[^"]*)"', server.get("/goroutines"))]
    group = ([g for g in groups if g.endswith("=worker_main")] or [None])[0]
    if not group:
        sys.exit("screenshots: no worker_main group on /goroutines of %s (links: %s)" % (trace, groups))
    with tv.Browser(chromium, W, H, log=log + ".chromium.log") as b:
        b.open(server.url(view), tv.VIEWER_READY, timeout=60)
        picked = b.evaluate(TRACE_SETUP)
        if picked.startswith("error:"):
            sys.exit("screenshots: " + picked)
        print("trace view: selected %s" % picked)
        b.settle(5)
        shot(b, "trace-threads.png")

        b.open(server.url(view), tv.VIEWER_READY, timeout=60)
        picked = b.evaluate(SAMPLE_SETUP)
        if picked.startswith("error:"):
            sys.exit("screenshots: " + picked)
        print("trace view: selected %s" % picked)
        b.settle(5)
        shot(b, "cpu-samples.png")

        b.open(server.url("/goroutines"), page_ready("worker_main"), timeout=30)
        b.settle()
        cropped(b, "goroutines.png")

        b.open(server.url(group), page_ready("Breakdown", "sync.mutex"), timeout=30)
        b.settle()
        shot(b, "goroutine-worker_main.png", height=b.evaluate(BREAKDOWN_BOTTOM) + 16)

with tv.GoServer("pprof", profile, log + ".pprof-http.log", go=go) as server:
    with tv.Browser(chromium, W, H, log=log + ".chromium.log") as b:
        # si=delay: seconds blocked (the profile's other sample type counts contentions)
        b.open(server.url("/ui/flamegraph?si=delay"), page_ready("worker_main", "pthread_mutex_lock"), timeout=30)
        b.settle()
        cropped(b, "sync-flamegraph.png")
PY

for f in trace-threads cpu-samples goroutines goroutine-worker_main sync-flamegraph; do
	size=$(wc -c <"$OUT/$f.png")
	[ "$size" -lt 300000 ] || fail "$OUT/$f.png is $size bytes (keep images under 300 KB)"
done
echo "== done: $OUT/trace-threads.png $OUT/cpu-samples.png $OUT/goroutines.png $OUT/goroutine-worker_main.png $OUT/sync-flamegraph.png"

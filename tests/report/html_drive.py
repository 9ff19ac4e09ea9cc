#!/usr/bin/env python3
# html_drive.py PAGE OUTDIR STEPS [PAGE OUTDIR STEPS ...] - drives `flameprof report -o
# profile.html` in Debian's headless chromium as a user would: mouse drags across the
# heatmap, clicks on the flame graph, typing in the search box. Prints one JSON object of
# what the page then shows (its flame graph as folded stacks, totals, the difference, the
# search share) for tests/e2e/report_html.t to compare with `report -f folded`, one line per
# page, and saves screenshots into OUTDIR. One browser for all the pages.
#   STEPS: a JSON object {"a": [cell, cell], "b": [cell, cell], "search": RE,
#   "zoom": NAME, "merged": true, "wall": true, "shots": false (no screenshots: no one
#   looks at them)}; cells are 20 ms cells from t0. Findings include the legend's text,
#   and after a zoom the hover panels' (they must be empty: the graph was redrawn).
#   A --diff page (report --diff BASE DIR -o diff.html) takes "whole_diff": true (the
#   difference of the whole captures as loaded), "base_a" and "dir_b": [cell, cell] (a drag
#   across BASE's heatmap, then DIR's) and "hover": NAME (the frame's description).
# The browser is driven through its DevTools protocol on a pair of pipes
# (--remote-debugging-pipe: JSON messages ended by a NUL byte, chromium reading fd 3 and
# writing fd 4), with nothing but Python's standard library: no npm package to fetch, so it
# runs wherever Debian's chromium does (a registry behind a TLS proxy refused npm in a bare
# root).
import base64
import json
import os
import select
import subprocess
import sys
import time

BROWSER = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class Browser:
    def __init__(self):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        # the child's fds 3 and 4; close_fds=False keeps them. Through fresh
        # copies: a pipe end that is fd 3 already keeps its close-on-exec flag
        # under dup2(3, 3), and chromium finds no pipe
        def fds():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [BROWSER, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-quic", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.n = 0
        self.events = []   # (sessionId, method, params) not yet looked at

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("the browser said nothing in time")
            r, _, _ = select.select([self.from_r], [], [], left)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise EOFError("the browser went away")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        self.n += 1
        m = {"id": self.n, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.to_w, json.dumps(m).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.n:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            if "method" in r:
                self.events.append((r.get("sessionId"), r["method"], r.get("params", {})))

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Page:
    def __init__(self, b):
        self.b = b
        self.target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.s = b.call("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Network.enable"):
            self.call(m)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None, timeout=30):
        return self.b.call(method, params, self.s, timeout)

    def seen(self, out):
        """Moves this page's events into out's errors and requests."""
        keep = []
        for s, m, p in self.b.events:
            if s != self.s:
                keep.append((s, m, p))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out["errors"].append(d.get("exception", {}).get("description") or d.get("text", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out["errors"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:")):
                    out["requests"].append(url)
        self.b.events = keep

    def eval(self, expr, timeout=30):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True}, timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate %s: %s" % (expr, r["exceptionDetails"].get("text")))
        return r.get("result", {}).get("value")

    def frame_in_view(self, name):
        """The point of a drawn frame (FP.framePoint), scrolled into the
        window first: a frame deep in the graph (fp_busy:burn_deep/2, 54
        frames down) lies below the 1000 px window, and a mouse event
        there reaches nothing."""
        p = self.eval("window.FP.framePoint(%s)" % name)
        if p and not 0 <= p["y"] < self.eval("window.innerHeight"):
            self.eval("window.scrollBy(0, %f)" % (p["y"] - self.eval("window.innerHeight") / 2))
            p = self.eval("window.FP.framePoint(%s)" % name)
        return p

    def mouse(self, kind, x, y, pressed=False):
        p = {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseMoved" or pressed else "none",
             "buttons": 1 if pressed else 0, "clickCount": 1}
        self.call("Input.dispatchMouseEvent", p)

    def click_at(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, True)
        self.mouse("mouseReleased", x, y)

    def click(self, selector):
        r = self.eval("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                      " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()" % json.dumps(selector))
        self.click_at(r["x"], r["y"])

    def key(self, name, code):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": name, "code": name,
                                                 "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def screenshot(self, path):
        m = self.call("Page.getLayoutMetrics")
        size = m.get("cssContentSize") or m["contentSize"]
        r = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": 0, "y": 0, "width": size["width"],
                                                          "height": size["height"], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        self.b.call("Target.closeTarget", {"targetId": self.target})


def drive(b, page_path, outdir, steps):
    out = {"errors": [], "requests": []}
    page = None
    try:
        page = Page(b)
        t0 = time.time()
        page.call("Page.navigate", {"url": "file://" + os.path.abspath(page_path)})
        deadline = time.time() + 30
        while not page.eval("!!(window.FP && window.FP.ready)"):
            if time.time() > deadline:
                raise TimeoutError("the page was not ready within 30 s")
            time.sleep(0.05)
        # time to interactive: navigation start to the first drawing done, as the page measured it
        out["ready_ms"] = page.eval("window.FP.ready")
        out["load_wall_ms"] = (time.time() - t0) * 1000
        out["cols"] = page.eval("window.FP.cols")
        out["whole_total"] = page.eval("window.FP.total()")
        out["capture"] = page.eval("document.getElementById('capture').textContent")
        out["legend_text"] = page.eval("document.getElementById('legend').textContent")
        out["last_cell"] = page.eval("window.FP.lastCell")
        out["seconds_per_column"] = page.eval("window.FP.secondsPerColumn")
        # "shots": false where no one looks at the pictures (they took 11 of
        # report_html.t's 24 s in the browser, most of it on the deep page)
        shot = (lambda name: page.screenshot(os.path.join(outdir, name))) if steps.get("shots", True) \
            else (lambda name: None)
        shot("html_whole.png")
        out["categories"] = page.eval("window.FP.categories()")

        def drag(rng, which=""):
            if rng[1] < 0:
                rng = [rng[0], page.eval("window.FP.%s" % ("baseLastCell" if which == "base" else "lastCell"))]
            # each end's point asked for when the mouse goes there: the heatmap scrolls
            # to show it (an hour is wider than the window)
            a = page.eval("window.FP.cellPoint(%d, %s)" % (rng[0], json.dumps(which)))
            page.mouse("mouseMoved", a["x"], a["y"])
            page.mouse("mousePressed", a["x"], a["y"], True)
            e = page.eval("window.FP.cellPoint(%d, %s)" % (rng[1], json.dumps(which)))
            for k in (1, 2, 3):  # three steps, as a hand moves
                page.mouse("mouseMoved", a["x"] + (e["x"] - a["x"]) * k / 3, a["y"] + (e["y"] - a["y"]) * k / 3, True)
            page.mouse("mouseReleased", e["x"], e["y"])

        if steps.get("wall"):
            page.click('#viewseg button[data-v="wall"]')
        if steps.get("merged"):
            page.click('#frameseg button[data-v="merged"]')
        if steps.get("whole_diff"):  # after the switches
            out["whole_diff"] = page.eval("window.FP.diff()")
            out["gone"] = page.eval("window.FP.gone()")
            out["legend"] = page.eval("document.getElementById('legend').textContent")
            shot("html_whole_diff.png")
        # the time from a range's mouse up to its flame graph drawn (as the page counts it)
        if steps.get("a"):
            drag(steps["a"])
            out["a"] = {"ms": page.eval("window.FP.lastDraw"), "state": page.eval("window.FP.state.a"),
                        "total": page.eval("window.FP.total()"), "folded": page.eval("window.FP.folded()"),
                        "text": page.eval("document.getElementById('sel').textContent")}
            shot("html_range.png")
        if steps.get("b"):
            drag(steps["b"])
            out["b"] = {"ms": page.eval("window.FP.lastDraw"), "state": page.eval("window.FP.state.b"),
                        "total": page.eval("window.FP.total()"), "folded": page.eval("window.FP.folded()"),
                        "diff": page.eval("window.FP.diff()")}
            shot("html_diff.png")
        for k, which in (("base_a", "base"), ("dir_b", "")):
            if steps.get(k):
                drag(steps[k], which)
                out[k] = {"state": page.eval("window.FP.state.%s" % k[-1]), "total": page.eval("window.FP.total()"),
                          "folded": page.eval("window.FP.folded()"), "diff": page.eval("window.FP.diff()")}
                shot("html_%s.png" % k)
        if steps.get("hover"):
            p = page.frame_in_view(json.dumps(steps["hover"]))
            if p:
                page.mouse("mouseMoved", p["x"], p["y"])
                out["hover"] = page.eval("document.getElementById('details').textContent")
                out["tip"] = page.eval("document.getElementById('tip').textContent")
                shot("html_hover.png")
        if steps.get("search"):
            page.eval("document.getElementById('search').focus()")
            page.call("Input.insertText", {"text": steps["search"]})
            out["search"] = page.eval("window.FP.matched()")
            shot("html_search.png")
            page.eval("(() => { const s = document.getElementById('search'); s.value = '';"
                      " s.dispatchEvent(new Event('input')); })()")
        if steps.get("zoom"):
            name = json.dumps(steps["zoom"])
            p = page.frame_in_view(name)
            out["zoom"] = {"found": bool(p)}
            if p:
                page.click_at(p["x"], p["y"])
                out["zoom"]["zoomed"] = page.eval("window.FP.zoomed()")
                # the hover panels after the zoom: the frame they described is redrawn
                out["zoom"]["panels_after"] = page.eval(
                    "[document.getElementById('details').textContent, document.getElementById('tip').style.display]")
                after = page.eval("window.FP.framePoint(%s)" % name)
                out["zoom"]["width_before"] = p["w"]
                out["zoom"]["width_after"] = after["w"] if after else 0
                shot("html_zoom.png")
                page.key("Escape", 27)
                out["zoom"]["after_escape"] = page.eval("window.FP.zoomed()")
        page.seen(out)
        page.close()
    except Exception as e:  # said in the page's findings, which the test reads
        if page:
            page.seen(out)
        out["errors"].append("driver: %s: %s" % (type(e).__name__, e))
    return out


def main(args):
    b = Browser()
    try:
        for i in range(0, len(args) - 2, 3):
            print(json.dumps(drive(b, args[i], args[i + 1], json.loads(args[i + 2]))), flush=True)
    finally:
        b.close()


if __name__ == "__main__":
    main(sys.argv[1:])

// html_drive.js PAGE OUTDIR STEPS [PAGE OUTDIR STEPS ...] - drives `flameprof report -o profile.html`
// in headless chromium (puppeteer-core, Debian's chromium) as a user would:
// mouse drags across the heatmap, clicks on the flame graph, typing in the
// search box. Prints one JSON object of what the page then shows (its
// flame graph as folded stacks, totals, the difference, the search share)
// for the test (tests/e2e/report_html.t) to compare with `report -f folded`,
// one line per page, and saves screenshots into OUTDIR. One browser for all
// the pages (it takes a second or two to start).
//   STEPS: a JSON object {"a": [cell, cell], "b": [cell, cell], "search": RE,
//   "zoom": NAME, "merged": true, "wall": true}; cells are 20 ms cells from t0.
'use strict';
const puppeteer = require('puppeteer-core');
const path = require('path');

const browser_path = process.env.CHROMIUM || '/usr/bin/chromium';

async function drive(browser, page_path, outdir, steps) {
	const out = { errors: [], requests: [] };
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1400, height: 1000 });
		page.on('pageerror', (e) => out.errors.push(String(e)));
		page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
		page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) out.requests.push(r.url()); });
		const t0 = Date.now();
		await page.goto('file://' + path.resolve(page_path), { waitUntil: 'load', timeout: 30000 });
		await page.waitForFunction('window.FP && window.FP.ready', { timeout: 15000 });
		// time to interactive: navigation start to the first drawing done, as the page measured it
		out.ready_ms = await page.evaluate(() => window.FP.ready);
		out.load_wall_ms = Date.now() - t0;
		out.cols = await page.evaluate(() => window.FP.cols);
		out.whole_total = await page.evaluate(() => window.FP.total());
		const shot = async (name) => {
			await page.screenshot({ path: path.join(outdir, name), fullPage: true });
		};
		await shot('html_whole.png');
		out.categories = await page.evaluate(() => window.FP.categories());
		const drag = async (range) => {
			if (range[1] < 0) range = [range[0], await page.evaluate(() => window.FP.lastCell)];
			// each end's point asked for when the mouse goes there: the heatmap
			// scrolls to show it (an hour is wider than the window)
			const a = await page.evaluate((c) => window.FP.cellPoint(c), range[0]);
			await page.mouse.move(a.x, a.y);
			await page.mouse.down();
			const b = await page.evaluate((c) => window.FP.cellPoint(c), range[1]);
			await page.mouse.move(b.x, b.y, { steps: 3 });
			await page.mouse.up();
		};
		const click = async (sel) => { await page.click(sel); };
		if (steps.wall) await click('#viewseg button[data-v="wall"]');
		if (steps.merged) await click('#frameseg button[data-v="merged"]');
		// the time from a range's mouse up to its flame graph drawn (as the page counts it)
		const drawn = async () => page.evaluate(() => window.FP.lastDraw);
		if (steps.a) {
			await drag(steps.a);
			out.a = { ms: await drawn(), state: await page.evaluate(() => window.FP.state.a), total: await page.evaluate(() => window.FP.total()),
				folded: await page.evaluate(() => window.FP.folded()) };
			await shot('html_range.png');
		}
		if (steps.b) {
			await drag(steps.b);
			out.b = { ms: await drawn(), state: await page.evaluate(() => window.FP.state.b), total: await page.evaluate(() => window.FP.total()),
				folded: await page.evaluate(() => window.FP.folded()), diff: await page.evaluate(() => window.FP.diff()) };
			await shot('html_diff.png');
		}
		if (steps.search) {
			await page.type('#search', steps.search);
			out.search = await page.evaluate(() => window.FP.matched());
			await shot('html_search.png');
			await page.evaluate(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); });
		}
		if (steps.zoom) {
			const p = await page.evaluate((n) => window.FP.framePoint(n), steps.zoom);
			out.zoom = { found: !!p };
			if (p) {
				await page.mouse.click(p.x, p.y);
				out.zoom.zoomed = await page.evaluate(() => window.FP.zoomed());
				const after = await page.evaluate((n) => window.FP.framePoint(n), steps.zoom);
				out.zoom.width_before = p.w;
				out.zoom.width_after = after ? after.w : 0;
				await shot('html_zoom.png');
				await page.keyboard.press('Escape');
				out.zoom.after_escape = await page.evaluate(() => window.FP.zoomed());
			}
		}
		await page.close();
	} catch (e) {
		out.errors.push('driver: ' + (e && e.stack || e));
	}
	return out;
}

(async () => {
	const args = process.argv.slice(2);
	const browser = await puppeteer.launch({
		executablePath: browser_path, headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--disable-quic'],
	});
	try {
		for (let i = 0; i + 2 < args.length; i += 3)
			process.stdout.write(JSON.stringify(await drive(browser, args[i], args[i + 1], JSON.parse(args[i + 2]))) + '\n');
	} finally {
		await browser.close();
	}
})();

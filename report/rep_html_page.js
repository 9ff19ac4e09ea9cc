/*
 * rep_html_page.js - the page of `flameprof report -o profile.html`:
 * the sub-second heatmap on top, the flame graph of a selected range
 * below, the difference between two ranges, search, zoom, a legend, and
 * the on-CPU / wall-clock and by-process / merged switches. Embedded into
 * the binary at build time (rep_html.c writes it after the data); no
 * network, no server, no library.
 *
 * The data (the <script id="fp-data"> JSON, rep_html.c):
 *   names[f], kinds[f]        frame table: name, kind ('r' root, 's' status,
 *                             'c' code, 'k' category, 'n' negative)
 *   parent[n], frame[n]       the stack table: one node per distinct stack
 *                             prefix (node 0 the root), a parent's id below
 *                             its children's
 *   recs (base64), nrec       per 20 ms cell, the stacks sampled in it:
 *                             varints: cell delta, count of stacks, then per
 *                             stack: node delta, samples[, zigzag weight]
 * A cell is (time - t0) / cell_us; its column cell / rows (the second),
 * its row cell % rows (the fraction of the second), as Flamescope draws.
 *   base {input, t0, events, recs, nrec}
 *                             `report --diff BASE DIR -o diff.html`: BASE's
 *                             samples, on the same stack table (its stacks
 *                             that DIR lacks appended, rep_html.c); the page
 *                             then draws both heatmaps, a range of each, and
 *                             the flame graph is always DIR's (range)
 *                             coloured by its difference from BASE's (range)
 */
(function () {
	'use strict';
	var D = JSON.parse(document.getElementById('fp-data').textContent);
	var ROWS = D.rows, CELL_S = D.cell_us / 1e6;
	var $ = function (id) { return document.getElementById(id); };
	var fmtInt = function (x) { return Math.round(x).toLocaleString('en-US'); };
	/* "1 sample", "2 samples", "1,234 reductions_delta" */
	var amount = function (x) { return fmtInt(x) + ' ' + (D.weight === 'samples' && Math.round(x) === 1 ? 'sample' : D.weight); };
	var pct = function (x) { return (100 * x).toFixed(x < 0.001 && x > 0 ? 3 : 2) + '%'; };

	/* ---- the stack table ---- */
	var N = D.parent.length, NF = D.names.length;
	var parent = Int32Array.from(D.parent), frameOf = Int32Array.from(D.frame);
	var kinds = D.kinds;
	var kindOfNode = function (n) { return n === 0 ? 'r' : kinds.charAt(frameOf[n]); };
	/* each node's status frame, and whether that status is on-CPU */
	var onCpuFrame = new Uint8Array(NF);
	D.names.forEach(function (nm, f) { if (kinds.charAt(f) === 's' && D.oncpu.indexOf(nm) >= 0) onCpuFrame[f] = 1; });
	var nodeOnCpu = new Uint8Array(N), statusSeen = {};
	for (var n = 1; n < N; n++) {
		if (kindOfNode(n) === 's') { nodeOnCpu[n] = onCpuFrame[frameOf[n]]; statusSeen[D.names[frameOf[n]]] = 1; }
		else nodeOnCpu[n] = nodeOnCpu[parent[n]];
	}
	var offCpuPresent = Object.keys(statusSeen).some(function (s) { return D.oncpu.indexOf(s) < 0; });

	/* ---- the samples: one capture, or BASE and DIR (--diff) ---- */
	var DIFF = !!D.base;
	function decode(recs, nrec, t0, events, input) {
		var C = { nrec: nrec, t0: t0, events: events, input: input, w: null, lastCell: 0 };
		var bin = atob(recs), len = bin.length, b = new Uint8Array(len), p = 0, i;
		for (i = 0; i < len; i++) b[i] = bin.charCodeAt(i);
		var vint = function () {
			var x = 0, mul = 1, c;
			do { c = b[p++]; x += (c & 127) * mul; mul *= 128; } while (c & 128);
			return x;
		};
		/* cells as doubles: exact to 2^53, 5.7 million years of 20 ms cells
		 * (an Int32Array wrapped past 497 days) */
		C.cell = new Float64Array(nrec); C.node = new Int32Array(nrec); C.count = new Float64Array(nrec);
		if (D.weighted) C.w = new Float64Array(nrec);
		var r = 0, cell = 0;
		while (r < nrec && p < len) {
			cell += vint();
			var k = vint(), node = 0;
			for (var j = 0; j < k && r < nrec; j++, r++) {
				node += vint();
				C.cell[r] = cell; C.node[r] = node; C.count[r] = vint();
				if (C.w) { var u = vint(); C.w[r] = u % 2 === 0 ? u / 2 : -(u + 1) / 2; }
			}
		}
		C.lastCell = r ? C.cell[r - 1] : 0;
		/* a column per second, as Flamescope; past 4 hours (or a planted
		 * date far off) a column per SPC seconds, so the grid stays a size
		 * a browser draws: a range is then whole columns */
		C.SPC = Math.max(1, Math.ceil((Math.floor(C.lastCell / ROWS) + 1) / MAX_COLS));
		C.COLS = Math.floor(C.lastCell / ROWS / C.SPC) + 1;
		C.H = { left: 56, top: 8, ch: DIFF ? 5 : 8, cw: 8, grid: null, max: 0 };
		return C;
	}
	var MAX_COLS = 14400;
	var dirCap = decode(D.recs, D.nrec, D.t0, D.events, D.input);
	var baseCap = DIFF ? decode(D.base.recs, D.base.nrec, D.base.t0, D.base.events, D.base.input) : null;
	var caps = DIFF ? [baseCap, dirCap] : [dirCap]; /* top to bottom */
	var gridOf = function (C, cell) { return Math.floor(cell / ROWS / C.SPC) * ROWS + cell % ROWS; };
	/* the time cells [first, last] of a drag between two grid cells */
	var toRange = function (C, g0, g1) {
		var lo = Math.min(g0, g1), hi = Math.max(g0, g1);
		if (C.SPC === 1) return [lo, hi];
		return [Math.floor(lo / ROWS) * C.SPC * ROWS, (Math.floor(hi / ROWS) + 1) * C.SPC * ROWS - 1];
	};

	/* ---- the two frame trees: by process (the stack table itself) and
	 * merged (category frames folded away) ---- */
	function makeTree(merge) {
		var map = new Int32Array(N), tp = [0], tf = [-1], key = new Map();
		for (var n = 1; n < N; n++) {
			var p = map[parent[n]];
			if (merge && kindOfNode(n) === 'k') { map[n] = p; continue; }
			var k = p * NF + frameOf[n], id = key.get(k);
			if (id === undefined) { id = tp.length; key.set(k, id); tp.push(p); tf.push(frameOf[n]); }
			map[n] = id;
		}
		var M = tp.length, kids = new Array(M), depth = new Int32Array(M), maxDepth = 0;
		for (var i = 0; i < M; i++) kids[i] = [];
		for (i = 1; i < M; i++) { kids[tp[i]].push(i); depth[i] = depth[tp[i]] + 1; if (depth[i] > maxDepth) maxDepth = depth[i]; }
		var byName = function (a, b) { var x = D.names[tf[a]], y = D.names[tf[b]]; return x < y ? -1 : x > y ? 1 : 0; };
		for (i = 0; i < M; i++) if (kids[i].length > 1) kids[i].sort(byName);
		return { map: map, parent: Int32Array.from(tp), frame: Int32Array.from(tf), kids: kids, depth: depth, maxDepth: maxDepth, size: M };
	}
	var trees = { process: makeTree(false), merged: null };

	/* ---- state ---- */
	var S = {
		view: 'cpu',            /* 'cpu' or 'wall' */
		frames: 'process',      /* 'process' or 'merged' */
		a: null, b: null,       /* selected ranges: [first cell, last cell] */
		zoom: 0, search: null, dragging: null
	};
	var tree = function () {
		if (S.frames === 'merged' && !trees.merged) trees.merged = makeTree(true);
		return trees[S.frames];
	};
	var recValue = function (C, r) { return C.w ? C.w[r] : C.count[r]; };
	var keep = function (C, r) { return S.view === 'wall' || nodeOnCpu[C.node[r]] === 1; };

	/* the first record at or after a cell (records are in cell order) */
	function lowerBound(C, cell) {
		var lo = 0, hi = C.nrec;
		while (lo < hi) { var mid = (lo + hi) >> 1; if (C.cell[mid] < cell) lo = mid + 1; else hi = mid; }
		return lo;
	}

	/* One range of capture C's totals in the current tree: tot[node]
	 * (value), cnt[node] (samples). */
	function profile(C, range) {
		var t = tree(), tot = new Float64Array(t.size), cnt = new Float64Array(t.size);
		var lo = range ? lowerBound(C, range[0]) : 0, hi = range ? lowerBound(C, range[1] + 1) : C.nrec;
		for (var r = lo; r < hi; r++) {
			if (!keep(C, r)) continue;
			var m = t.map[C.node[r]], v = recValue(C, r);
			tot[m] += v < 0 ? -v : v; /* negative weights drawn by magnitude, under 'negative' */
			cnt[m] += C.count[r];
		}
		for (var i = t.size - 1; i > 0; i--) { tot[t.parent[i]] += tot[i]; cnt[t.parent[i]] += cnt[i]; }
		return { tot: tot, cnt: cnt, range: range };
	}

	/* ---- colours (as the SVG's, report/rep_color.c) ---- */
	function fnv(s) { var h = 2166136261; for (var i = 0; i < s.length; i++) h = Math.imul(h ^ (s.charCodeAt(i) & 255), 16777619) >>> 0; return h; }
	var colorCache = new Map();
	function frameColor(f) {
		var c = colorCache.get(f);
		if (c) return c;
		var name = D.names[f], k = kinds.charAt(f), colon = name.indexOf(':');
		var hm = fnv(colon >= 0 ? name.slice(0, colon) : name), hf = fnv(name);
		if (k === 'r') c = '#c8c8c8';
		else if (k === 'n') c = '#b58ee8';
		else if (k === 's') c = 'hsl(' + (95 + hm % 40) + ',45%,62%)';
		else if (k === 'k') c = 'hsl(' + (185 + hm % 45) + ',55%,' + (62 + hf % 10) + '%)';
		else c = 'hsl(' + (hm % 55) + ',80%,' + (55 + hf % 12) + '%)';
		colorCache.set(f, c);
		return c;
	}
	function heatColor(t) { /* 0 < t <= 1: light to dark, as the SVG heatmap */
		return 'hsl(' + (8 + 30 * (1 - t)).toFixed(1) + ',90%,' + (92 - 62 * t).toFixed(1) + '%)';
	}
	function diffColor(d, max) { /* d > 0: the second range spends more: red; less: blue */
		if (!max || !d) return '#e8e8e8';
		var t = Math.min(1, Math.abs(d) / max), l = 92 - 42 * t;
		return d > 0 ? 'hsl(0,80%,' + l + '%)' : 'hsl(215,80%,' + l + '%)';
	}

	/* ---- time ---- */
	var pad = function (x, n) { x = String(x); while (x.length < (n || 2)) x = '0' + x; return x; };
	/* sec: seconds from t0 (DIR's unless given); a time past the dates a
	 * browser has (year 275760) is written as its Unix second */
	function unix(sec, t0) { return (t0 === undefined ? D.t0 : t0) + sec; }
	function dateAt(sec, t0) { var d = new Date(unix(sec, t0) * 1000); return isNaN(d.getTime()) ? null : d; }
	function clock(sec, ms, t0) {
		var d = dateAt(sec, t0);
		if (!d) return '@' + unix(sec, t0).toFixed(ms ? 3 : 0);
		return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + (ms ? '.' + pad(d.getUTCMilliseconds(), 3) : '');
	}
	function day(sec, t0) {
		var d = dateAt(sec, t0);
		return d ? d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) : clock(sec, 0, t0);
	}
	function dateOf(sec, t0) {
		return dateAt(sec, t0) ? day(sec, t0) + ' ' + clock(sec, 0, t0) + ' UTC' : 'Unix second ' + clock(sec, 0, t0).slice(1);
	}
	var secs = function (cell) { return +(cell * CELL_S).toFixed(3); };

	/* ---- the page ---- */
	document.title = D.title;
	var body = document.body;
	/* a heatmap per capture: one, or BASE's above DIR's */
	var heatHtml = DIFF ? '<div class="caplabel" id="caplabel0"></div><div class="heatwrap" id="heatwrap0"><canvas class="heat" id="heat0"></canvas></div>' +
		'<div class="caplabel" id="caplabel1"></div><div class="heatwrap" id="heatwrap"><canvas class="heat" id="heat"></canvas></div>'
		: '<div class="heatwrap" id="heatwrap"><canvas class="heat" id="heat"></canvas></div>';
	body.innerHTML =
		'<header><h1 id="title"></h1><div class="sub" id="capture"></div><div class="sub" id="note"></div></header>' +
		'<div class="bar"><span class="seg" id="viewseg"><button data-v="cpu">on-CPU</button><button data-v="wall">wall-clock</button></span>' +
		'<span class="seg" id="frameseg"><button data-v="process">by process</button><button data-v="merged">merged</button></span>' +
		'<span><canvas id="scale" width="160" height="12"></canvas> <span id="scaletext"></span></span></div>' +
		heatHtml +
		'<div id="sel"></div>' +
		'<div class="bar"><input type="search" id="search" placeholder="search (regular expression)"> <span id="match"></span>' +
		'<button class="plain" id="reset">Reset zoom</button><button class="plain" id="clear">Clear ranges</button></div>' +
		'<div id="legend"></div><div id="flamewrap"><canvas id="flame"></canvas></div><div id="details"></div><div id="tip"></div>';
	$('title').textContent = D.title;
	if (DIFF) { baseCap.canvas = $('heat0'); baseCap.wrap = $('heatwrap0'); baseCap.name = 'BASE'; dirCap.name = 'DIR'; }
	dirCap.canvas = $('heat'); dirCap.wrap = $('heatwrap');
	/* "2026-11-26 20:31:50 UTC (x: ...), 1,234 samples over 5 s (...)" of a capture */
	function captureText(C) {
		var span = (C.lastCell + 1) * CELL_S, cpuSamples = 0;
		for (var q = 0; q < C.nrec; q++) if (nodeOnCpu[C.node[q]]) cpuSamples += C.count[q];
		return dateOf(0, C.t0) + ' (x: seconds from it' + (C.SPC > 1 ? ', ' + C.SPC + ' s a column' : '') + '; y: the 20 ms within each second), ' +
			fmtInt(C.events) + ' samples over ' + Math.ceil(span) + ' s' + (D.all_status && offCpuPresent ? ' (' + fmtInt(cpuSamples) + ' of them on-CPU)' : '');
	}
	if (DIFF) {
		$('capture').textContent = 'differential: ' + D.input + ' (DIR) against ' + D.base.input + ' (BASE), each frame as a share of its own capture\'s ' +
			D.weight + ' (BASE\'s range and DIR\'s: drag across either heatmap); colour: the change of share, widths: DIR';
		$('caplabel0').textContent = 'BASE ' + D.base.input + ': ' + captureText(baseCap);
		$('caplabel1').textContent = 'DIR ' + D.input + ': ' + captureText(dirCap);
	} else {
		$('capture').textContent = 'capture: ' + captureText(dirCap) + '; colour and widths: ' + D.weight;
	}
	$('note').textContent = D.note;

	var dpr = window.devicePixelRatio || 1;
	function sizeCanvas(cv, w, h) {
		cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
		cv.style.width = w + 'px'; cv.style.height = h + 'px';
		var ctx = cv.getContext('2d'); ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		return ctx;
	}

	/* ---- heatmap (one per capture: C.H its layout and grid) ---- */
	function heatGrid(C) {
		var g = new Float64Array(C.COLS * ROWS), max = 0, H = C.H;
		for (var r = 0; r < C.nrec; r++) if (keep(C, r)) g[gridOf(C, C.cell[r])] += recValue(C, r);
		for (var i = 0; i < g.length; i++) if (Math.abs(g[i]) > max) max = Math.abs(g[i]);
		H.grid = g; H.max = max; H.base = null;
	}
	function heatLayout(C) {
		/* both captures' seconds equally wide, so that they compare */
		var H = C.H, cols = Math.max.apply(null, caps.map(function (k) { return k.COLS; }));
		var avail = Math.max(400, document.documentElement.clientWidth - 32 - H.left - 16);
		H.cw = Math.max(2, Math.min(60, Math.floor(avail / cols)));
		H.w = H.left + H.cw * C.COLS + 36; /* room for the last clock label */ H.h = H.top + ROWS * H.ch + 34; H.base = null;
	}
	function cellAt(C, x, y) {
		var H = C.H, col = Math.floor((x - H.left) / H.cw), row = Math.floor((y - H.top) / H.ch);
		col = Math.max(0, Math.min(C.COLS - 1, col)); row = Math.max(0, Math.min(ROWS - 1, row));
		return col * ROWS + row;
	}
	/* the cells, drawn once per grid and layout into a canvas of their own
	 * (a drag redraws only the ranges over it) */
	var LEVELS = 64, palette = [];
	for (var lv = 1; lv <= LEVELS; lv++) palette[lv] = heatColor(lv / LEVELS);
	function heatBase(C) {
		var H = C.H, COLS = C.COLS, cv = document.createElement('canvas'), ctx = sizeCanvas(cv, H.w, H.h), g = H.grid;
		ctx.fillStyle = '#f4f4f4'; ctx.fillRect(H.left, H.top, H.cw * COLS, ROWS * H.ch);
		for (var c = 0; c < COLS; c++) for (var r = 0; r < ROWS; r++) {
			var v = g[c * ROWS + r];
			if (!v) continue;
			ctx.fillStyle = v < 0 ? 'hsl(215,70%,60%)' : palette[Math.max(1, Math.ceil(v / H.max * LEVELS))];
			ctx.fillRect(H.left + c * H.cw, H.top + r * H.ch, H.cw, H.ch);
		}
		return cv;
	}
	/* the ranges shown over C's heatmap: [range, colour]. One capture: the
	 * first (blue) and the second (orange); --diff: BASE's range (blue) on
	 * its heatmap, DIR's (orange) on its own */
	function rangesOf(C) {
		var A = '#1a4f8a', B = '#e67800', ranges = [], dr = S.dragging;
		if (S.a && (!DIFF || C === baseCap)) ranges.push([S.a, A]);
		if (S.b && (!DIFF || C === dirCap)) ranges.push([S.b, B]);
		if (dr && dr.cap === C) ranges.push([toRange(C, dr[0], dr[1]), dr.first ? A : B]);
		return ranges;
	}
	function drawHeat(C) {
		if (!C) { caps.forEach(function (k) { drawHeat(k); }); return; }
		var H = C.H, COLS = C.COLS, SPC = C.SPC, cv = C.canvas, ctx = sizeCanvas(cv, H.w, H.h), c, r;
		if (!H.base) H.base = heatBase(C);
		ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.drawImage(H.base, 0, 0); ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		/* the ranges: the cells outside them dimmed, a bar of each one's
		 * colour above its columns */
		var ranges = rangesOf(C);
		if (ranges.length) {
			var inside = function (g) { /* a grid cell in a range: its time cells meet it */
				var t0 = SPC === 1 ? g : Math.floor(g / ROWS) * SPC * ROWS, t1 = SPC === 1 ? g : t0 + SPC * ROWS - 1;
				for (var k = 0; k < ranges.length; k++) if (t1 >= ranges[k][0][0] && t0 <= ranges[k][0][1]) return true;
				return false;
			};
			ctx.fillStyle = 'rgba(255,255,255,.62)';
			for (c = 0; c < COLS; c++) {
				for (r = 0; r < ROWS;) {
					var e = r, out = !inside(c * ROWS + r);
					while (e < ROWS && !inside(c * ROWS + e) === out) e++;
					if (out) ctx.fillRect(H.left + c * H.cw, H.top + r * H.ch, H.cw, (e - r) * H.ch);
					r = e;
				}
			}
			ranges.forEach(function (q) {
				var c0 = Math.floor(q[0][0] / ROWS / SPC), c1 = Math.floor(q[0][1] / ROWS / SPC);
				ctx.fillStyle = q[1];
				ctx.fillRect(H.left + c0 * H.cw, 0, (c1 - c0 + 1) * H.cw, H.top - 2);
			});
		}
		/* axes: seconds from the start and the wall-clock time under them */
		ctx.fillStyle = '#333'; ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'right';
		for (r = 0; r <= ROWS; r += 10) ctx.fillText(Math.round(r * CELL_S * 1000) + ' ms', H.left - 4, H.top + r * H.ch + 4);
		var tick = 1, steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
		for (var i = 0; i < steps.length && steps[i] * H.cw < 64; i++) tick = steps[i + 1] || steps[i];
		ctx.textAlign = 'center';
		for (c = 0; c <= COLS; c += tick) {
			var x = H.left + c * H.cw;
			ctx.fillRect(x, H.top + ROWS * H.ch, 1, 4);
			ctx.fillText(c * SPC + ' s', x, H.top + ROWS * H.ch + 15);
			/* the wall-clock time under each tick, or its date where a tick is a day or more */
			ctx.fillStyle = '#777'; ctx.fillText(tick * SPC >= 86400 ? day(c * SPC, C.t0) : clock(c * SPC, 0, C.t0), x, H.top + ROWS * H.ch + 28); ctx.fillStyle = '#333';
		}
		/* the colour scale (each heatmap its own: --diff's captures may
		 * differ in rate and load) */
		var sc = $('scale'), sx = sc.getContext('2d');
		for (i = 0; i < 160; i++) { sx.fillStyle = heatColor((i + 1) / 160); sx.fillRect(i, 0, 1, 12); }
		$('scaletext').textContent = '0 … ' + caps.map(function (k) { return fmtInt(k.H.max) + (DIFF ? ' (' + k.name + ')' : ''); }).join(', ') + ' ' +
			D.weight + ' per 20 ms cell (' + (!D.all_status ? '--status ' + D.status : S.view === 'cpu' ? 'on-CPU' : 'wall-clock') + ')';
	}

	/* ---- the flame graph (root at the top) ---- */
	var F = { rowH: 17, rects: [], prof: null, base: null, maxDiff: 0, gone: 0 };
	function recompute() {
		if (DIFF) { /* always DIR (its range) against BASE (its range) */
			F.prof = profile(dirCap, S.b);
			F.base = profile(baseCap, S.a);
		} else {
			F.prof = profile(dirCap, S.b || S.a);
			F.base = S.b ? profile(dirCap, S.a) : null;
		}
		F.maxDiff = 0; F.gone = 0;
		if (F.base) {
			var t = tree(), bt = F.prof.tot[0] || 1, at = F.base.tot[0] || 1;
			for (var i = 1; i < t.size; i++) {
				var d = Math.abs(F.prof.tot[i] / bt - F.base.tot[i] / at);
				if (F.prof.tot[i] > 0 && d > F.maxDiff) F.maxDiff = d;
				/* the first's figure on stacks the second lacks (not drawn) */
				if (!(F.prof.tot[i] > 0) && F.prof.tot[t.parent[i]] > 0) F.gone += F.base.tot[i];
			}
		}
		computeMatches();
	}
	/* --diff colours as the SVG's (rep_flame.c): against the largest change,
	 * or one point where all are smaller (two runs of the same work differ
	 * by hundredths of a point, which must not look like a change) */
	var diffMax = function () { return DIFF ? Math.max(F.maxDiff, 0.01) : F.maxDiff; };
	function nodeName(t, i) { return i === 0 ? 'all' : D.names[t.frame[i]]; }
	function computeMatches() {
		var t = tree(), tot = F.prof.tot;
		F.match = null;
		if (!S.search) { $('match').textContent = ''; return; }
		var re = S.search, m = new Uint8Array(t.size), covered = 0;
		for (var i = 1; i < t.size; i++) {
			var hit = re.test(D.names[t.frame[i]]);
			if (hit) m[i] = 1;
			/* a match inside another is not counted twice */
			if (hit && !(m[t.parent[i]] & 2)) covered += tot[i];
			if (hit || (m[t.parent[i]] & 2)) m[i] |= 2;
		}
		F.match = m; F.matched = covered;
		$('match').textContent = 'matched: ' + pct(tot[0] ? covered / tot[0] : 0) + ' (' + fmtInt(covered) + ' of ' + fmtInt(tot[0]) + ' ' + D.weight + ')';
	}
	function drawFlame() {
		/* the hover panels describe a frame of the graph drawn before: the
		 * graph changes (a zoom, a range, a view), so they are emptied */
		$('details').textContent = ''; $('tip').style.display = 'none';
		var t = tree(), tot = F.prof.tot, W = Math.max(400, document.documentElement.clientWidth - 32);
		var z = S.zoom < t.size ? S.zoom : 0, zt = tot[z] || 0;
		var rows = [], maxD = 0;
		F.rects = rows;
		/* the zoomed node's ancestors at full width, then its subtree by share */
		var chain = [];
		for (var a = z; ; a = t.parent[a]) { chain.unshift(a); if (a === 0) break; }
		var stack = [];
		chain.forEach(function (n, d) { if (n !== z) (rows[d] = rows[d] || []).push({ n: n, x: 0, w: W, anc: 1 }); });
		if (zt > 0) stack.push([z, 0, W, chain.length - 1]);
		var omitted = 0;
		while (stack.length) {
			var e = stack.pop(), n = e[0], x = e[1], w = e[2], d = e[3];
			(rows[d] = rows[d] || []).push({ n: n, x: x, w: w });
			if (d > maxD) maxD = d;
			var kids = t.kids[n], cx = x;
			for (var k = 0; k < kids.length; k++) {
				var c = kids[k], cw = tot[c] / zt * W;
				if (tot[c] <= 0) continue;
				if (cw < 0.4) { omitted++; cx += cw; continue; }
				stack.push([c, cx, cw, d + 1]);
				cx += cw;
			}
		}
		F.omitted = omitted;
		/* a canvas is at most 32,767 px tall: deeper rows are said, not drawn */
		var MAXROWS = Math.floor(32000 / F.rowH), allRows = Math.max(maxD, chain.length - 1) + 1;
		F.deep = allRows > MAXROWS ? allRows - MAXROWS : 0;
		if (F.deep) rows.length = MAXROWS;
		var Hh = Math.min(allRows, MAXROWS) * F.rowH + 4;
		var ctx = sizeCanvas($('flame'), W, Hh);
		ctx.font = '11px ui-monospace, Menlo, Consolas, monospace';
		ctx.textBaseline = 'middle';
		var charW = ctx.measureText('mmmmmmmmmm').width / 10;
		var bt = tot[0] || 1, base = F.base, at = base ? base.tot[0] || 1 : 1;
		for (var dd = 0; dd < rows.length; dd++) {
			var row = rows[dd] || [];
			row.sort(function (p, q) { return p.x - q.x; });
			for (var i = 0; i < row.length; i++) {
				var r = row[i], nn = r.n, y = dd * F.rowH;
				var fill = nn === 0 ? '#c8c8c8' : frameColor(t.frame[nn]);
				if (base) fill = diffColor(tot[nn] / bt - base.tot[nn] / at, diffMax());
				if (F.match && F.match[nn] & 1) fill = '#e040e0';
				ctx.fillStyle = fill;
				ctx.globalAlpha = r.anc ? 0.55 : 1;
				ctx.fillRect(r.x, y, Math.max(r.w - 0.5, 0.5), F.rowH - 1);
				ctx.globalAlpha = 1;
				if (r.w > 3 * charW + 6) {
					var name = nodeName(t, nn), fit = Math.floor((r.w - 6) / charW);
					if (name.length > fit) name = name.slice(0, Math.max(fit - 2, 1)) + '..';
					ctx.fillStyle = '#000';
					ctx.fillText(name, r.x + 3, y + F.rowH / 2);
				}
			}
		}
		legend();
		summary();
	}
	/* what flameprof's own frames mean (doc/report.md, "Frames flameprof adds") */
	var OURS = {
		'[ran_to_receive]': 'on a CPU, but its run ended before its stack could be read: its CPU is counted, its code is not known',
		'[no_stack]': 'a process the node gave no stack for'
	};
	function legend() {
		var t = tree(), seen = { s: {}, k: {} }, ours = {};
		for (var i = 1; i < t.size && i < 200000; i++) {
			var f = t.frame[i], k = kinds.charAt(f);
			if ((k === 's' || k === 'k') && F.prof.tot[i] > 0) {
				/* [\s\S]: '.' stops at a line terminator (U+2028 too) */
				var nm = D.names[f], key = k === 'k' ? nm.replace(/:[\s\S]*/, '') : nm;
				seen[k][key] = f;
			} else if (F.prof.tot[i] > 0 && OURS[D.names[f]]) ours[D.names[f]] = 1;
		}
		var sw = function (color, text, title) { return '<span title="' + (title || '') + '"><i style="background:' + color + '"></i>' + text + '</span>'; };
		var esc = function (s) { return s.replace(/[&<>"]/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); };
		var h = '';
		if (DIFF) {
			var bw = F.base.tot[0];
			h += sw('hsl(0,80%,60%)', 'a larger share in DIR') + sw('hsl(215,80%,60%)', 'a smaller share in DIR') +
				sw('#e8e8e8', 'the same share') + '<span>(widths: DIR; colour: change of each frame\'s share against BASE, strongest ' +
				(F.maxDiff * 100).toFixed(2) + ' points' + (bw && F.gone > 0 ? '; ' + pct(F.gone / bw) + ' of BASE on stacks DIR lacks, not drawn' : '') + ')</span>';
		} else if (F.base) {
			h += sw('hsl(0,80%,60%)', 'more in the second range') + sw('hsl(215,80%,60%)', 'less in the second range') +
				sw('#e8e8e8', 'the same share') + '<span>(widths: the second range; colour: change of each frame\'s share, strongest ' + pct(F.maxDiff) + ')</span>';
		} else {
			var st = Object.keys(seen.s), cat = Object.keys(seen.k);
			h += sw(st.length ? frameColor(seen.s[st[0]]) : 'hsl(110,45%,62%)', 'status rows: ' + esc(st.join(', ') || 'none'), 'the process status when sampled');
			h += sw(cat.length ? frameColor(seen.k[cat[0]]) : 'hsl(200,55%,65%)', 'category rows: ' + esc(cat.join(', ') || (S.frames === 'merged' ? 'folded away (merged)' : 'none')), 'a process\'s grouping: initial call, registered name, queue length...');
			h += sw('hsl(20,80%,60%)', 'functions (one hue per module)');
		}
		h += sw('#e040e0', 'search match');
		/* flameprof's own frames, where the graph holds them, and the way it points */
		Object.keys(ours).forEach(function (nm) { h += '<span class="ours"><b>' + esc(nm) + '</b>: ' + OURS[nm] + '</span>'; });
		h += '<span class="ours">root at the top (an SVG flame graph, -o flame.svg, draws it at the bottom)</span>';
		$('legend').innerHTML = h;
	}
	function rangeText(range, t0) {
		if (!range) return 'the whole capture';
		var a = secs(range[0]), b = secs(range[1] + 1);
		return a + ' s – ' + b + ' s (' + clock(a, 1, t0) + '–' + clock(b, 1, t0) + ' UTC)';
	}
	function summary() {
		var tot = F.prof.tot, h = '';
		var cmd = function (r, input) { return r ? '<code>flameprof report ' + escHtml(input || D.input) + ' --from ' + secs(r[0]) + ' --to ' + secs(r[1] + 1) + '</code>' : ''; };
		if (DIFF) {
			h = '<span class="a">BASE</span> ' + escHtml(D.base.input) + ', ' + rangeText(S.a, D.base.t0) + ': ' + fmtInt(F.base.tot[0]) + ' ' + D.weight + ' ' + cmd(S.a, D.base.input) +
				'<br><span class="b">DIR</span> ' + escHtml(D.input) + ', ' + rangeText(S.b) + ': ' + fmtInt(tot[0]) + ' ' + D.weight + ' ' + cmd(S.b) +
				' — the flame graph is DIR\'s, coloured by its difference from BASE; drag across either heatmap to compare a range of it';
		} else if (!S.a) h = 'Drag across the heatmap to pick a range; a second range shows the difference. Showing ' + rangeText(null) + ': ' + fmtInt(tot[0]) + ' ' + D.weight + '.';
		else {
			h = '<span class="a">first range</span> ' + rangeText(S.a) + ': ' + fmtInt((F.base || F.prof).tot[0]) + ' ' + D.weight + ' ' + cmd(S.a);
			if (S.b) h += '<br><span class="b">second range</span> ' + rangeText(S.b) + ': ' + fmtInt(tot[0]) + ' ' + D.weight + ' ' + cmd(S.b) + ' — the flame graph is the second, coloured by its difference from the first';
			else h += '<br>drag again for a second range: the difference between the two';
		}
		if (F.omitted) h += ' (' + fmtInt(F.omitted) + ' frames narrower than half a pixel not drawn)';
		if (F.deep) h += ' (the ' + fmtInt(F.deep) + ' deepest rows not drawn: click a deep frame to zoom into it)';
		$('sel').innerHTML = h;
	}
	function escHtml(s) { return String(s).replace(/[&<>"]/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); }
	function frameAt(x, y) {
		var row = F.rects[Math.floor(y / F.rowH)] || [];
		for (var i = 0; i < row.length; i++) if (x >= row[i].x && x < row[i].x + row[i].w) return row[i].n;
		return -1;
	}
	function describe(n) {
		var t = tree(), tot = F.prof.tot, cnt = F.prof.cnt, s = nodeName(t, n) + '\n';
		s += amount(tot[n]) + ' (' + pct(tot[0] ? tot[n] / tot[0] : 0) + ')';
		if (D.weighted) s += ', ' + fmtInt(cnt[n]) + ' samples';
		if (S.zoom && S.zoom !== n && tot[S.zoom]) s += ', ' + pct(tot[n] / tot[S.zoom]) + ' of the zoomed frame';
		if (F.base && DIFF) { /* as the SVG's title (rep_flame.c) */
			var bb = F.prof.tot[0] ? tot[n] / F.prof.tot[0] : 0, aa = F.base.tot[0] ? F.base.tot[n] / F.base.tot[0] : 0;
			s += '\nbefore ' + (100 * aa).toFixed(2) + '% (' + fmtInt(F.base.tot[n]) + ' of ' + fmtInt(F.base.tot[0]) + '), after ' +
				(100 * bb).toFixed(2) + '% (' + fmtInt(tot[n]) + ' of ' + fmtInt(F.prof.tot[0]) + '): ' + (bb >= aa ? '+' : '') + ((bb - aa) * 100).toFixed(2) + ' points';
		} else if (F.base) {
			var b = F.prof.tot[0] ? tot[n] / F.prof.tot[0] : 0, a = F.base.tot[0] ? F.base.tot[n] / F.base.tot[0] : 0;
			s += '\nfirst range ' + pct(a) + ' → second ' + pct(b) + ' (' + (b >= a ? '+' : '') + ((b - a) * 100).toFixed(2) + ' points)';
		}
		return s;
	}

	/* ---- events ---- */
	function refresh(heatToo) {
		if (heatToo) caps.forEach(function (C) { heatGrid(C); heatLayout(C); drawHeat(C); });
		recompute(); drawFlame(); syncButtons();
	}
	function syncButtons() {
		if (D.all_status) Array.prototype.forEach.call($('viewseg').children, function (b) { b.className = b.dataset.v === S.view ? 'on' : ''; });
		Array.prototype.forEach.call($('frameseg').children, function (b) { b.className = b.dataset.v === S.frames ? 'on' : ''; });
	}
	var wallBtn = $('viewseg').children[1];
	if (!D.all_status) {
		/* --status chose what the page holds: it shows all of that */
		S.view = 'wall';
		$('viewseg').innerHTML = '<button class="on" disabled title="the report kept these statuses only: run it without --status to switch between on-CPU and wall-clock">--status ' +
			escHtml(D.status) + '</button>';
	} else if (!offCpuPresent) {
		wallBtn.disabled = true;
		wallBtn.title = 'the capture holds on-CPU samples only: record with --status all for the wall-clock view';
	}
	$('viewseg').addEventListener('click', function (e) {
		var v = e.target.dataset && e.target.dataset.v;
		if (!v || e.target.disabled || v === S.view) return;
		S.view = v; S.zoom = 0; refresh(true);
	});
	$('frameseg').addEventListener('click', function (e) {
		var v = e.target.dataset && e.target.dataset.v;
		if (!v || v === S.frames) return;
		S.frames = v; S.zoom = 0; refresh(false);
	});
	var pos = function (cv, e) { var r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
	caps.forEach(function (C) {
		C.canvas.addEventListener('mousedown', function (e) {
			var p = pos(C.canvas, e), c = cellAt(C, p[0], p[1]);
			S.dragging = [c, c]; S.dragging.cap = C;
			/* --diff: BASE's heatmap picks BASE's range (the first), DIR's DIR's */
			S.dragging.first = DIFF ? C === baseCap : !S.a;
			drawHeat(C); e.preventDefault();
		});
	});
	window.addEventListener('mousemove', function (e) {
		var tip = $('tip'), text = null;
		if (S.dragging) {
			var D0 = S.dragging.cap, p = pos(D0.canvas, e); S.dragging[1] = cellAt(D0, p[0], p[1]); drawHeat(D0);
		}
		var fp = pos($('flame'), e);
		caps.forEach(function (C) {
			if (e.target !== C.canvas) return;
			var hp = pos(C.canvas, e), c = cellAt(C, hp[0], hp[1]), v = C.H.grid[c] || 0, SPC = C.SPC;
			if (SPC === 1)
				text = secs(c).toFixed(2) + '–' + secs(c + 1).toFixed(2) + ' s (' + clock(secs(c), 1, C.t0) + ' UTC): ' + amount(v);
			else
				text = 'seconds ' + Math.floor(c / ROWS) * SPC + '–' + (Math.floor(c / ROWS) + 1) * SPC + ', ' + (c % ROWS) * 20 + '–' + (c % ROWS + 1) * 20 +
					' ms within each: ' + amount(v);
			if (DIFF) text = C.name + ' ' + text;
		});
		if (e.target === $('flame')) {
			var n = frameAt(fp[0], fp[1]);
			if (n >= 0) { text = describe(n); $('details').textContent = text; }
		}
		if (text) {
			tip.textContent = text; tip.style.display = 'block';
			/* kept inside the window: left of the pointer near the right edge */
			var tw = tip.offsetWidth, vw = document.documentElement.clientWidth;
			tip.style.left = (e.clientX + 14 + tw > vw ? Math.max(0, e.clientX - 14 - tw) : e.clientX + 14) + 'px';
			tip.style.top = (e.clientY + 14) + 'px';
		}
		else tip.style.display = 'none';
	});
	window.addEventListener('mouseup', function () {
		if (!S.dragging) return;
		var d = S.dragging, range = toRange(d.cap, d[0], d[1]);
		S.dragging = null;
		if (DIFF) { if (d.cap === baseCap) S.a = range; else S.b = range; }
		else if (!S.a) S.a = range; else S.b = range;
		S.zoom = 0;
		var t = performance.now();
		drawHeat(d.cap); recompute(); drawFlame();
		window.FP.lastDraw = Math.round(performance.now() - t);
	});
	$('flame').addEventListener('click', function (e) {
		var p = pos($('flame'), e), n = frameAt(p[0], p[1]);
		if (n < 0) return;
		S.zoom = n; drawFlame();
	});
	$('reset').addEventListener('click', function () { S.zoom = 0; drawFlame(); });
	$('clear').addEventListener('click', function () { S.a = S.b = null; S.zoom = 0; drawHeat(); recompute(); drawFlame(); });
	$('search').addEventListener('input', function () {
		var v = $('search').value;
		try { S.search = v ? new RegExp(v) : null; $('search').style.borderColor = ''; }
		catch (err) { $('search').style.borderColor = 'red'; return; }
		computeMatches(); drawFlame();
	});
	window.addEventListener('keydown', function (e) {
		if (e.key === 'Escape') { S.zoom = 0; drawFlame(); }
		if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); $('search').focus(); }
	});
	var resizeTimer = 0;
	window.addEventListener('resize', function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(function () { caps.forEach(heatLayout); drawHeat(); drawFlame(); }, 100); });

	/* ---- what a test (or a curious user, from the console) can read ---- */
	window.FP = {
		state: S,
		/* the page position of a cell's centre, for a mouse to press on */
		cellPoint: function (cell, which) { /* which: 'base' for --diff's BASE */
			var C = which === 'base' ? baseCap : dirCap, H = C.H, heat = C.canvas;
			var col = Math.floor(cell / ROWS / C.SPC), row = cell % ROWS, wrap = C.wrap;
			/* scrolled into view first: an hour's heatmap is wider than the window */
			if (H.left + col * H.cw < wrap.scrollLeft || H.left + (col + 1) * H.cw > wrap.scrollLeft + wrap.clientWidth)
				wrap.scrollLeft = Math.max(0, H.left + col * H.cw - wrap.clientWidth / 2);
			var r = heat.getBoundingClientRect();
			return { x: r.left + H.left + col * H.cw + H.cw / 2, y: r.top + H.top + row * H.ch + H.ch / 2 };
		},
		/* the page position of a drawn frame's centre (by name, the widest) */
		framePoint: function (name) {
			var t = tree(), best = null, r = $('flame').getBoundingClientRect();
			F.rects.forEach(function (row, d) { (row || []).forEach(function (q) {
				if (nodeName(t, q.n) === name && (!best || q.w > best.w)) best = { x: r.left + q.x + q.w / 2, y: r.top + d * F.rowH + F.rowH / 2, w: q.w };
			}); });
			return best;
		},
		/* the shown flame graph as folded stacks: {"a;b;c": value} (self values) */
		folded: function () {
			var t = tree(), tot = F.prof.tot, out = {}, self = Float64Array.from(tot);
			for (var i = 1; i < t.size; i++) self[t.parent[i]] -= tot[i];
			for (i = 1; i < t.size; i++) {
				if (!(self[i] > 0)) continue;
				var p = [];
				for (var n = i; n !== 0; n = t.parent[n]) p.unshift(D.names[t.frame[n]]);
				out[p.join(';')] = self[i];
			}
			return out;
		},
		total: function () { return F.prof.tot[0]; },
		/* the names of the category frames (those "merged" folds away) */
		categories: function () { return D.names.filter(function (nm, f) { return kinds.charAt(f) === 'k'; }); },
		zoomed: function () { return S.zoom ? nodeName(tree(), S.zoom) : null; },
		/* each drawn frame's difference in share, by name ("a;b;c": points) */
		diff: function () {
			if (!F.base) return null;
			var t = tree(), out = {}, bt = F.prof.tot[0] || 1, at = F.base.tot[0] || 1;
			for (var i = 1; i < t.size; i++) {
				if (!(F.prof.tot[i] > 0)) continue;
				var p = [];
				for (var n = i; n !== 0; n = t.parent[n]) p.unshift(D.names[t.frame[n]]);
				out[p.join(';')] = { a: F.base.tot[i], b: F.prof.tot[i], at: F.base.tot[0], bt: F.prof.tot[0], color: diffColor(F.prof.tot[i] / bt - F.base.tot[i] / at, diffMax()) };
			}
			return out;
		},
		matched: function () { return F.match ? { covered: F.matched, total: F.prof.tot[0], text: $('match').textContent } : null; },
		cellSeconds: CELL_S, rows: ROWS, cols: dirCap.COLS, secondsPerColumn: dirCap.SPC, lastCell: dirCap.lastCell, nrec: D.nrec,
		diffPage: DIFF, baseLastCell: DIFF ? baseCap.lastCell : null,
		/* --diff: BASE's share on stacks DIR lacks (not drawn) */
		gone: function () { return F.base ? { gone: F.gone, whole: F.base.tot[0] } : null; }
	};
	refresh(true);
	window.FP.ready = performance.now();
})();

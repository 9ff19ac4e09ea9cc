/*
 * rep_svg_assets.c - behaviour of the pictures (our own code).
 *
 * Flame graph: every frame is <g class="f"><title/><rect/><text/></g>. The
 * script reads geometry back from the rects, so the C side writes each
 * frame once. Hover fills the details line, a click zooms into a frame
 * (its ancestors stretch to full width and fade), the search box highlights
 * names matching a regular expression and sums their share without
 * counting a frame inside another match twice.
 */
#include "rep_svg_assets.h"

const char rep_flame_css[] =
	"text{font-family:monospace;font-size:12px;fill:#000}\n"
	".f text{pointer-events:none}\n"
	".f:hover rect{stroke:#222;stroke-width:.8}\n"
	".f{cursor:pointer}\n"
	".anc{opacity:.55}\n"
	".hide{display:none}\n"
	".btn{cursor:pointer;fill:#1a4f8a}\n"
	".btn:hover{text-decoration:underline}\n"
	".title{font-size:17px;font-family:sans-serif}\n"
	".sub,.note{fill:#555;font-family:sans-serif}\n";

const char rep_flame_js[] =
	"(function(){\n"
	"'use strict';\n"
	"var svg=document.documentElement,C=window.FP,fr=[],byG=new Map(),zoomed=null,re=null;\n"
	"var det=document.getElementById('details'),unz=document.getElementById('unzoom');\n"
	"var srch=document.getElementById('search'),mat=document.getElementById('matched');\n"
	"var gs=document.querySelectorAll('g.f');\n"
	"for(var i=0;i<gs.length;i++){var g=gs[i],r=g.querySelector('rect'),t=g.querySelector('text');\n"
	" var f={g:g,r:r,t:t,x:+r.getAttribute('x'),w:+r.getAttribute('width'),y:+r.getAttribute('y'),\n"
	"  fill:r.getAttribute('fill'),name:g.querySelector('title').textContent.split('\\n')[0]};\n"
	" fr.push(f);byG.set(g,f);}\n"
	"function label(f,x,w){if(!f.t)return;var n=Math.floor((w-6)/C.cw);\n"
	" f.t.setAttribute('x',(x+3).toFixed(2));\n"
	" if(n<3){f.t.textContent='';return;}\n"
	" var a=Array.from(f.name);f.t.textContent=a.length<=n?f.name:a.slice(0,n-2).join('')+'..';}\n"
	"function place(f,x,w){f.r.setAttribute('x',x.toFixed(2));f.r.setAttribute('width',w.toFixed(2));label(f,x,w);}\n"
	"function frameOf(e){var g=e.target.closest&&e.target.closest('g.f');return g?byG.get(g):null;}\n"
	"function tip(f){return f.g.querySelector('title').textContent.replace(/\\n/g,'  |  ');}\n"
	"svg.addEventListener('mouseover',function(e){var f=frameOf(e);if(f)det.textContent=tip(f);});\n"
	"svg.addEventListener('mouseout',function(e){if(frameOf(e))det.textContent=det.getAttribute('data-idle')||' ';});\n"
	"svg.addEventListener('click',function(e){var f=frameOf(e);if(f)zoom(f);});\n"
	"function zoom(z){var x0=z.x,x1=z.x+z.w,s=C.pw/z.w,eps=1e-6;zoomed=z;\n"
	" for(var i=0;i<fr.length;i++){var f=fr[i];f.g.classList.remove('hide','anc');\n"
	"  if(f.y>z.y){if(f.x<=x0+eps&&f.x+f.w>=x1-eps){place(f,C.px,C.pw);f.g.classList.add('anc');}\n"
	"   else f.g.classList.add('hide');}\n"
	"  else if(f.x>=x0-eps&&f.x+f.w<=x1+eps)place(f,C.px+(f.x-x0)*s,f.w*s);\n"
	"  else f.g.classList.add('hide');}\n"
	" unz.classList.remove('hide');}\n"
	"function unzoom(){zoomed=null;for(var i=0;i<fr.length;i++){var f=fr[i];\n"
	"  f.g.classList.remove('hide','anc');place(f,f.x,f.w);}unz.classList.add('hide');}\n"
	"unz.addEventListener('click',function(e){e.stopPropagation();unzoom();});\n"
	"function search(p){re=null;var iv=[];\n"
	" if(p){try{re=new RegExp(p);}catch(err){det.textContent='bad regular expression: '+err.message;return;}}\n"
	" for(var i=0;i<fr.length;i++){var f=fr[i],m=re&&re.test(f.name);\n"
	"  f.r.setAttribute('fill',m?'#e040fb':f.fill);if(m)iv.push([f.x,f.x+f.w]);}\n"
	" if(!re){mat.textContent=' ';srch.textContent='Search';return;}\n"
	" iv.sort(function(a,b){return a[0]-b[0];});var sum=0,e=-1e300;\n"
	" for(var j=0;j<iv.length;j++){var a=Math.max(iv[j][0],e);if(iv[j][1]>a)sum+=iv[j][1]-a;e=Math.max(e,iv[j][1]);}\n"
	" srch.textContent='Clear';mat.textContent='Matched: '+(100*sum/C.pw).toFixed(2)+'%';}\n"
	"srch.addEventListener('click',function(e){e.stopPropagation();\n"
	" if(re){search(null);return;}var p=prompt('Regular expression to search frames for','');if(p)search(p);});\n"
	"document.addEventListener('keydown',function(e){\n"
	" if((e.ctrlKey||e.metaKey)&&e.key==='f'){e.preventDefault();var p=prompt('Regular expression to search frames for','');if(p)search(p);}\n"
	" else if(e.key==='Escape'){if(zoomed)unzoom();else search(null);}});\n"
	"})();\n";

const char rep_heat_css[] =
	"text{font-family:sans-serif;font-size:11px;fill:#333}\n"
	".title{font-size:17px}\n"
	".sub{fill:#555}\n"
	"#cursor{fill:none;stroke:#000;stroke-width:1;pointer-events:none}\n"
	"#sel{fill:#1a4f8a;fill-opacity:.18;stroke:#1a4f8a;pointer-events:none}\n";

/* Heatmap: the data ride along as arrays (col-major, 50 rows a column);
 * the mouse position gives the cell. Two clicks pick a time range and the
 * details line shows the --from/--to to cut a flame graph to it. */
const char rep_heat_js[] =
	"(function(){\n"
	"'use strict';\n"
	"var svg=document.documentElement,H=window.FPH,det=document.getElementById('details');\n"
	"var cur=document.getElementById('cursor'),sel=document.getElementById('sel'),start=null;\n"
	"function cell(e){var p=svg.createSVGPoint();p.x=e.clientX;p.y=e.clientY;\n"
	" p=p.matrixTransform(svg.getScreenCTM().inverse());\n"
	" var c=Math.floor((p.x-H.x)/H.cw),r=Math.floor((p.y-H.y)/H.ch);\n"
	" if(c<0||c>=H.cols||r<0||r>=H.rows)return null;return {c:c,r:r};}\n"
	"function t(c,r){return (c+r/H.rows).toFixed(2);}\n"
	"svg.addEventListener('mousemove',function(e){var k=cell(e);\n"
	" if(!k){cur.setAttribute('width',0);return;}\n"
	" cur.setAttribute('x',H.x+k.c*H.cw);cur.setAttribute('y',H.y+k.r*H.ch);\n"
	" cur.setAttribute('width',H.cw);cur.setAttribute('height',H.ch);\n"
	" var ms=1000/H.rows,s='t = '+t(k.c,k.r)+' .. '+t(k.c,k.r+1)+' s  ('+k.c+' s + '+\n"
	"  (k.r*ms)+'..'+((k.r+1)*ms)+' ms): '+(H.n[k.c]?H.n[k.c][k.r]:0)+' samples';\n"
	" if(H.w)s+=', '+H.wname+' '+(H.w[k.c]?H.w[k.c][k.r]:0);\n"
	" if(start)s+='  |  click again to end the range';\n"
	" det.textContent=s;});\n"
	"svg.addEventListener('click',function(e){var k=cell(e);if(!k)return;\n"
	" var v=k.c+k.r/H.rows;\n"
	" if(start===null){start=v;sel.setAttribute('width',0);return;}\n"
	" var a=Math.min(start,v),b=Math.max(start,v)+1/H.rows;start=null;\n"
	" det.textContent='flame graph of this range: flameprof report ... --from '+a.toFixed(2)+' --to '+b.toFixed(2);\n"
	" var ca=Math.floor(a+1e-9),cb=Math.floor(b-1e-9);\n"
	" sel.setAttribute('x',H.x+ca*H.cw);sel.setAttribute('y',H.y);\n"
	" sel.setAttribute('width',(cb-ca+1)*H.cw);sel.setAttribute('height',H.rows*H.ch);});\n"
	"})();\n";

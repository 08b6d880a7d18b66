// The ptxkit playground: ptxkit.wasm runs the commands in the page
// (cmd/ptxkit/main_js.go sets window.ptxkit). No server is involved.
"use strict";

const $ = (id) => document.getElementById(id);

// A kernel with a mistake: a relaxed store needs a scope.
const mistake = `.version 8.5
.target sm_90
.address_size 64

.visible .entry publish(.param .u64 out)
{
\t.reg .b32 %r<3>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [out];
\tmov.u32 %r1, %tid.x;
\tmul.wide.u32 %rd2, %r1, 4;
\tadd.u64 %rd2, %rd1, %rd2;
\tst.global.relaxed.u32 [%rd2], %r1;
\tret;
}
`;

const examples = [];
let examplesLoaded = Promise.resolve();

function ptxkit(args, stdin) {
  return window.ptxkit(args, stdin || "");
}

function escapeHTML(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// check runs ptxkit check on the editor's text and shows each diagnostic
// under its line.
async function check() {
  const src = $("src").value;
  const res = await ptxkit(["check", "--format=json", "--max-diagnostics", "0", "--stdin-name", "playground.ptx", "-"], src);
  const byLine = new Map();
  for (const l of res.stdout.split("\n")) {
    if (!l.trim()) continue;
    const d = JSON.parse(l);
    if (!byLine.has(d.line)) byLine.set(d.line, []);
    byLine.get(d.line).push(d);
  }
  const lines = src.split("\n");
  let html = "";
  lines.forEach((text, i) => {
    const ds = byLine.get(i + 1) || [];
    const sev = ds.some((d) => d.severity === "error") ? "has-error" : ds.length ? "has-warning" : "";
    const instr = /^\s*(@!?%\w+\s+)?[a-z][\w.:]*\s+[^;]*;/.test(text.replace(/^\s*\w+:\s*/, "")) ? "instr" : "";
    html += `<span class="line ${sev} ${instr}" data-line="${i + 1}"><span class="no">${i + 1}</span>${escapeHTML(text) || " "}</span>`;
    for (const d of ds) {
      let msg = `${d.col}: ${d.severity}: ${d.message} [${d.rule}]`;
      if (d.fix) msg += `\n    fix: ${d.fix}`;
      html += `<span class="diag ${d.severity}">${escapeHTML(msg)}</span>`;
    }
  });
  $("annotated").innerHTML = html;
  $("annotated").dataset.diagnostics = String([...byLine.values()].reduce((n, a) => n + a.length, 0));
  $("status").textContent = res.code === 0 ? "check: no errors" : res.code === 1 ? "check: errors" : "check: " + res.stderr;
}

// explain shows ptxkit explain of the hovered instruction.
const explained = new Map();
async function explain(ev) {
  const line = ev.target.closest && ev.target.closest(".line.instr");
  const hover = $("hover");
  if (!line) {
    hover.style.display = "none";
    return;
  }
  let text = $("src").value.split("\n")[Number(line.dataset.line) - 1];
  text = text.replace(/\/\/.*$/, "").replace(/^\s*\w+:\s*/, "").trim();
  const target = ($("src").value.match(/^\s*\.target\s+(sm_\w+)/m) || [])[1];
  const ptx = ($("src").value.match(/^\s*\.version\s+(\d+\.\d+)/m) || [])[1];
  const key = [text, target, ptx].join("|");
  if (!explained.has(key)) {
    const args = ["explain", text];
    if (target) args.push("--target", target);
    if (ptx) args.push("--ptx", ptx);
    explained.set(key, ptxkit(args).then((r) => r.stdout + r.stderr));
  }
  hover.textContent = await explained.get(key);
  hover.style.display = "block";
  hover.style.left = Math.min(ev.clientX + 12, window.innerWidth - 520) + "px";
  hover.style.top = Math.min(ev.clientY + 12, window.innerHeight - 200) + "px";
}

async function fmt() {
  const res = await ptxkit(["fmt", "-"], $("src").value);
  if (res.code === 0) $("src").value = res.stdout;
  show("fmt", res);
  check();
}

async function sass() {
  show("sass lower --arch " + $("arch").value, await ptxkit(["sass", "lower", "--arch", $("arch").value, "-"], $("src").value));
}

// splitArgs splits the run flags as a shell would for plain words.
function splitArgs(s) {
  return (s.match(/"[^"]*"|'[^']*'|\S+/g) || []).map((w) => w.replace(/^["']|["']$/g, ""));
}

async function runKernel() {
  const args = ["run", "-", ...splitArgs($("args").value)];
  if ($("withTimeline").checked) args.push("--timeline", "timeline.json");
  const res = await ptxkit(args, $("src").value);
  show("run " + $("args").value, res);
  $("timeline").innerHTML = "";
  const trace = res.files["timeline.json"];
  if (trace) $("timeline").appendChild(drawTimeline(JSON.parse(trace)));
  // a picture the flags asked for (--tmem-svg FILE.svg)
  for (const [path, text] of Object.entries(res.files)) {
    if (path.endsWith(".svg")) {
      const div = document.createElement("div");
      div.className = "picture";
      div.innerHTML = text.replace(/^<\?xml[^>]*>\s*/, "");
      $("timeline").appendChild(div);
    }
  }
}

function show(title, res) {
  $("outTitle").textContent = `${title} (exit ${res.code})`;
  $("out").textContent = res.stdout + (res.stderr ? "\n" + res.stderr : "");
  $("out").dataset.exit = String(res.code);
}

// drawTimeline draws a trace-event file of ptxkit run --timeline as SVG:
// a row per warp and landing track, slices as bars, flows as lines.
function drawTimeline(trace) {
  const ns = "http://www.w3.org/2000/svg";
  const el = (name, attrs, text) => {
    const e = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const procs = new Map(), rows = [], rowOf = new Map();
  for (const e of trace.traceEvents) {
    if (e.ph === "M" && e.name === "process_name") procs.set(e.pid, e.args.name);
    if (e.ph === "M" && e.name === "thread_name") rows.push({ pid: e.pid, tid: e.tid, name: e.args.name });
  }
  const used = new Set(trace.traceEvents.filter((e) => e.ph === "X").map((e) => e.pid + "/" + e.tid));
  const shown = rows.filter((r) => used.has(r.pid + "/" + r.tid));
  shown.forEach((r, i) => rowOf.set(r.pid + "/" + r.tid, i));
  const end = Math.max(1, ...trace.traceEvents.filter((e) => e.ph === "X").map((e) => e.ts + e.dur));
  const left = 250, width = 1000, rowH = 22, top = 20;
  const x = (ts) => left + (ts / end) * width;
  const svg = el("svg", { width: left + width + 20, height: top + rowH * shown.length + 10, class: "timeline" });
  for (let t = 0; t <= 4; t++) {
    const ts = (end * t) / 4;
    svg.appendChild(el("text", { x: x(ts), y: 12, "text-anchor": "middle" }, `step ${Math.round(ts)}`));
  }
  shown.forEach((r, i) => {
    svg.appendChild(el("text", { x: 4, y: top + i * rowH + 15 }, `${procs.get(r.pid) || "CTA"} · ${r.name}`));
    svg.appendChild(el("line", { x1: left, x2: left + width, y1: top + i * rowH + rowH - 1, y2: top + i * rowH + rowH - 1, stroke: "#e3e6eb" }));
  });
  const colors = { wait: "#e8a33d", async: "#4f7fd9" };
  for (const e of trace.traceEvents) {
    if (e.ph !== "X") continue;
    const i = rowOf.get(e.pid + "/" + e.tid);
    const bar = el("rect", { x: x(e.ts), y: top + i * rowH + 3, width: Math.max(2, x(e.ts + e.dur) - x(e.ts)), height: rowH - 7,
                             fill: colors[e.cat] || "#888", class: "slice " + e.cat, rx: 2 });
    bar.appendChild(el("title", {}, e.name + (e.args && e.args["waits for"] ? "\n" + e.args["waits for"] : "")));
    svg.appendChild(bar);
  }
  const flows = new Map();
  for (const e of trace.traceEvents) {
    if (e.ph !== "s" && e.ph !== "t" && e.ph !== "f") continue;
    if (!flows.has(e.id)) flows.set(e.id, []);
    flows.get(e.id).push(e);
  }
  for (const pts of flows.values()) {
    for (let k = 1; k < pts.length; k++) {
      const a = pts[k - 1], b = pts[k];
      const ya = top + rowOf.get(a.pid + "/" + a.tid) * rowH + rowH / 2, yb = top + rowOf.get(b.pid + "/" + b.tid) * rowH + rowH / 2;
      svg.appendChild(el("line", { x1: x(a.ts), y1: ya, x2: x(b.ts), y2: yb, stroke: "#c0392b", "stroke-width": 1.2, class: "flow", "marker-end": "" }));
    }
  }
  return svg;
}

async function loadExample(i) {
  if (examples[i].source === undefined) {
    const r = await fetch(examples[i].file);
    examples[i].source = r.ok ? await r.text() : `// could not fetch ${examples[i].file}: ${r.status}\n`;
  }
  $("src").value = examples[i].source;
  $("args").value = examples[i].args;
  return check();
}

async function autorun(mode) {
  // For the end-to-end test. "1": run the built-in example with its
  // timeline, then check the kernel with a mistake and hover its store,
  // leaving all in the page. "tmem": run the Tensor Memory example with
  // its picture.
  if (mode === "tmem") {
    await examplesLoaded;
    const i = examples.findIndex((e) => e.file === "examples/lifecycle.ptx");
    $("example").value = String(i);
    await loadExample(i);
    await runKernel();
    document.body.dataset.autorun = "done";
    return;
  }
  if (mode !== "1") return;
  await loadExample(0);
  await runKernel();
  $("outTitle").textContent = "built-in example: " + $("outTitle").textContent;
  $("src").value = examples[1].source;
  $("args").value = examples[1].args;
  $("example").value = "1";
  await check();
  const line = document.querySelector('#annotated .line.instr.has-error');
  const box = line.getBoundingClientRect();
  await explain({ target: line, clientX: box.left + 330, clientY: box.top + 50 });
  document.body.dataset.autorun = "done";
}

window.addEventListener("ptxkit-ready", () => {
  const ex = window.ptxkitExample;
  examples.push({ name: "built-in example: a 2-CTA cluster exchange (st.async, mbarrier)", source: ex.source,
                  args: ex.args.filter((a) => a !== "--trace").join(" ") });
  examples.push({ name: "a store with a mistake", source: mistake, args: "--block 32 --arg buf:128 --dump u32" });
  examples.forEach((e, i) => $("example").appendChild(new Option(e.name, i)));
  // kernels of the reference set, copied next to the page by scripts/playground.sh
  examplesLoaded = fetch("examples.json").then((r) => (r.ok ? r.json() : [])).then((list) => {
    for (const e of list) {
      examples.push(e);
      $("example").appendChild(new Option(e.name, examples.length - 1));
    }
  }).catch(() => {});
  $("example").onchange = () => loadExample(Number($("example").value));
  $("check").onclick = check;
  $("fmt").onclick = fmt;
  $("sass").onclick = sass;
  $("run").onclick = runKernel;
  let timer;
  $("src").oninput = () => { clearTimeout(timer); timer = setTimeout(check, 250); };
  $("annotated").onmousemove = explain;
  $("annotated").onmouseleave = () => { $("hover").style.display = "none"; };
  $("status").textContent = "ready";
  loadExample(0);
  autorun(new URLSearchParams(location.search).get("autorun"));
});

const go = new Go();
WebAssembly.instantiateStreaming(fetch("ptxkit.wasm"), go.importObject)
  .then((r) => go.run(r.instance))
  .catch((err) => { $("status").textContent = "could not load ptxkit.wasm: " + err; });

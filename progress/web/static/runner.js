// The browser runner: a suite's WGSL shaders (the same as `progress run
// --backend wgpu`, progress/back/wgsl_source.py) on this browser's GPU, under
// the plain / rr / chunked heuristics, then the result to the server.
//
// It mirrors progress/gpu/wgpu_backend.py: per launch, one command buffer of
// `iterations` (reset memory, clear the failed flags, dispatch), each
// iteration with its own {count, expired, cut} cell; a thread's backward jumps
// charge a budget of rate(W) x deadline, rate measured per launch size W as
// 3K / (t(4K) - t(K)); an implementation that cuts loops short caps the
// budget. Every launch is awaited, so the page keeps answering between them.
"use strict";

const HEURISTICS = ["plain", "rr", "chunked"];
const CODES = { plain: 0, rr: 1, chunked: 2 };
const MAX_WORKGROUPS = 65532;   // the paper's budget: M = floor(65532 / N)
const CPU_WORKGROUPS = 64;      // on a software adapter, as on lavapipe
const MAX_BUDGET = 2 ** 32 - 2;
const PROBE_BUDGET = 2 ** 20;
const CALIBRATION_TARGET_S = 0.02;

function $(id) { return document.getElementById(id); }

function setStatus(state, text) {
  const status = $("status");
  status.dataset.state = state;
  status.textContent = text;
}

function cell(failed, iterations) {
  return failed === 0 ? "P" : `F (${failed}/${iterations})`;
}

function geometry(heuristic, threads, instances) {
  const m = heuristic === "plain" ? 1 : instances;
  return { heuristic, threads, instances: m, workgroups: threads * m };
}

class Gpu {
  static async open() {
    if (!navigator.gpu) throw new Error("this browser has no WebGPU (navigator.gpu is missing)");
    const adapter = await navigator.gpu.requestAdapter({ powerPreference: "high-performance" });
    if (!adapter) throw new Error("WebGPU found no adapter (requestAdapter returned null)");
    const device = await adapter.requestDevice();
    return new Gpu(adapter, device);
  }

  constructor(adapter, device) {
    this.adapter = adapter;
    this.device = device;
    this.lost = null;
    device.lost.then((info) => { this.lost = info.message || info.reason || "device lost"; });
    const info = adapter.info || {};
    this.info = {
      vendor: info.vendor || "", architecture: info.architecture || "",
      device: info.device || "", description: info.description || "",
    };
    const words = `${this.info.vendor} ${this.info.architecture} ${this.info.device} ${this.info.description}`;
    this.software = Boolean(info.isFallbackAdapter || adapter.isFallbackAdapter) ||
      /swiftshader|llvmpipe|lavapipe|software/i.test(words);
    this.maxPerDimension = device.limits.maxComputeWorkgroupsPerDimension;
    this.stride = Math.max(16, device.limits.minStorageBufferOffsetAlignment);
    this.maxBinding = device.limits.maxStorageBufferBindingSize;
    const storage = { type: "storage" };
    const entries = [0, 1, 2, 4].map((b) => ({ binding: b, visibility: GPUShaderStage.COMPUTE, buffer: storage }));
    entries.push({ binding: 3, visibility: GPUShaderStage.COMPUTE, buffer: { type: "uniform" } });
    entries.sort((a, b) => a.binding - b.binding);
    this.groupLayout = device.createBindGroupLayout({ entries });
    this.layout = device.createPipelineLayout({ bindGroupLayouts: [this.groupLayout] });
    this.rates = new Map();
    this.maxBudget = null;
  }

  autoInstances(threads) {
    return Math.max(1, Math.floor((this.software ? CPU_WORKGROUPS : MAX_WORKGROUPS) / threads));
  }

  async pipeline(wgsl, label) {
    const module = this.device.createShaderModule({ code: wgsl, label });
    const found = await module.getCompilationInfo();
    const errors = found.messages.filter((m) => m.type === "error");
    if (errors.length) throw new Error(`${label}: ${errors[0].lineNum}:${errors[0].linePos}: ${errors[0].message}`);
    return this.device.createComputePipelineAsync({ layout: this.layout, compute: { module, entryPoint: "main" }, label });
  }

  // [instances timed out, loops cut] per iteration of one launch.
  async launch(pipeline, cells, g, iterations, budget) {
    const device = this.device;
    if (this.lost) throw new Error(`the GPU device was lost: ${this.lost}`);
    const width = Math.min(g.workgroups, this.maxPerDimension);
    const height = Math.ceil(g.workgroups / width);
    if (height > this.maxPerDimension) throw new Error(`${g.workgroups} workgroups exceed the dispatch grid`);
    const memoryBytes = 4 * cells.length * g.instances;
    if (memoryBytes > this.maxBinding) throw new Error(`${g.instances} instances exceed the largest storage binding`);
    const U = GPUBufferUsage;
    const pristine = device.createBuffer({ size: memoryBytes, usage: U.COPY_SRC, mappedAtCreation: true });
    const initial = new Int32Array(pristine.getMappedRange());
    for (let i = 0; i < g.instances; i++) initial.set(cells, i * cells.length);
    pristine.unmap();
    const memory = device.createBuffer({ size: memoryBytes, usage: U.STORAGE | U.COPY_DST });
    const failed = device.createBuffer({ size: 4 * g.instances, usage: U.STORAGE | U.COPY_DST });
    const state = device.createBuffer({ size: this.stride * iterations, usage: U.STORAGE | U.COPY_SRC });
    const readback = device.createBuffer({ size: this.stride * iterations, usage: U.MAP_READ | U.COPY_DST });
    const params = device.createBuffer({ size: 32, usage: U.UNIFORM, mappedAtCreation: true });
    new Uint32Array(params.getMappedRange()).set([CODES[g.heuristic], g.instances, g.workgroups, width, budget, 0]);
    params.unmap();
    const trace = device.createBuffer({ size: 4, usage: U.STORAGE });
    const encoder = device.createCommandEncoder();
    for (let it = 0; it < iterations; it++) {
      const group = device.createBindGroup({
        layout: this.groupLayout,
        entries: [
          { binding: 0, resource: { buffer: memory } },
          { binding: 1, resource: { buffer: failed } },
          { binding: 2, resource: { buffer: state, offset: it * this.stride, size: 12 } },
          { binding: 3, resource: { buffer: params } },
          { binding: 4, resource: { buffer: trace } },
        ],
      });
      encoder.copyBufferToBuffer(pristine, 0, memory, 0, memoryBytes);
      encoder.clearBuffer(failed);
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(width, height, 1);
      pass.end();
    }
    encoder.copyBufferToBuffer(state, 0, readback, 0, this.stride * iterations);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    const words = new Uint32Array(readback.getMappedRange().slice(0));
    readback.unmap();
    for (const b of [pristine, memory, failed, state, readback, params, trace]) b.destroy();
    const out = [];
    for (let it = 0; it < iterations; it++) {
      const at = (it * this.stride) / 4;
      out.push([words[at], words[at + 2]]);
    }
    return out;
  }

  async spin(calibration, workgroups, budget) {
    const start = performance.now();
    const [[count, cut]] = await this.launch(calibration, [0], geometry("rr", 1, workgroups), 1, budget);
    return [(performance.now() - start) / 1000, count, cut];
  }

  async budgetLimit(calibration) {
    if (this.maxBudget !== null) return this.maxBudget;
    if ((await this.spin(calibration, 1, PROBE_BUDGET))[2] === 0) {
      this.maxBudget = MAX_BUDGET;
    } else {
      let good = 0, bad = PROBE_BUDGET;
      while (bad - good > 1) {
        const middle = Math.floor((good + bad) / 2);
        if ((await this.spin(calibration, 1, middle))[2] === 0) good = middle; else bad = middle;
      }
      if (good < 64) throw new Error(`this adapter cuts shader loops after ${bad} iterations`);
      this.maxBudget = good;
    }
    return this.maxBudget;
  }

  async rate(calibration, workgroups) {
    if (this.rates.has(workgroups)) return this.rates.get(workgroups);
    const limit = await this.budgetLimit(calibration);
    const seconds = async (budget) => {
      const [elapsed, count, cut] = await this.spin(calibration, workgroups, budget);
      if (count !== workgroups || cut) {
        throw new Error(`calibration: ${count} of ${workgroups} spinning instances timed out, ${cut} loops cut`);
      }
      return elapsed;
    };
    let budget = 256;
    while (4 * budget <= limit) {
      const elapsed = await seconds(budget);
      if (elapsed >= CALIBRATION_TARGET_S) break;
      budget *= elapsed < CALIBRATION_TARGET_S / 8 ? 8 : 2;
    }
    budget = Math.min(budget, Math.floor(limit / 4));
    const short = Math.min(await seconds(budget), await seconds(budget));
    const long = Math.min(await seconds(4 * budget), await seconds(4 * budget));
    const rate = long > short ? (3 * budget) / (long - short) : (4 * budget) / long;
    this.rates.set(workgroups, rate);
    return rate;
  }

  async budget(calibration, workgroups, deadlineS) {
    const rate = await this.rate(calibration, workgroups);
    return Math.max(1, Math.min(await this.budgetLimit(calibration), Math.round(rate * deadlineS)));
  }
}

function readSettings(form) {
  const heuristics = HEURISTICS.filter((h) => form.querySelector(`input[value="${h}"]`).checked);
  if (!heuristics.length) throw new Error("choose at least one heuristic");
  const iterations = Number($("iterations").value);
  const deadlineMs = Number($("deadline").value);
  const raw = $("instances").value.trim();
  const limit = Number($("limit").value);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 1000) throw new Error("iterations: 1 to 1000");
  if (!(deadlineMs >= 1 && deadlineMs <= 10000)) throw new Error("deadline: 1 to 10000 ms");
  if (raw !== "auto" && !/^[0-9]{1,6}$/.test(raw)) throw new Error("instances: auto or a number");
  const tests = Number(form.dataset.tests);
  if (!Number.isInteger(limit) || limit < 1 || limit > tests) throw new Error(`tests: 1 to ${tests}`);
  return { heuristics, iterations, deadline_s: deadlineMs / 1000, instances: raw === "auto" ? "auto" : Number(raw), limit };
}

function logRow(body, key, cells, heuristics) {
  const row = body.insertRow();
  row.insertCell().textContent = key;
  for (const h of heuristics) {
    const td = row.insertCell();
    td.textContent = cells[h];
    td.className = cells[h] === "P" ? "pass" : "fail";
  }
}

async function runSuite(form) {
  const settings = readSettings(form);
  const suite = form.dataset.suite;
  setStatus("starting", "Opening the GPU...");
  const gpu = await Gpu.open();
  $("adapter").textContent = `Adapter: ${Object.entries(gpu.info).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(", ") || "(no information)"}` +
    (gpu.software ? " (software adapter)" : "");
  setStatus("loading", "Fetching the shaders...");
  const response = await fetch(`/api/suite/${encodeURIComponent(suite)}/plan?limit=${settings.limit}`);
  if (!response.ok) throw new Error(`the server refused the plan: ${(await response.json()).error}`);
  const plan = await response.json();
  const calibration = await gpu.pipeline(plan.calibration.wgsl, "calibration");
  const bar = $("bar");
  const steps = plan.tests.length * (1 + settings.heuristics.length);
  bar.max = steps;
  let done = 0;
  const pipelines = [];
  for (const test of plan.tests) {
    pipelines.push(await gpu.pipeline(test.wgsl, test.key));
    bar.value = ++done;
    setStatus("compiling", `Compiling ${pipelines.length} / ${plan.tests.length}`);
  }
  const instancesOf = (threads) => settings.instances === "auto" ? gpu.autoInstances(threads) : settings.instances;
  const table = document.createElement("table");
  table.createTHead().insertRow().innerHTML = "<th>test</th>" + settings.heuristics.map((h) => `<th>${h}</th>`).join("");
  const tbody = table.createTBody();
  $("log").replaceChildren(table);
  const results = {};
  const date = new Date().toISOString();
  const started = performance.now();
  for (let i = 0; i < plan.tests.length; i++) {
    const test = plan.tests[i];
    const cells = {};
    for (const h of settings.heuristics) {
      const g = geometry(h, test.threads, instancesOf(test.threads));
      const budget = await gpu.budget(calibration, g.workgroups, settings.deadline_s);
      const counts = await gpu.launch(pipelines[i], test.cells, g, settings.iterations, budget);
      cells[h] = cell(counts.filter(([count]) => count > 0).length, settings.iterations);
      bar.value = ++done;
      setStatus("running", `Running ${i + 1} / ${plan.tests.length}: ${test.key} ${h}`);
    }
    results[test.key] = cells;
    logRow(tbody, test.key, cells, settings.heuristics);
  }
  const seconds = (performance.now() - started) / 1000;
  setStatus("submitting", `Ran ${plan.tests.length} tests in ${seconds.toFixed(1)} s; submitting...`);
  const rates = Object.fromEntries([...gpu.rates].map(([w, r]) => [String(w), Math.round(r)]));
  const body = {
    suite: plan.suite, suite_hash: plan.suite_hash, adapter: gpu.info, browser: navigator.userAgent.slice(0, 200), date,
    settings: { heuristics: settings.heuristics, iterations: settings.iterations, deadline_s: settings.deadline_s, instances: settings.instances },
    calibration: { spins_per_second: rates, loop_cap: gpu.maxBudget === MAX_BUDGET ? null : gpu.maxBudget, seconds: Number(seconds.toFixed(2)), software: gpu.software },
    results,
  };
  await submit(suite, body);
}

async function submit(suite, body) {
  const response = await fetch(`/api/suite/${encodeURIComponent(suite)}/results`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const answer = await response.json();
  const box = $("submitted");
  if (!response.ok) {
    box.className = "error";
    box.textContent = `The server refused the result: ${answer.error}`;
    setStatus("refused", "Refused.");
    return;
  }
  box.className = "card";
  box.innerHTML = "";
  const a = document.createElement("a");
  a.href = answer.href;
  a.id = "device-link";
  a.textContent = `run ${answer.run} of ${answer.device}`;
  box.append(`Stored as `, a, answer.new ? "." : " (the same run was stored before).");
  setStatus("done", `Done: ${answer.tests} tests stored as run ${answer.run}.`);
}

document.addEventListener("DOMContentLoaded", () => {
  const form = $("settings");
  const start = $("start");
  start.addEventListener("click", async () => {
    start.disabled = true;
    try {
      await runSuite(form);
    } catch (error) {
      setStatus("error", `Error: ${error.message}`);
    } finally {
      start.disabled = false;
    }
  });
});

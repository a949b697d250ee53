// The WebGPU side of the runner and the explorer: a test's WGSL shader (the
// same as `progress run --backend wgpu`, progress/back/wgsl_source.py) launched
// under plain / rr / chunked. It mirrors progress/gpu/wgpu_backend.py: per
// launch, one command buffer of `iterations` (reset memory, clear the failed
// flags, dispatch), each iteration with its own {count, expired, cut} cell; a
// thread's backward jumps charge a budget of rate(W) x deadline, rate measured
// per launch size W as 3K / (t(4K) - t(K)); an implementation that cuts loops
// short caps the budget. Every launch is awaited, so the page keeps answering.
"use strict";

const HEURISTICS = ["plain", "rr", "chunked"];
const CODES = { plain: 0, rr: 1, chunked: 2 };
const MAX_WORKGROUPS = 65532;   // the paper's budget: M = floor(65532 / N)
const CPU_WORKGROUPS = 64;      // on a software adapter, as on lavapipe
const MAX_BUDGET = 2 ** 32 - 2;
const PROBE_BUDGET = 2 ** 20;
const CALIBRATION_TARGET_S = 0.02;

function cell(failed, iterations) {
  return failed === 0 ? "P" : `F (${failed}/${iterations})`;
}

function geometry(heuristic, threads, instances) {
  const m = heuristic === "plain" ? 1 : instances;
  return { heuristic, threads, instances: m, workgroups: threads * m };
}

class Gpu {
  static async open(adapter) {
    if (!adapter) {
      const found = await findAdapter();
      if (!found.adapter) throw new Error(found.problem);
      adapter = found.adapter;
    }
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
    this.software = isSoftware(adapter);
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


// Why this browser cannot run tests, in words a user can act on; null when it can try.
function webgpuProblem() {
  if (!window.isSecureContext) {
    return "WebGPU needs a secure page: open this server through https or on localhost.";
  }
  if (!navigator.gpu) {
    return "This browser has no WebGPU. It is in Chrome and Edge 113 or later on Windows, macOS and ChromeOS, " +
      "Chrome on Android 12 or later, Safari 26, and Firefox 141 on Windows; on Linux start Chromium with " +
      "--enable-unsafe-webgpu --enable-features=Vulkan.";
  }
  return null;
}

// The adapter the runner would use, asked at once (null and why, if none).
async function findAdapter() {
  const problem = webgpuProblem();
  if (problem) return { adapter: null, problem };
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: "high-performance" });
  if (!adapter) return { adapter: null, problem: "WebGPU is there, but it found no GPU adapter (it may be blocked for this GPU or driver)." };
  return { adapter, problem: null };
}

function adapterWords(info, software) {
  const words = Object.entries(info).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(", ") || "(no information)";
  return words + (software ? " (a software adapter: its results say nothing about GPUs)" : "");
}

function isSoftware(adapter) {
  const info = adapter.info || {};
  const words = `${info.vendor || ""} ${info.architecture || ""} ${info.device || ""} ${info.description || ""}`;
  return Boolean(info.isFallbackAdapter || adapter.isFallbackAdapter) || /swiftshader|llvmpipe|lavapipe|software/i.test(words);
}

// "Chrome 124 on Linux": the browser's family, version and system; never the whole user agent.
function browserSummary() {
  const ua = navigator.userAgent;
  const browsers = [[/Edg\/(\d+)/, "Edge"], [/OPR\/(\d+)/, "Opera"], [/Firefox\/(\d+)/, "Firefox"],
    [/Chrom(?:e|ium)\/(\d+)/, "Chrome"], [/Version\/(\d+)[.\d]* .*Safari\//, "Safari"]];
  const hit = browsers.map(([pattern, name]) => { const m = ua.match(pattern); return m && `${name} ${m[1]}`; });
  const name = hit.find(Boolean) || "a browser";
  const systems = [["Android", "Android"], ["CrOS", "ChromeOS"], ["Windows", "Windows"], ["iPhone", "iOS"],
    ["iPad", "iPadOS"], ["Mac OS X", "macOS"], ["Linux", "Linux"]];
  const system = (systems.find(([word]) => ua.includes(word)) || [null, ""])[1];
  return system ? `${name} on ${system}` : name;
}

window.ProgressGpu = { Gpu, geometry, cell, HEURISTICS, webgpuProblem, findAdapter, adapterWords, isSoftware, browserSummary };

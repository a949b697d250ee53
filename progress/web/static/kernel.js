// The kernel run page (docs/web.md, "Running a kernel"): progress/gpu/wgpu_kernel.py in the
// browser. The server plans (/api/kernel/plan: the kernel instrumented by progress's deadline
// pass and written as WGSL by naga, its buffers and the control buffer's layout); this script
// calibrates the iteration budget with gpu.js (rate(W) x deadline, below a loop cap), then for
// each launch shape launches the kernel once per iteration (reset buffers and control words,
// dispatch occupiers + W workgroups), awaiting each launch, so that the counts fill in and the
// page keeps answering; a kernel that never ends spends its budget and leaves. The records go
// back to the server (/api/kernel/report), which joins them with the checker's verdicts as
// `progress run KERNEL` does; the page shows that text and offers the run as JSON.
"use strict";
(function () {
  const { Gpu, findAdapter, adapterWords, isSoftware, browserSummary } = window.ProgressGpu;
  const $ = (id) => document.getElementById(id);
  const root = $("kernel-run");
  if (!root) return;
  const EXAMPLES = JSON.parse(root.dataset.examples);
  const FIELDS = ["workgroups", "buffer", "init", "spec", "push", "local_size"];
  const KINDS = { storage: "storage", "read-only": "read-only-storage", uniform: "uniform" };
  const BUDGET_MARGIN = 16;  // checks kept below an adapter's loop cap, as wgpu_kernel.py does
  let adapter = null, gpuOpen = null, stopping = false;

  function say(text, state) {
    const status = $("kernel-status");
    status.textContent = text;
    if (state) { status.dataset.state = state; root.dataset.state = state; }
  }

  function fields() {
    const out = {};
    for (const name of FIELDS) {
      const input = $(name);
      if (input && input.value.trim()) out[name] = input.value.trim();
    }
    return out;
  }

  function settings(software) {
    const iterations = Number($("kernel-iterations").value), deadlineMs = Number($("kernel-deadline").value);
    if (!Number.isInteger(iterations) || iterations < 1 || iterations > 1000) throw new Error("iterations: 1 to 1000");
    if (!(deadlineMs >= 1 && deadlineMs <= 10000)) throw new Error("deadline: 1 to 10000 ms");
    const raw = $("kernel-occupiers").value.trim();
    if (raw !== "auto" && !/^[0-9]{1,5}$/.test(raw)) throw new Error("occupiers: auto or a number");
    const cores = navigator.hardwareConcurrency || 2;
    const occupiers = raw === "auto" ? (software ? Math.max(1, cores - 1) : 1023) : Number(raw);
    if (occupiers < 1 || occupiers > 65534) throw new Error("occupiers: 1 to 65534");
    const shapes = [...document.querySelectorAll("#kernel-settings input[name=shape]:checked")].map((i) => i.value);
    if (!shapes.length) throw new Error("choose at least one launch shape");
    return { iterations, deadline_s: deadlineMs / 1000, occupiers, shapes };
  }

  async function plan() {
    const query = new URLSearchParams({ lang: $("kernel-lang").value, ...fields() });
    const response = await fetch(`/api/kernel/plan?${query}`, { method: "POST", body: $("kernel-text").value });
    const answer = await response.json();
    if (!answer.ok) throw new Error(answer.rendered || answer.error);
    return answer;
  }

  // The kernel's pipeline with explicit bind group layouts: one per descriptor set.
  async function pipeline(gpu, planned) {
    const device = gpu.device;
    const sets = new Map();
    const add = (set, binding, type) => {
      if (!sets.has(set)) sets.set(set, []);
      sets.get(set).push({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    };
    add(planned.control.set, 0, "storage");
    for (const b of planned.buffers) add(b.set, b.binding, KINDS[b.kind]);
    const top = Math.max(...sets.keys());
    if (top >= device.limits.maxBindGroups) throw new Error(`descriptor set ${top} is beyond this device's bind groups`);
    const layouts = [];
    for (let n = 0; n <= top; n++) {
      const entries = (sets.get(n) || []).sort((a, b) => a.binding - b.binding);
      layouts.push(device.createBindGroupLayout({ entries }));
    }
    const module = device.createShaderModule({ code: planned.wgsl, label: planned.name });
    const errors = (await module.getCompilationInfo()).messages.filter((m) => m.type === "error");
    if (errors.length) {
      const e = errors[0];
      throw new Error(`this browser refuses the kernel's WGSL (naga's translation), line ${e.lineNum}:${e.linePos}: ${e.message}`);
    }
    const layout = device.createPipelineLayout({ bindGroupLayouts: layouts });
    const made = await device.createComputePipelineAsync({ layout, compute: { module, entryPoint: planned.entry_point } });
    return { pipeline: made, layouts };
  }

  function bytesOf(words) {
    return Math.max(4, 4 * words.length);
  }

  function controlWords(planned, shape, occupiers, budget) {
    const c = planned.control;
    const words = new Uint32Array(c.words + c.record_words * planned.workgroups);
    words[c.budget] = budget;
    words[c.occupiers] = occupiers;
    words[c.workgroups] = planned.workgroups;
    words[c.mapping] = c.mappings.indexOf(planned.mappings[shape]);
    return words;
  }

  function filled(device, words, usage) {
    const buffer = device.createBuffer({ size: Math.ceil(bytesOf(words) / 16) * 16, usage, mappedAtCreation: true });
    new Uint32Array(buffer.getMappedRange()).set(words);
    buffer.unmap();
    return buffer;
  }

  // One launch: [control words, the kernel's buffers' words (when asked)].
  async function launch(gpu, kernel, planned, shape, occupiers, budget, keep) {
    const device = gpu.device, U = GPUBufferUsage;
    if (gpu.lost) throw new Error(`the GPU device was lost: ${gpu.lost}`);
    const total = occupiers + planned.workgroups;
    if (total > gpu.maxPerDimension) throw new Error(`${total} workgroups exceed this device's ${gpu.maxPerDimension} along x`);
    const control = controlWords(planned, shape, occupiers, budget);
    const made = [];
    const buffer = (words, usage) => { const b = filled(device, words, usage); made.push(b); return b; };
    const live = planned.buffers.map((b) => buffer(b.words.length ? b.words : [0], U.STORAGE | U.UNIFORM | U.COPY_SRC));
    const controlBuffer = buffer(control, U.STORAGE | U.COPY_SRC);
    const groups = new Map();
    const bind = (set, binding, target, size) => {
      if (!groups.has(set)) groups.set(set, []);
      groups.get(set).push({ binding, resource: { buffer: target, offset: 0, size } });
    };
    bind(planned.control.set, 0, controlBuffer, 4 * control.length);
    planned.buffers.forEach((b, i) => {
      const size = bytesOf(b.words);
      bind(b.set, b.binding, live[i], b.kind === "uniform" ? Math.ceil(size / 16) * 16 : size);
    });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(kernel.pipeline);
    kernel.layouts.forEach((layout, n) => {
      const entries = (groups.get(n) || []).sort((a, b) => a.binding - b.binding);
      pass.setBindGroup(n, device.createBindGroup({ layout, entries }));
    });
    pass.dispatchWorkgroups(total, 1, 1);
    pass.end();
    const reads = [[controlBuffer, 4 * control.length]];
    if (keep) planned.buffers.forEach((b, i) => reads.push([live[i], bytesOf(b.words)]));
    const back = reads.map(([source, size]) => {
      const target = device.createBuffer({ size, usage: U.MAP_READ | U.COPY_DST });
      made.push(target);
      encoder.copyBufferToBuffer(source, 0, target, 0, size);
      return target;
    });
    device.queue.submit([encoder.finish()]);
    const words = [];
    for (const target of back) {
      await target.mapAsync(GPUMapMode.READ);
      words.push(Array.from(new Uint32Array(target.getMappedRange().slice(0))));
      target.unmap();
    }
    for (const b of made) b.destroy();
    return [words[0], keep ? planned.buffers.map((b, i) => words[i + 1].slice(0, b.words.length)) : null];
  }

  function finished(planned, words) {
    const c = planned.control;
    if (words[c.occupier_timeouts] !== 0) return false;
    for (let w = 0; w < planned.workgroups; w++) {
      const at = c.words + c.record_words * w;
      if (words[at] !== planned.invocations || words[at + 1] !== 0) return false;
    }
    return true;
  }

  function progressTable(chosen) {
    const rows = chosen.shapes.map((s) => `<tr data-shape="${s}"><td>${s}</td><td class=budget></td>` +
      `<td><span class=done>0 / ${chosen.iterations}</span><br><progress max=${chosen.iterations} value=0></progress></td>` +
      "<td class=failed>0</td><td class=cell></td></tr>").join("");
    $("kernel-progress").innerHTML = "<div class=fit><table class=explore id=kernel-shapes><thead><tr><th>shape</th>" +
      `<th>budget</th><th>iterations</th><th>timed out</th><th>result</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  }

  async function runShape(gpu, kernel, planned, calibration, chosen, shape) {
    const row = document.querySelector(`#kernel-shapes tr[data-shape="${shape}"]`);
    const occupiers = shape === "occupied" ? chosen.occupiers : 0;
    const total = occupiers + planned.workgroups;
    const limit = await gpu.budgetLimit(calibration);
    const capped = limit < 2 ** 31 ? limit - BUDGET_MARGIN : limit;
    const budget = Math.max(1, Math.min(capped, await gpu.budget(calibration, total, chosen.deadline_s)));
    row.querySelector(".budget").textContent = String(budget);
    const record = { name: shape, occupiers, budget, control: [], seconds: [], outputs: null };
    let failed = 0;
    for (let it = 0; it < chosen.iterations; it++) {
      if (stopping) return null;
      const start = performance.now();
      const [control, outputs] = await launch(gpu, kernel, planned, shape, occupiers, budget, it === 0);
      record.seconds.push((performance.now() - start) / 1000);
      record.control.push(control);
      if (it === 0) record.outputs = outputs;
      failed += finished(planned, control) ? 0 : 1;
      row.querySelector(".done").textContent = `${it + 1} / ${chosen.iterations}`;
      row.querySelector(".failed").textContent = String(failed);
      row.querySelector("progress").value = it + 1;
    }
    const cell = row.querySelector(".cell");
    cell.textContent = failed ? `F (${failed}/${chosen.iterations})` : "P";
    cell.className = `cell ${failed ? "fail" : "pass"}`;
    return record;
  }

  function showReport(answer) {
    const box = $("kernel-result");
    box.innerHTML = "<h2>The report</h2><p class=note>As <code>progress run</code> prints it: each shape's result " +
      "and where it first timed out, then each model's verdict beside what the device did.</p>" +
      "<pre id=kernel-report></pre><p><button type=button id=kernel-download class=quiet>Download the run (JSON)</button></p>";
    $("kernel-report").textContent = answer.text;
    $("kernel-download").addEventListener("click", () => {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([JSON.stringify(answer.run, null, 1) + "\n"], { type: "application/json" }));
      link.download = `${$("kernel-name").value || "kernel"}.webgpu.json`;
      link.click();
    });
  }

  async function run() {
    stopping = false;
    $("kernel-result").innerHTML = "";
    say("Preparing the kernel…", "running");
    if (!gpuOpen || gpuOpen.lost) gpuOpen = await Gpu.open(gpuOpen ? null : adapter);  // an adapter gives one device
    const gpu = gpuOpen;
    const chosen = settings(gpu.software);
    const planned = await plan();
    const shapes = chosen.shapes.filter((s) => planned.shapes.includes(s));
    const skipped = chosen.shapes.filter((s) => !planned.shapes.includes(s));
    if (!shapes.length) throw new Error(`this kernel cannot run under ${skipped.join(", ")} here`);
    chosen.shapes = shapes;
    progressTable(chosen);
    if (skipped.length) {
      $("kernel-progress").insertAdjacentHTML("beforeend", `<p class=note id=kernel-skipped>Not run: ${skipped.join(", ")} ` +
        "(a kernel with a workgroup barrier has no occupiers here: their branch would put the barrier in " +
        "non-uniform control flow, which WGSL refuses).</p>");
    }
    say("Calibrating the deadline…", "running");
    const calibration = await gpu.pipeline(planned.calibration.wgsl, "calibration");
    const kernel = await pipeline(gpu, planned);
    const records = [];
    for (const shape of chosen.shapes) {
      say(`Running ${planned.name} under ${shape}…`, "running");
      const record = await runShape(gpu, kernel, planned, calibration, chosen, shape);
      if (record === null) { say("Stopped: nothing is joined.", "stopped"); return; }
      records.push(record);
    }
    say("Joining with the checker…", "running");
    const body = {
      name: $("kernel-name").value.trim(), text: $("kernel-text").value, lang: $("kernel-lang").value, fields: fields(),
      iterations: chosen.iterations, deadline_s: chosen.deadline_s, shapes: records,
      adapter: gpu.info, browser: browserSummary(), software: gpu.software,
    };
    const response = await fetch("/api/kernel/report", { method: "POST", body: JSON.stringify(body) });
    const answer = await response.json();
    if (!answer.ok) throw new Error(answer.rendered || answer.error);
    window.kernelRun = answer;
    showReport(answer);
    say(`Done: ${planned.name}, ${planned.launch}.`, "done");
  }

  async function lookForWebGPU() {
    const box = $("webgpu");
    const found = await findAdapter().catch((error) => ({ adapter: null, problem: error.message }));
    if (!found.adapter) {
      box.className = "error";
      box.textContent = `Kernels cannot run here: ${found.problem}`;
      root.dataset.state = "unsupported";
      return;
    }
    adapter = found.adapter;
    const info = adapter.info || {};
    box.textContent = "Adapter: " + adapterWords({ vendor: info.vendor || "", architecture: info.architecture || "", device: info.device || "" }, isSoftware(adapter));
    $("kernel-start").disabled = false;
    root.dataset.state = "idle";
  }

  function pickExample() {
    const select = $("kernel-example");
    const chosen = EXAMPLES[select.value];
    if (!chosen) return;
    $("kernel-text").value = chosen.text;
    $("kernel-lang").value = chosen.lang;
    $("kernel-name").value = select.selectedOptions[0].dataset.name;
    for (const name of FIELDS) if ($(name)) $(name).value = "";
  }

  document.addEventListener("DOMContentLoaded", () => {
    const launchBox = $("launch");
    if (launchBox) { launchBox.hidden = false; launchBox.disabled = false; }
    $("kernel-example").addEventListener("change", pickExample);
    $("kernel-start").addEventListener("click", async () => {
      $("kernel-start").disabled = true;
      $("kernel-stop").hidden = false;
      try {
        await run();
      } catch (error) {
        say(`Error: ${error.message}`, "error");
      } finally {
        $("kernel-start").disabled = !adapter;
        $("kernel-stop").hidden = true;
      }
    });
    $("kernel-stop").addEventListener("click", () => { stopping = true; });
    lookForWebGPU();
  });
})();

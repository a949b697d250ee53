// A test page's explorer: run this one test on this browser's GPU (gpu.js)
// with the settings (or a preset) chosen, one launch per iteration, the
// counts filling in as each ends; then what the result means for the
// models. Nothing is sent to the server.
"use strict";
(function () {
  const { Gpu, geometry, cell, HEURISTICS, findAdapter, adapterWords, isSoftware } = window.ProgressGpu;
  const $ = (id) => document.getElementById(id);
  const root = $("explorer");
  if (!root) return;
  const TEST = JSON.parse(root.dataset.test);
  let adapter = null, stopping = false, last = null;

  function settings() {
    const form = $("explore-settings");
    const heuristics = HEURISTICS.filter((h) => form.querySelector(`input[value="${h}"]`).checked);
    if (!heuristics.length) throw new Error("choose at least one heuristic");
    const iterations = Number($("explore-iterations").value), deadlineMs = Number($("explore-deadline").value);
    const raw = $("explore-instances").value.trim();
    if (!Number.isInteger(iterations) || iterations < 1 || iterations > 1000) throw new Error("iterations: 1 to 1000");
    if (!(deadlineMs >= 1 && deadlineMs <= 10000)) throw new Error("deadline: 1 to 10000 ms");
    if (raw !== "auto" && !/^[0-9]{1,6}$/.test(raw)) throw new Error("instances: auto or a number");
    return { heuristics, iterations, deadline_s: deadlineMs / 1000, instances: raw === "auto" ? "auto" : Number(raw) };
  }

  function table(chosen) {
    const box = $("explore-results");
    box.innerHTML = "<div class=fit><table class=explore><thead><tr><th>heur&shy;istic</th><th>work&shy;groups</th>" +
      "<th>iter&shy;ations</th><th>timed out</th><th>result</th></tr></thead><tbody></tbody></table></div>";
    const body = box.querySelector("tbody");
    for (const h of chosen.heuristics) {
      const row = body.insertRow();
      row.dataset.heuristic = h;
      row.innerHTML = `<td>${h}</td><td class=workgroups></td><td><span class=done>0 / ${chosen.iterations}</span>` +
        `<br><progress max=${chosen.iterations} value=0></progress></td><td class=failed>0</td><td class=cell></td>`;
    }
  }

  function meaning(results) {
    const failed = Object.entries(results).filter(([, c]) => c !== "P").map(([h]) => h);
    const said = $("explore-meaning");
    if (!failed.length) {
      said.textContent = "It ended in every iteration: no model is refuted, as far as these iterations can tell.";
      said.className = "consistent";
    } else if (TEST.conforms.length) {
      said.textContent = `It did not end under ${failed.join(", ")}: this device violates ${TEST.conforms.join(", ")} ` +
        "(every model that guarantees the test ends).";
      said.className = "violates";
    } else {
      said.textContent = `It did not end under ${failed.join(", ")}, which no model rules out: no model guarantees it ends.`;
      said.className = "muted";
    }
  }

  async function run() {
    const chosen = settings();
    root.dataset.state = "running";
    stopping = false;
    $("explore-start").disabled = true;
    $("explore-stop").hidden = false;
    table(chosen);
    $("explore-meaning").textContent = "";
    const gpu = await Gpu.open(adapter);
    const response = await fetch(`/api/suite/${encodeURIComponent(TEST.suite)}/plan?key=${encodeURIComponent(TEST.key)}`);
    if (!response.ok) throw new Error(`the server refused the plan: ${(await response.json()).error}`);
    const plan = await response.json();
    const test = plan.tests[0];
    const calibration = await gpu.pipeline(plan.calibration.wgsl, "calibration");
    const pipeline = await gpu.pipeline(test.wgsl, test.key);
    const results = {};
    for (const h of chosen.heuristics) {
      const row = document.querySelector(`#explore-results tr[data-heuristic="${h}"]`);
      const g = geometry(h, test.threads, chosen.instances === "auto" ? gpu.autoInstances(test.threads) : chosen.instances);
      const groups = row.querySelector(".workgroups");
      groups.textContent = String(g.workgroups);
      groups.title = `${g.instances} instance${g.instances === 1 ? "" : "s"} of ${test.threads} threads`;
      const budget = await gpu.budget(calibration, g.workgroups, chosen.deadline_s);
      let failed = 0, done = 0;
      for (; done < chosen.iterations && !stopping; done++) {
        const [[count]] = await gpu.launch(pipeline, test.cells, g, 1, budget);
        failed += count > 0 ? 1 : 0;
        row.querySelector(".done").textContent = `${done + 1} / ${chosen.iterations}`;
        row.querySelector(".failed").textContent = String(failed);
        row.querySelector("progress").value = done + 1;
      }
      results[h] = cell(failed, done);
      const td = row.querySelector(".cell");
      td.textContent = results[h];
      td.className = `cell ${results[h] === "P" ? "pass" : "fail"}`;
      if (stopping) break;
    }
    last = { suite: TEST.suite, test: TEST.key, adapter: gpu.info, software: gpu.software, settings: chosen, results };
    meaning(results);
    root.dataset.state = "done";
  }

  async function lookForWebGPU() {
    const box = $("webgpu");
    const found = await findAdapter().catch((error) => ({ adapter: null, problem: error.message }));
    if (!found.adapter) {
      box.className = "error";
      box.textContent = `This test cannot run here: ${found.problem}`;
      root.dataset.state = "unsupported";
      return;
    }
    adapter = found.adapter;
    const info = adapter.info || {};
    box.textContent = "Adapter: " + adapterWords({ vendor: info.vendor || "", architecture: info.architecture || "", device: info.device || "" }, isSoftware(adapter));
    $("explore-start").disabled = false;
    root.dataset.state = "idle";
  }

  function wirePresets() {
    const preset = $("explore-preset");
    preset.addEventListener("change", () => {
      const option = preset.selectedOptions[0];
      if (!option.dataset.settings) return;
      const values = JSON.parse(option.dataset.settings);
      $("explore-iterations").value = values.iterations;
      $("explore-deadline").value = values.deadline;
      $("explore-instances").value = values.instances;
    });
    $("explore-settings").addEventListener("input", (event) => { if (event.target !== preset) preset.value = "custom"; });
  }

  document.addEventListener("DOMContentLoaded", () => {
    wirePresets();
    $("explore-start").addEventListener("click", async () => {
      try {
        await run();
      } catch (error) {
        root.dataset.state = "error";
        $("explore-meaning").textContent = `Error: ${error.message}`;
        $("explore-meaning").className = "error";
      } finally {
        $("explore-start").disabled = !adapter;
        $("explore-stop").hidden = true;
      }
    });
    $("explore-stop").addEventListener("click", () => { stopping = true; });
    const download = document.createElement("button");
    download.type = "button";
    download.className = "quiet";
    download.id = "explore-download";
    download.textContent = "Download the result (JSON)";
    download.addEventListener("click", () => {
      if (!last) return;
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([JSON.stringify(last, null, 2) + "\n"], { type: "application/json" }));
      link.download = `${TEST.key.replace(/\//g, "-")}.gpu.json`;
      link.click();
    });
    $("explore-settings").append(download);
    lookForWebGPU();
  });
})();

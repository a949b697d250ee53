// The suite runner: every test of a suite on this browser's GPU (gpu.js),
// then, only if the user says so, the result to the server.
//  - WebGPU is looked for as the page loads: no WebGPU, or no adapter, is
//    said at once and Run stays off; a software adapter is named as such;
//  - an estimate of the time before the run, refined while it runs;
//  - each test's row links to its page and names the models its failure
//    violates (the tests it is a conformance test of, from the plan);
//  - the run is kept in this browser (localStorage) after every test:
//    leaving the page loses nothing, an interrupted run resumes, a refused
//    or rate-limited submission can be retried or downloaded;
//  - nothing is sent until the user has seen what would be sent (the
//    device, a short browser name, never the whole user agent; the settings;
//    the counts; the JSON) and pressed Submit, with notes if they like.
"use strict";
(function () {
  const { Gpu, geometry, cell, HEURISTICS, findAdapter, adapterWords, isSoftware, browserSummary } = window.ProgressGpu;
  const $ = (id) => document.getElementById(id);
  const root = $("runner");
  if (!root) return;
  const SUITE = JSON.parse(root.dataset.suite);
  const KEY = `progress-runner:${SUITE.suite}:${SUITE.hash}`;
  const NOTES_LIMIT = 500;
  let adapter = null, software = false, running = false, stopping = false;

  function setStatus(state, text) {
    const status = $("status");
    status.dataset.state = state;
    status.textContent = text;
  }

  function minutes(seconds) {
    return seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`;
  }

  // -- the saved run ------------------------------------------------------------

  function load() {
    try { return JSON.parse(localStorage.getItem(KEY) || "null"); } catch { return null; }
  }
  function store(run) {
    try { localStorage.setItem(KEY, JSON.stringify(run)); } catch { /* private mode or full: the page still works */ }
  }
  function forget() { localStorage.removeItem(KEY); }

  function save(text, name, type) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type }));
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
  }

  function csvOf(run) {
    const lines = [["test", ...run.settings.heuristics].join(",")];
    for (const [key, cells] of Object.entries(run.results)) {
      lines.push([key, ...run.settings.heuristics.map((h) => `"${cells[h]}"`)].join(","));
    }
    return lines.join("\n") + "\n";
  }

  // -- settings and the estimate -----------------------------------------------------

  function readSettings() {
    const form = $("settings");
    const heuristics = HEURISTICS.filter((h) => form.querySelector(`input[value="${h}"]`).checked);
    if (!heuristics.length) throw new Error("choose at least one heuristic");
    const iterations = Number($("iterations").value), deadlineMs = Number($("deadline").value);
    const raw = $("instances").value.trim(), limit = Number($("limit").value);
    if (!Number.isInteger(iterations) || iterations < 1 || iterations > 1000) throw new Error("iterations: 1 to 1000");
    if (!(deadlineMs >= 1 && deadlineMs <= 10000)) throw new Error("deadline: 1 to 10000 ms");
    if (raw !== "auto" && !/^[0-9]{1,6}$/.test(raw)) throw new Error("instances: auto or a number");
    if (!Number.isInteger(limit) || limit < 1 || limit > SUITE.tests) throw new Error(`tests: 1 to ${SUITE.tests}`);
    return { heuristics, iterations, deadline_s: deadlineMs / 1000, instances: raw === "auto" ? "auto" : Number(raw), limit };
  }

  function estimate() {
    let settings;
    try { settings = readSettings(); } catch (error) { $("estimate").textContent = error.message; return; }
    const rate = SUITE.seconds[software ? "software" : "gpu"];
    const seconds = settings.limit * settings.heuristics.length * settings.iterations * rate;
    const worst = settings.limit * settings.heuristics.length * settings.iterations * settings.deadline_s;
    $("estimate").textContent = `About ${minutes(seconds)} ${software ? "on this software adapter" : "on a GPU"} ` +
      `(measured on the published suite; at most ${minutes(worst + seconds)} if every launch ran to its deadline). ` +
      "The estimate is refined as tests finish.";
  }

  function wirePresets() {
    const preset = $("preset");
    preset.addEventListener("change", () => {
      const option = preset.selectedOptions[0];
      if (!option.dataset.settings) return;
      const values = JSON.parse(option.dataset.settings);
      $("iterations").value = values.iterations;
      $("deadline").value = values.deadline;
      $("instances").value = values.instances;
      estimate();
    });
    $("settings").addEventListener("input", (event) => {
      if (!["preset", "limit"].includes(event.target.id)) preset.value = "custom";
      estimate();
    });
  }

  // -- the log ---------------------------------------------------------------------

  function violated(test, cells, heuristics) {
    return heuristics.some((h) => cells[h] !== "P") ? test.conforms : [];
  }

  function logRow(body, test, cells, heuristics) {
    const row = body.insertRow();
    const name = row.insertCell();
    const link = document.createElement("a");
    link.href = test.href;
    link.textContent = test.key;
    name.append(link);
    for (const h of heuristics) {
      const td = row.insertCell();
      td.textContent = cells[h];
      td.className = cells[h] === "P" ? "pass" : "fail";
    }
    const bad = violated(test, cells, heuristics);
    const note = row.insertCell();
    note.textContent = bad.length ? `violates ${bad.join(", ")}` : cells && heuristics.some((h) => cells[h] !== "P") ? "no model promised it ends" : "";
    note.className = bad.length ? "violates" : "muted";
  }

  function newLog(heuristics) {
    const table = document.createElement("table");
    const head = table.createTHead().insertRow();
    for (const text of ["test", ...heuristics, "a failure here"]) {
      const th = document.createElement("th");
      th.textContent = text;
      head.append(th);
    }
    $("log").replaceChildren(table);
    return table.createTBody();
  }

  function summarize(run, plan) {
    const points = new Map();
    for (const test of plan.tests) {
      const cells = run.results[test.key];
      if (!cells) continue;
      const failed = run.settings.heuristics.some((h) => cells[h] !== "P");
      for (const point of test.conforms) {
        const entry = points.get(point) || { tests: 0, failed: 0 };
        entry.tests += 1;
        entry.failed += failed ? 1 : 0;
        points.set(point, entry);
      }
    }
    const caveat = run.calibration.software ? "on a software adapter, which says nothing about GPUs" :
      Object.keys(run.results).length < SUITE.tests ? "on part of the suite only" : "";
    const order = (point) => SUITE.points.indexOf(point);
    const rows = [...points].sort((a, b) => order(a[0]) - order(b[0])).map(([point, e]) => {
      const verdict = e.failed ? `violates (${e.failed} of ${e.tests} conformance tests failed)` :
        `no failure in ${e.tests} conformance tests` + (caveat ? ` (${caveat})` : "");
      return `<tr><td>${point}</td><td class=${e.failed ? "violates" : caveat ? "unproven" : "consistent"}>${verdict}</td></tr>`;
    });
    $("summary").innerHTML = rows.length ? `<h2>What the run says</h2><div class=fit><table class=conformance><thead><tr><th>model / fairness</th><th>on this device</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>` : "";
  }

  // -- running -------------------------------------------------------------------------

  async function prepare(settings, gpu) {
    setStatus("loading", "Fetching the shaders...");
    const response = await fetch(`/api/suite/${encodeURIComponent(SUITE.suite)}/plan?limit=${settings.limit}`);
    if (!response.ok) throw new Error(`the server refused the plan: ${(await response.json()).error}`);
    const plan = await response.json();
    const calibration = await gpu.pipeline(plan.calibration.wgsl, "calibration");
    return { plan, calibration };
  }

  async function runSuite(resumed) {
    const settings = resumed ? resumed.settings : readSettings();
    running = true;
    stopping = false;
    setStatus("starting", "Opening the GPU...");
    const gpu = await Gpu.open(adapter);
    const { plan, calibration } = await prepare(settings, gpu);
    const run = resumed || {
      suite: plan.suite, suite_hash: plan.suite_hash, date: new Date().toISOString(), adapter: gpu.info,
      browser: browserSummary(), settings, results: {}, seconds: 0,
      calibration: { software: gpu.software },
    };
    const body = newLog(settings.heuristics);
    const bar = $("bar");
    bar.max = plan.tests.length;
    const instancesOf = (threads) => settings.instances === "auto" ? gpu.autoInstances(threads) : settings.instances;
    const started = performance.now() - run.seconds * 1000;
    let ranHere = 0;
    for (const test of plan.tests) {
      if (run.results[test.key]) { logRow(body, test, run.results[test.key], settings.heuristics); bar.value += 1; continue; }
      if (stopping) break;
      const pipeline = await gpu.pipeline(test.wgsl, test.key);
      const cells = {};
      for (const h of settings.heuristics) {
        const g = geometry(h, test.threads, instancesOf(test.threads));
        const budget = await gpu.budget(calibration, g.workgroups, settings.deadline_s);
        const counts = await gpu.launch(pipeline, test.cells, g, settings.iterations, budget);
        cells[h] = cell(counts.filter(([count]) => count > 0).length, settings.iterations);
      }
      run.results[test.key] = cells;
      run.seconds = (performance.now() - started) / 1000;
      run.calibration = { ...run.calibration, spins_per_second: Object.fromEntries([...gpu.rates].map(([w, r]) => [String(w), Math.round(r)])),
        loop_cap: gpu.maxBudget === 2 ** 32 - 2 ? null : gpu.maxBudget, seconds: Number(run.seconds.toFixed(2)) };
      store({ ...run, state: "running" });
      logRow(body, test, cells, settings.heuristics);
      bar.value += 1;
      ranHere += 1;
      const done = Object.keys(run.results).length;
      const left = (run.seconds / done) * (plan.tests.length - done);
      setStatus("running", `Ran ${done} of ${plan.tests.length}: ${test.key}; about ${minutes(left)} left`);
    }
    running = false;
    const done = Object.keys(run.results).length;
    if (done < plan.tests.length) {
      store({ ...run, state: "stopped" });
      setStatus("stopped", `Stopped after ${done} of ${plan.tests.length} tests; kept in this browser, to resume.`);
      showSaved();
      return;
    }
    store({ ...run, state: "finished" });
    summarize(run, plan);
    setStatus("finished", `Ran ${done} tests in ${minutes(run.seconds)}. Nothing has been sent: see below.`);
    preview(run);
  }

  // -- the submission --------------------------------------------------------------------

  function submission(run, notes) {
    const body = {
      suite: run.suite, suite_hash: run.suite_hash, date: run.date, adapter: run.adapter, browser: run.browser,
      settings: { heuristics: run.settings.heuristics, iterations: run.settings.iterations, deadline_s: run.settings.deadline_s, instances: run.settings.instances },
      calibration: run.calibration, results: run.results,
    };
    if (notes) body.notes = notes;
    return body;
  }

  function preview(run) {
    const box = $("submission");
    const count = Object.keys(run.results).length;
    const failing = Object.values(run.results).filter((c) => Object.values(c).some((v) => v !== "P")).length;
    const device = [run.adapter.vendor, run.adapter.architecture, run.adapter.device].filter(Boolean).join(" ") || "unknown adapter";
    box.className = "preview";
    box.innerHTML = "<h2>Send the result to this server?</h2><p>It would be stored in the server's results database and " +
      "shown on its public device pages:</p><ul id=preview-facts></ul>" +
      `<label>Notes (optional, at most ${NOTES_LIMIT} characters: the driver, the machine, anything odd)<textarea id=notes maxlength=${NOTES_LIMIT} rows=3></textarea></label>` +
      "<details><summary>Exactly what would be sent (JSON)</summary><pre id=preview-json></pre></details>" +
      "<p class=actions><button type=button id=submit>Submit</button><button type=button class=quiet id=download-json>Download JSON</button>" +
      "<button type=button class=quiet id=download-csv>Download CSV</button><button type=button class=quiet id=discard>Discard</button></p>";
    const facts = [
      `device: ${device}${run.calibration.software ? " (a software adapter)" : ""}`,
      `browser: ${run.browser} (not the whole user agent)`,
      `settings: ${run.settings.heuristics.join(", ")}; ${run.settings.iterations} iterations; deadline ${run.settings.deadline_s * 1000} ms; instances ${run.settings.instances}`,
      `results: ${count} tests, ${failing} failing under some heuristic`,
    ];
    for (const fact of facts) { const li = document.createElement("li"); li.textContent = fact; $("preview-facts").append(li); }
    const refresh = () => { $("preview-json").textContent = JSON.stringify(submission(run, $("notes").value.trim()), null, 2); };
    $("notes").addEventListener("input", refresh);
    refresh();
    $("submit").addEventListener("click", () => submit(run, $("notes").value.trim()));
    $("download-json").addEventListener("click", () => save(JSON.stringify(submission(run, $("notes").value.trim()), null, 2) + "\n", `${SUITE.suite}-run.json`, "application/json"));
    $("download-csv").addEventListener("click", () => save(csvOf(run), `${SUITE.suite}-run.csv`, "text/csv"));
    $("discard").addEventListener("click", () => { forget(); box.replaceChildren(); box.className = ""; setStatus("idle", "Discarded."); });
  }

  async function submit(run, notes) {
    const button = $("submit");
    button.disabled = true;
    setStatus("submitting", "Submitting...");
    const box = $("submitted");
    let response, answer;
    try {
      response = await fetch(`/api/suite/${encodeURIComponent(SUITE.suite)}/results`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(submission(run, notes)),
      });
      answer = await response.json();
    } catch (error) {
      return refused(`the server could not be reached (${error.message})`, 0);
    }
    if (!response.ok) {
      const wait = response.status === 429 ? Number(response.headers.get("Retry-After") || 60) : 0;
      return refused(answer.error, wait);
    }
    forget();
    box.className = "card";
    box.innerHTML = "";
    const a = document.createElement("a");
    a.href = answer.href;
    a.id = "device-link";
    a.textContent = `run ${answer.run} of ${answer.device}`;
    box.append("Stored as ", a, answer.new ? "." : " (the same run was stored before).");
    $("submission").replaceChildren();
    setStatus("done", `Done: ${answer.tests} tests stored as run ${answer.run}.`);
  }

  function refused(reason, wait) {
    const box = $("submitted");
    box.className = "error";
    box.textContent = `The server refused the result: ${reason}. It is kept in this browser: retry, or download it below.`;
    setStatus("refused", "Refused.");
    const button = $("submit");
    if (!button) return;
    button.textContent = "Retry";
    if (!wait) { button.disabled = false; return; }
    let left = wait;
    const tick = setInterval(() => {
      left -= 1;
      button.textContent = left > 0 ? `Retry in ${left} s` : "Retry";
      if (left <= 0) { clearInterval(tick); button.disabled = false; }
    }, 1000);
  }

  // -- on load ---------------------------------------------------------------------------------

  function showSaved() {
    const saved = load();
    const box = $("saved");
    box.replaceChildren();
    box.className = "";
    if (!saved) return;
    const count = Object.keys(saved.results).length;
    box.className = "card";
    const words = saved.state === "finished" ? `A finished run of ${count} tests from ${saved.date}, not sent.` :
      `An unfinished run from ${saved.date}: ${count} tests done.`;
    box.innerHTML = `<p id=saved-words></p><p class=actions>${saved.state === "finished" ? "<button type=button id=review>Review and send</button>" : "<button type=button id=resume>Resume</button>"}` +
      "<button type=button class=quiet id=saved-json>Download JSON</button><button type=button class=quiet id=saved-discard>Discard</button></p>";
    $("saved-words").textContent = words;
    if ($("resume")) $("resume").addEventListener("click", () => start(saved));
    if ($("review")) $("review").addEventListener("click", () => { box.replaceChildren(); box.className = ""; setStatus("finished", "Kept from before."); preview(saved); });
    $("saved-json").addEventListener("click", () => save(JSON.stringify(submission(saved, ""), null, 2) + "\n", `${SUITE.suite}-run.json`, "application/json"));
    $("saved-discard").addEventListener("click", () => { forget(); showSaved(); });
  }

  async function start(resumed) {
    const button = $("start");
    button.disabled = true;
    $("stop").hidden = false;
    $("saved").replaceChildren();
    $("submission").replaceChildren();
    $("submitted").replaceChildren();
    try {
      await runSuite(resumed);
    } catch (error) {
      running = false;
      setStatus("error", `Error: ${error.message}`);
      showSaved();
    } finally {
      button.disabled = !adapter;
      $("stop").hidden = true;
    }
  }

  async function lookForWebGPU() {
    const box = $("adapter");
    const found = await findAdapter().catch((error) => ({ adapter: null, problem: error.message }));
    if (!found.adapter) {
      box.className = "card problem";
      box.id = "adapter";
      box.textContent = `This page cannot run tests here: ${found.problem}`;
      setStatus("unsupported", "No WebGPU: nothing can run.");
      return;
    }
    adapter = found.adapter;
    software = isSoftware(adapter);
    const info = adapter.info || {};
    box.textContent = "Adapter: " + adapterWords({ vendor: info.vendor || "", architecture: info.architecture || "", device: info.device || "", description: info.description || "" }, software);
    $("start").disabled = false;
    estimate();
  }

  document.addEventListener("DOMContentLoaded", () => {
    wirePresets();
    estimate();
    showSaved();
    $("start").addEventListener("click", () => start(null));
    $("stop").addEventListener("click", () => { stopping = true; setStatus("stopping", "Stopping after this test..."); });
    window.addEventListener("beforeunload", (event) => { if (running) { event.preventDefault(); event.returnValue = ""; } });
    lookForWebGPU();
  });
})();

// The playground's script. The page works without it (a plain form that
// posts); with it:
//  - Check runs in place: the button is disabled and a running indicator
//    counts the seconds until the result replaces the old one, so a double
//    click checks once; the address becomes the check's shareable link;
//  - the editor counts its bytes against the server's limit as you type;
//  - a file can be opened into the editor (its suffix picks the language),
//    the test saved, the verdicts downloaded as JSON (/api/check's answer);
//  - the kernel launch fields show, and are sent, only for a kernel language
//    (a disabled fieldset's inputs are not part of the form).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const form = $("play"), editor = $("test"), language = $("lang"), launch = $("launch");
  if (!form || !editor || !language) return;
  const encoder = new TextEncoder();

  function showLaunch() {
    if (!launch) return;
    const axb = language.value === "axb";
    launch.hidden = axb;
    launch.disabled = axb;
  }

  function countBytes() {
    const size = $("size");
    if (!size) return;
    const limit = Number(size.dataset.limit);
    const bytes = encoder.encode(editor.value.replace(/\r\n/g, "\n")).length;
    size.textContent = bytes > limit
      ? `${bytes} of ${limit} bytes: too large to check here (progress check has no such limit)`
      : `${bytes} of ${limit} bytes`;
    size.classList.toggle("over", bytes > limit);
  }

  function suffixOf(lang) {
    const option = [...language.options].find((o) => o.value === lang);
    return option ? option.dataset.suffix : ".txt";
  }

  function save(text, name, type) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type }));
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  function openFile(file) {
    const dot = file.name.lastIndexOf(".");
    const suffix = dot >= 0 ? file.name.slice(dot).toLowerCase() : "";
    const known = [...language.options].find((o) => o.dataset.suffix === suffix || (suffix === ".glsl" && o.value === "glsl"));
    if (known) language.value = known.value;
    const reader = new FileReader();
    reader.onload = () => { editor.value = String(reader.result); showLaunch(); countBytes(); };
    reader.readAsText(file);
  }

  let busy = false;
  async function check(event) {
    event.preventDefault();
    if (busy) return;  // one check at a time: a second click while it runs does nothing
    busy = true;
    const button = $("check"), running = $("running");
    button.disabled = true;
    running.hidden = false;
    const started = performance.now();
    const tick = setInterval(() => {
      running.textContent = `Checking… ${((performance.now() - started) / 1000).toFixed(0)} s`;
    }, 500);
    running.textContent = "Checking…";
    try {
      const response = await fetch("/playground", { method: "POST", body: new URLSearchParams(new FormData(form)) });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("result");
      if (!fresh) throw new Error(`the server answered ${response.status} without a result`);
      $("result").replaceWith(document.adoptNode(fresh));
      const share = $("share");
      if (share) history.pushState(null, "", share.getAttribute("href"));
      document.dispatchEvent(new CustomEvent("progress:result"));
      wireResult();
    } catch (error) {
      $("result").innerHTML = "";
      const box = document.createElement("div");
      box.className = "error";
      box.id = "error";
      box.textContent = `The check did not come back: ${error.message}. Your test is still in the editor.`;
      $("result").append(box);
    } finally {
      clearInterval(tick);
      running.hidden = true;
      button.disabled = false;
      busy = false;
    }
  }

  function wireResult() {
    const link = $("download-verdicts");
    if (!link) return;
    link.hidden = false;
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      const params = new URLSearchParams({ lang: language.value });
      for (const input of launch && !launch.disabled ? launch.querySelectorAll("input[name]") : []) {
        if (input.value.trim()) params.set(input.name, input.value);
      }
      const answer = await fetch(`/api/check?${params}`, { method: "POST", body: editor.value });
      save(JSON.stringify(await answer.json(), null, 2) + "\n", `${link.dataset.name}.verdicts.json`, "application/json");
    });
  }

  language.addEventListener("change", showLaunch);
  editor.addEventListener("input", countBytes);
  form.addEventListener("submit", check);
  const files = document.querySelector(".files");
  if (files) files.hidden = false;
  const upload = $("upload");
  if (upload) upload.addEventListener("change", () => { if (upload.files.length) openFile(upload.files[0]); });
  const saveButton = $("save");
  if (saveButton) {
    saveButton.addEventListener("click", () => save(editor.value, `test${suffixOf(language.value)}`, "text/plain"));
  }
  window.addEventListener("popstate", () => location.reload());
  showLaunch();
  countBytes();
  wireResult();
})();

// The drawn verdict, on the playground and a test page:
//  - a "draw" link fetches that one verdict's section (checked and drawn
//    alone on the server) and puts it in place of the old one;
//  - the picture zooms (fit the width, larger, smaller; it scrolls inside
//    its box once larger than it);
//  - the lasso can be walked step by step: the step's line in the listing,
//    and the state and edge in the picture, are lit.
// Without scripts the links load the whole page with that verdict drawn.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const ZOOMS = [0.25, 0.35, 0.5, 0.7, 1, 1.4, 2, 3];

  function naturalWidth(svg) {
    const raw = svg.getAttribute("width") || "";
    const value = parseFloat(raw);
    if (!value) return svg.viewBox.baseVal ? svg.viewBox.baseVal.width : 800;
    return raw.endsWith("pt") ? value * 4 / 3 : value;
  }

  function setZoom(box, zoom) {
    const svg = box.querySelector("svg");
    if (!svg) return;
    box.dataset.zoom = String(zoom);
    if (zoom === "fit") {
      svg.style.width = "100%";
      svg.style.maxWidth = `${naturalWidth(svg)}px`;
    } else {
      svg.style.width = `${Math.round(naturalWidth(svg) * zoom)}px`;
      svg.style.maxWidth = "none";
    }
    svg.style.height = "auto";
  }

  function zoomStep(box, direction) {
    const svg = box.querySelector("svg");
    const current = box.dataset.zoom === "fit" || !box.dataset.zoom
      ? Math.min(1, box.clientWidth / naturalWidth(svg))
      : Number(box.dataset.zoom);
    const next = direction > 0 ? ZOOMS.find((z) => z > current + 1e-6) : [...ZOOMS].reverse().find((z) => z < current - 1e-6);
    setZoom(box, next === undefined ? current : next);
  }

  function showStart(box) {
    const start = box.querySelector('[id="s_A"]');
    if (!start) return;
    const at = start.getBoundingClientRect(), frame = box.getBoundingClientRect();
    box.scrollLeft += at.left + at.width / 2 - (frame.left + box.clientWidth / 2);
    box.scrollTop += at.top - frame.top - 40;
  }

  function wirePicture() {
    const box = $("picture"), tools = $("picture-tools");
    if (!box || !tools) return;
    const svg = box.querySelector("svg");
    const ratio = svg ? (box.clientWidth - 16) / naturalWidth(svg) : 1;
    // a picture that fitting would shrink below 60% is shown nearly at its size, its start in view
    setZoom(box, ratio < 0.6 ? 0.8 : "fit");
    if (ratio < 0.6) showStart(box);
    if (ratio < 0.6 && !$("picture-hint")) {
      const hint = document.createElement("p");
      hint.id = "picture-hint";
      hint.className = "note";
      hint.textContent = "The picture is larger than this box: scroll inside it, zoom out (−, fit), or open it full size.";
      tools.after(hint);
    }
    const zoom = tools.querySelector(".zoom");
    if (zoom) zoom.hidden = false;
    tools.querySelectorAll("button[data-zoom]").forEach((button) => {
      button.addEventListener("click", () => {
        const how = button.dataset.zoom;
        if (how === "fit") setZoom(box, "fit"); else zoomStep(box, how === "in" ? 1 : -1);
      });
    });
  }

  function wireStepper() {
    const stepper = $("stepper");
    if (!stepper) return;
    const lasso = JSON.parse(stepper.dataset.lasso);
    const lines = [...document.querySelectorAll("#lasso .step")];
    const picture = $("picture");
    let at = -1;
    const lit = [];
    function light(element) { if (element) { element.classList.add("current"); lit.push(element); } }
    function show(index) {
      at = Math.max(0, Math.min(lasso.count - 1, index));
      lit.splice(0).forEach((e) => e.classList.remove("current"));
      light(lines[at]);
      const step = lasso.steps[at];
      if (step && picture) {
        light(picture.querySelector(`[id="${step[0]}"]`));
        light(picture.querySelector(`[id="${step[1]}"]`));
        const node = picture.querySelector(`[id="${step[0]}"]`);
        if (node && node.scrollIntoView) node.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
      const part = at < lasso.loop ? "on the way to the loop" : "in the loop, which repeats forever";
      const where = step ? `: state ${step[0].slice(2)} to ${step[2].slice(2)}` : "";
      $("step-caption").textContent = `Step ${at} of ${lasso.count - 1}, ${part}${where}.`;
    }
    stepper.hidden = false;
    stepper.querySelectorAll("button[data-move]").forEach((button) => {
      button.addEventListener("click", () => {
        const move = button.dataset.move;
        if (move === "first") show(0);
        else if (move === "back") show(at - 1);
        else show(at + 1 >= lasso.count ? lasso.loop : at + 1);  // past the end: around the loop again
      });
    });
  }

  async function draw(link) {
    const view = $("view");
    view.classList.add("loading");
    try {
      const response = await fetch(link.dataset.fragment);
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("view");
      if (!fresh) throw new Error(`the server answered ${response.status}`);
      view.replaceWith(document.adoptNode(fresh));
      document.querySelectorAll("table.verdicts a.draw.current").forEach((a) => {
        a.classList.remove("current");
        a.textContent = "draw";
      });
      link.classList.add("current");
      link.textContent = "drawn below";
      history.replaceState(null, "", link.getAttribute("href"));
      wire();
    } catch (error) {
      view.classList.remove("loading");
      view.insertAdjacentHTML("afterbegin", "<p class=error></p>");
      view.querySelector(".error").textContent = `Not drawn: ${error.message}`;
    }
  }

  function wire() {
    wirePicture();
    wireStepper();
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a.draw[data-fragment]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    if (!link.classList.contains("current")) draw(link);
  });
  document.addEventListener("progress:result", wire);
  wire();
})();

// The playground's one script: the kernel launch fields are shown, and sent,
// only while a kernel language is chosen (a disabled fieldset's inputs are
// not part of the form). The page works without it: the server refuses
// launch fields given with an AXB test.
"use strict";
(function () {
  const language = document.getElementById("lang");
  const launch = document.getElementById("launch");
  if (!language || !launch) return;
  const update = () => {
    const axb = language.value === "axb";
    launch.hidden = axb;
    launch.disabled = axb;
  };
  language.addEventListener("change", update);
  update();
})();

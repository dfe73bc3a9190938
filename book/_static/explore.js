/* Explorable figures (seqmodels.display.explore): every state of a figure was drawn when the book was
   built; the default is an <img>, the others are SVG data blocks next to it. This script shows the
   control (hidden without JavaScript, so the default figure stands alone) and, when it moves,
   puts the chosen state's SVG, alt text and value name in place. Nothing is loaded from anywhere. */
"use strict";
(() => {
  const svgUri = text => "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  const setUp = root => {
    const control = root.querySelector("input, select");
    const img = root.querySelector("img.sm-explore-figure");
    const output = root.querySelector("output");
    if (!control || !img) return;
    const states = {[img.dataset.state]: {src: img.getAttribute("src"), alt: img.alt, text: img.dataset.text}};
    for (const block of root.querySelectorAll('script[type="image/svg+xml"]')) {
      states[block.dataset.state] = {text: block.dataset.text, alt: block.dataset.alt, svg: block.textContent};
    }
    // a polite live region, visually hidden, reads the new state's alt text when the control moves
    const live = document.createElement("div");
    live.className = "sm-explore-live";
    live.setAttribute("aria-live", "polite");
    live.style.cssText = "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap";
    root.appendChild(live);
    const show = announce => {
      const state = states[control.value];
      if (!state || img.dataset.state === control.value) return;
      state.src = state.src || svgUri(state.svg);
      img.src = state.src;
      img.alt = state.alt;
      img.dataset.state = control.value;
      if (output) output.value = state.text;
      if (control.type === "range") control.setAttribute("aria-valuetext", state.text);
      if (announce === true) live.textContent = state.alt;
    };
    control.addEventListener("input", () => show(true));
    control.addEventListener("change", () => show(true));
    root.querySelector(".sm-explore-control").hidden = false;
    show();  // a value the browser restored (back button) is shown, not the default
  };
  const start = () => document.querySelectorAll("[data-sm-explore]").forEach(setUp);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

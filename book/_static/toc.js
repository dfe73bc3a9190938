// The page's contents list (the theme's secondary sidebar) sits in the right margin, where a
// full-width code cell (conf.py, `_widen_long_cells`) also reaches. The book theme folds the list
// while such a cell is on screen, but its observer ignores the bottom third of the screen
// (rootMargin -33%), so there the unfolded list covered the cell's line ends. Here the list is
// also folded whenever any part of a full-width cell is on screen; the reader can still open it
// by pointing at it, as the theme allows.
document.addEventListener("DOMContentLoaded", () => {
  const toc = document.querySelector("div.bd-sidebar-secondary");
  const wide = document.querySelectorAll("article .full-width");
  if (!toc || !wide.length || !("IntersectionObserver" in window)) return;
  const onScreen = new Set();
  const fold = () => {
    if (onScreen.size && !toc.classList.contains("hide")) toc.classList.add("hide");
  };
  const watch = new IntersectionObserver((entries) => {
    for (const e of entries) e.isIntersecting ? onScreen.add(e.target) : onScreen.delete(e.target);
    fold();
  });
  wide.forEach((el) => watch.observe(el));
  // the theme's own observer may unfold the list afterwards: fold it again while a cell is on screen
  new MutationObserver(fold).observe(toc, {attributes: true, attributeFilter: ["class"]});
});

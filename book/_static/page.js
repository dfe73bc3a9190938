// Two fixes of the themes' scripts (pydata-sphinx-theme 0.20, sphinx-book-theme 1.4).
//
// 1. The sidebar buttons. Both themes bind the menu and contents buttons by
//    document.querySelector(".primary-toggle") (".secondary-toggle"): the first such button, the
//    copy in the top bar, which is hidden at every width where the article's own header shows
//    its buttons (pydata-sphinx-theme issue 2451). The visible buttons did nothing. A click on any
//    other copy is handed to the bound one, which opens the sidebar as a dialog on a narrow screen
//    and folds it on a wide one, as the themes intend.
// 2. Boxes that scroll sideways take the keyboard's focus (tabindex 0), so that a reader without
//    a pointer can scroll them. The theme marks those that scroll when the page loads; a code cell
//    or table inside a solution or a hidden cell only scrolls once it is opened, so each box is
//    checked again whenever its size changes (from nothing, when it is shown).
document.addEventListener("DOMContentLoaded", () => {
  for (const kind of ["primary-toggle", "secondary-toggle"]) {
    const [bound, ...copies] = document.querySelectorAll("button." + kind);
    for (const copy of copies) {
      copy.addEventListener("click", (event) => {
        event.preventDefault();
        bound.click();
      });
    }
  }
  if (!("ResizeObserver" in window)) return;
  const focusable = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      if (target.scrollWidth > target.clientWidth + 1 && target.tabIndex < 0) target.tabIndex = 0;
    }
  });
  document
    .querySelectorAll("article pre, article .pst-scrollable-table-container")
    .forEach((box) => focusable.observe(box));
});

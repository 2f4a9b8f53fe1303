/* Menus of the main navigation (<details data-nav-menu>): they work without this file (click or Enter on the
 * name opens one, and opening one closes the others); with it, Escape or a click elsewhere closes them too.
 * No inline script (Content-Security-Policy).
 */
(function () {
  "use strict";

  var menus = Array.prototype.slice.call(document.querySelectorAll("details[data-nav-menu]"));
  if (!menus.length) return;
  function closeAll(except) {
    menus.forEach(function (menu) { if (menu !== except) menu.open = false; });
  }
  menus.forEach(function (menu) {
    menu.addEventListener("toggle", function () { if (menu.open) closeAll(menu); });
  });
  document.addEventListener("click", function (event) {
    var inside = menus.filter(function (menu) { return menu.contains(event.target); })[0];
    closeAll(inside);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var open = menus.filter(function (menu) { return menu.open; })[0];
    if (!open) return;
    var focusWasInside = open.contains(document.activeElement);
    open.open = false;
    if (focusWasInside) open.querySelector("summary").focus();
  });
})();

/* Copy buttons: <button data-copy="FIELD-ID" data-copied="Copied" hidden> copies the field's value.
 * The button stays hidden where the page cannot write the clipboard (plain http to another host):
 * the field is then selected on focus, for Ctrl+C. No inline script (Content-Security-Policy).
 */
(function () {
  "use strict";

  document.querySelectorAll("input[data-select-on-focus]").forEach(function (field) {
    field.addEventListener("focus", function () { field.select(); });
  });
  if (!navigator.clipboard || !window.isSecureContext) return;
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var field = document.getElementById(button.dataset.copy);
    if (!field) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", function () {
      field.select();
      navigator.clipboard.writeText(field.value).then(function () {
        button.textContent = button.dataset.copied;
        window.setTimeout(function () { button.textContent = label; }, 3000);
      }, function () { /* refused: the value is selected, Ctrl+C copies it */ });
    });
  });
})();

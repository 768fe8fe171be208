// Copy buttons: a convenience on top of a read-only field the user can
// also select and copy by hand.
document.querySelectorAll("[data-copy]").forEach(function (button) {
  button.addEventListener("click", function () {
    var field = document.getElementById(button.getAttribute("data-copy"));
    field.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard) {
      navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
});

// Makes the copy buttons work (live.js follows the order's status).
(function () {
  var root = document.getElementById('simple-checkout');
  if (!root) return;
  // Copy buttons stay hidden without a script that can make them work.
  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy-text]'), function (button) {
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      if (!navigator.clipboard) return;
      navigator.clipboard.writeText(button.getAttribute('data-copy-text')).then(function () {
        button.textContent = button.getAttribute('data-copied');
        setTimeout(function () {
          button.textContent = label;
        }, 2000);
      });
    });
  });
})();

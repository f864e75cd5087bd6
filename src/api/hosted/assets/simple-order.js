// Reloads the page when the order's status changes, from GET /api/transaction (without a script,
// <noscript>'s meta refresh does it), and makes the copy buttons work.
(function () {
  var root = document.getElementById('simple-checkout');
  if (!root) return;
  var code = root.getAttribute('data-transaction-code');
  var shown = root.getAttribute('data-status');
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
  if (shown !== 'pending' && shown !== 'processing') return;
  function poll() {
    fetch('/api/transaction?transaction_code=' + encodeURIComponent(code), { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (r) {
        return r.ok ? r.json() : null;
      })
      .then(function (body) {
        var status = body && body.data && body.data.status;
        if (status && status !== shown) {
          window.location.reload();
          return;
        }
        setTimeout(poll, 2000);
      })
      .catch(function () {
        setTimeout(poll, 5000);
      });
  }
  setTimeout(poll, 2000);
})();
